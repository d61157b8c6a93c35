//! Extraction rules for TypeScript/JavaScript.
