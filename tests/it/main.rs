//! One integration test binary; a module per area.

mod cli;
mod freshness;
mod lsp;
mod mcp;
mod on_demand;
mod python;
mod queries;
mod rust_lang;
mod typescript;
mod verify;
