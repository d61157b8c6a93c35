//! Fixture tests for typescript: the exact graph of fixtures/typescript.
