//! Fixture tests for rust_lang: the exact graph of fixtures/rust.
