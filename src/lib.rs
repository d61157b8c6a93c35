//! refgraph: a code graph whose guessed edges are confirmed by language servers.

pub mod extract;
pub mod graph;
pub mod index;
pub mod lsp;
pub mod resolve;
pub mod store;
pub mod walk;
