//! The pure graph model: node and edge kinds, statuses, confidence.
//!
//! These are the words of DESIGN §2–3; their `as_str` spellings are
//! contracts (they appear in JSON and in the database).

pub mod algo;

use serde::{Deserialize, Serialize};

/// What a node (one definition) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum NodeKind {
    /// A file.
    Module,
    /// Class, struct, enum, union, trait, interface, type alias.
    Class,
    Function,
    Method,
    /// A test function or method.
    Test,
}

impl NodeKind {
    pub const ALL: [NodeKind; 5] = [
        NodeKind::Module,
        NodeKind::Class,
        NodeKind::Function,
        NodeKind::Method,
        NodeKind::Test,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Module => "module",
            NodeKind::Class => "class",
            NodeKind::Function => "function",
            NodeKind::Method => "method",
            NodeKind::Test => "test",
        }
    }

    pub fn parse(s: &str) -> Option<NodeKind> {
        NodeKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// What an edge says about its two ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum EdgeKind {
    Calls,
    /// Any non-call use: a type in an annotation, a function passed as a
    /// value, a `Type::` path, a struct literal, `isinstance`, `raise`, an
    /// imported name in an import statement.
    References,
    /// Module → module.
    Imports,
    Extends,
    Implements,
    /// Test → code under test.
    Tests,
    /// Parent → child definition (module → class → method).
    Contains,
}

impl EdgeKind {
    pub const ALL: [EdgeKind; 7] = [
        EdgeKind::Calls,
        EdgeKind::References,
        EdgeKind::Imports,
        EdgeKind::Extends,
        EdgeKind::Implements,
        EdgeKind::Tests,
        EdgeKind::Contains,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Calls => "calls",
            EdgeKind::References => "references",
            EdgeKind::Imports => "imports",
            EdgeKind::Extends => "extends",
            EdgeKind::Implements => "implements",
            EdgeKind::Tests => "tests",
            EdgeKind::Contains => "contains",
        }
    }

    pub fn parse(s: &str) -> Option<EdgeKind> {
        EdgeKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// How an edge came to be believed (DESIGN §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Status {
    /// A language server resolved the site to this target.
    Verified,
    /// Scope or import rules with one candidate.
    Syntactic,
    /// A name or receiver heuristic.
    Inferred,
    /// A language server resolved the site elsewhere; kept for audit, never served.
    Refuted,
}

impl Status {
    pub const ALL: [Status; 4] = [
        Status::Verified,
        Status::Syntactic,
        Status::Inferred,
        Status::Refuted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Verified => "verified",
            Status::Syntactic => "syntactic",
            Status::Inferred => "inferred",
            Status::Refuted => "refuted",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A position in a file: 1-based line, 1-based column counted in UTF-8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

impl Pos {
    /// From a Tree-sitter point (0-based row, 0-based byte column).
    pub fn from_ts(p: tree_sitter::Point) -> Pos {
        Pos {
            line: p.row as u32 + 1,
            column: p.column as u32 + 1,
        }
    }
}

/// Node ids are `file_id << NODE_BITS | index of the definition in its file`:
/// stable while a file is unchanged, and no lookup is needed to build them.
pub const NODE_BITS: u32 = 20;

pub fn node_id(file_id: i64, def_index: u32) -> i64 {
    (file_id << NODE_BITS) | i64::from(def_index)
}

pub fn node_file(node_id: i64) -> i64 {
    node_id >> NODE_BITS
}

pub fn node_index(node_id: i64) -> u32 {
    (node_id & ((1 << NODE_BITS) - 1)) as u32
}
