//! One integration test binary; a module per area.

mod lsp;
mod python;
mod rust_lang;
mod typescript;
