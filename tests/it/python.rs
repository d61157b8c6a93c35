//! Fixture tests for python: the exact graph of fixtures/python.
