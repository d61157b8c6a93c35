//! Resolution rules for TypeScript/JavaScript.
