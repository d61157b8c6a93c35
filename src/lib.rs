//! refgraph: a code graph whose guessed edges are confirmed by language servers.

pub mod api;
pub mod cli;
pub mod config;
pub mod extract;
pub mod git;
pub mod graph;
pub mod index;
pub mod lsp;
pub mod mcp;
pub mod memory;
pub mod query;
pub mod resolve;
pub mod store;
pub mod verify;
pub mod walk;
