//! Resolver unit tests.
