//! Extractor unit tests.
