//! Tree-sitter → per-file facts. Pure: bytes in, facts out; never fails.
//!
//! Each language module turns one file into a [`FileFacts`]: its definitions
//! (the graph's nodes), the language-specific facts other files' resolution
//! may read ([`LangScope`]: imports, re-exports, bases, field and return
//! types), the reference sites only this file's resolution reads
//! ([`LangRefs`]), and diagnostics for what could not be parsed. Keys are not
//! made here: a definition carries its *local* qualified name and
//! [`crate::resolve`] prefixes the module key, so moving a file re-keys it
//! without re-parsing.

pub mod names;
pub mod python;
pub mod rust;
pub mod syntax;
pub mod typescript;

use serde::{Deserialize, Serialize};

use crate::graph::{NodeKind, Pos};

/// A source language. TypeScript, TSX and JavaScript share one resolver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Lang {
    Python,
    TypeScript,
    Tsx,
    JavaScript,
    Rust,
}

/// The resolver family a language belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Python,
    Script,
    Rust,
}

impl Lang {
    pub const ALL: [Lang; 5] = [
        Lang::Python,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::JavaScript,
        Lang::Rust,
    ];

    /// The language of a path, by its extension.
    pub fn of_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext {
            "py" | "pyi" => Lang::Python,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "js" | "jsx" | "mjs" | "cjs" => Lang::JavaScript,
            "rs" => Lang::Rust,
            _ => return None,
        })
    }

    pub fn family(self) -> Family {
        match self {
            Lang::Python => Family::Python,
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => Family::Script,
            Lang::Rust => Family::Rust,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
            Lang::Rust => "rust",
        }
    }

    pub fn parse(s: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

/// One definition: a node of the graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Def {
    /// The bare name as written (`refund`). For the module: the file stem.
    pub name: String,
    /// The qualified name inside the file, in the language's own notation:
    /// `StripeGateway.refund` (Python, TS/JS), `StripeGateway::refund`,
    /// `tests::it_works` (Rust). Empty for the module itself.
    pub local: String,
    pub kind: NodeKind,
    /// Index of the enclosing definition in `FileFacts::defs` (0 = the
    /// module); `None` only for the module itself.
    pub parent: Option<u32>,
    /// Start of the name (the LSP selection range).
    pub pos: Pos,
    /// First line of the whole definition, decorators and attributes included.
    pub start_line: u32,
    /// Last line of the body.
    pub end_line: u32,
    /// Visible outside its module: Python names not starting with `_` at
    /// module or class level, TS/JS `export`, Rust `pub` (any form).
    pub exported: bool,
}

/// What resolution reads of any definition in the world: its kind, its
/// parent and whether it is exported, without its names. A file's heads
/// are read from its stored definitions without decoding them
/// ([`DefHead::read_all`]); the definitions themselves are decoded only
/// for the files resolved and the targets rendered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefHead {
    pub kind: NodeKind,
    pub exported: bool,
    pub parent: Option<u32>,
}

impl From<&Def> for DefHead {
    fn from(d: &Def) -> DefHead {
        DefHead {
            kind: d.kind,
            exported: d.exported,
            parent: d.parent,
        }
    }
}

/// A [`Def`] as encoded, its text borrowed from the encoding: the fields
/// must stay those of `Def`, in its order and types (`String` encodes as
/// `&str` does), so that it reads exactly what `Def` reads.
#[derive(Deserialize)]
struct DefWire<'a> {
    #[serde(borrow)]
    name: &'a str,
    #[serde(borrow)]
    _local: &'a str,
    kind: NodeKind,
    parent: Option<u32>,
    _pos: Pos,
    _start_line: u32,
    _end_line: u32,
    exported: bool,
}

impl DefHead {
    /// The heads of the definitions a `Vec<Def>` was encoded to with
    /// postcard, read without allocating their names; fails where decoding
    /// the `Vec<Def>` fails.
    pub fn read_all(encoded: &[u8]) -> Result<Vec<DefHead>, postcard::Error> {
        struct Heads(Vec<DefHead>);
        impl<'de> Deserialize<'de> for Heads {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Heads, D::Error> {
                struct Visit;
                impl<'de> serde::de::Visitor<'de> for Visit {
                    type Value = Heads;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str("a sequence of definitions")
                    }
                    fn visit_seq<A: serde::de::SeqAccess<'de>>(
                        self,
                        mut seq: A,
                    ) -> Result<Heads, A::Error> {
                        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
                        while let Some(w) = seq.next_element::<DefWire>()? {
                            out.push(DefHead {
                                kind: w.kind,
                                exported: w.exported,
                                parent: w.parent,
                            });
                        }
                        Ok(Heads(out))
                    }
                }
                d.deserialize_seq(Visit)
            }
        }
        postcard::from_bytes::<Heads>(encoded).map(|h| h.0)
    }

    /// Calls `f` with the name of each definition a `Vec<Def>` was encoded
    /// to with postcard, in order, borrowed from `encoded` (nothing is
    /// allocated); fails where decoding the `Vec<Def>` fails.
    pub fn each_name(encoded: &[u8], f: impl FnMut(&str)) -> Result<(), postcard::Error> {
        struct Names<F>(F);
        impl<'de, F: FnMut(&str)> serde::de::DeserializeSeed<'de> for Names<F> {
            type Value = ();
            fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
                d.deserialize_seq(self)
            }
        }
        impl<'de, F: FnMut(&str)> serde::de::Visitor<'de> for Names<F> {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence of definitions")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                mut self,
                mut seq: A,
            ) -> Result<(), A::Error> {
                while let Some(w) = seq.next_element::<DefWire>()? {
                    (self.0)(w.name);
                }
                Ok(())
            }
        }
        let mut de = postcard::Deserializer::from_bytes(encoded);
        serde::de::DeserializeSeed::deserialize(Names(f), &mut de)?;
        de.finalize().map(|_| ())
    }
}

/// A part of a scope that few resolutions read, stored as its own
/// encoding and decoded when first read: an update of a large tree
/// decodes every file's scope, and reads this part of a few.
///
/// Encoded as a byte string holding the value's postcard encoding.
pub struct Packed<T> {
    bytes: Vec<u8>,
    value: std::sync::OnceLock<T>,
}

impl<T> Packed<T> {
    pub fn new(value: T) -> Packed<T> {
        Packed {
            bytes: Vec::new(),
            value: std::sync::OnceLock::from(value),
        }
    }
}

impl<T: Default + serde::de::DeserializeOwned> Packed<T> {
    pub fn get(&self) -> &T {
        self.value.get_or_init(|| {
            postcard::from_bytes(&self.bytes).unwrap_or_else(|e| {
                // Not expected: the bytes are those this type wrote, in a
                // blob or record checked as a whole when read.
                tracing::error!(error = %e, "a packed part of a scope does not decode: read as empty");
                T::default()
            })
        })
    }

    pub fn get_mut(&mut self) -> &mut T {
        self.get();
        self.bytes = Vec::new();
        self.value.get_mut().expect("decoded just above")
    }
}

impl<T: Default> Default for Packed<T> {
    fn default() -> Packed<T> {
        Packed::new(T::default())
    }
}

impl<T: Clone> Clone for Packed<T> {
    fn clone(&self) -> Packed<T> {
        Packed {
            bytes: self.bytes.clone(),
            value: self.value.clone(),
        }
    }
}

impl<T: Default + serde::de::DeserializeOwned + std::fmt::Debug> std::fmt::Debug for Packed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

impl<T: Default + serde::de::DeserializeOwned + PartialEq> PartialEq for Packed<T> {
    fn eq(&self, other: &Packed<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Serialize> Serialize for Packed<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.value.get() {
            Some(v) => {
                let bytes = postcard::to_allocvec(v).map_err(serde::ser::Error::custom)?;
                s.serialize_bytes(&bytes)
            }
            None => s.serialize_bytes(&self.bytes),
        }
    }
}

impl<'de, T> Deserialize<'de> for Packed<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Packed<T>, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
        }
        Ok(Packed {
            bytes: d.deserialize_byte_buf(Bytes)?,
            value: std::sync::OnceLock::new(),
        })
    }
}

/// Something the extractor could not read; the rest of the file still counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub pos: Pos,
    pub message: String,
}

/// Everything known about one file, before resolution.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FileFacts {
    /// `defs[0]` is always the module (kind `Module`, `local` empty, at 1:1).
    pub defs: Vec<Def>,
    pub diagnostics: Vec<Diagnostic>,
    /// Distinct identifiers this file's resolution depends on (referenced
    /// names, imported names and module segments), sorted. Used to find the
    /// files to re-resolve when a definition with one of these names changes.
    pub ref_names: Vec<String>,
    /// What other files' resolution may read.
    pub scope: LangScope,
    /// What only this file's resolution reads.
    pub refs: LangRefs,
}

/// (One per file, read and decoded in bulk: unboxed, a Python or
/// TypeScript scope costs some 200 bytes more than it needs, less than an
/// allocation and an indirection per Rust file.)
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum LangScope {
    Python(python::Scope),
    Script(typescript::Scope),
    Rust(rust::Scope),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum LangRefs {
    Python(python::Refs),
    Script(typescript::Refs),
    Rust(rust::Refs),
}

/// The Tree-sitter grammar a language is parsed with.
pub fn grammar(lang: Lang) -> tree_sitter::Language {
    match lang {
        Lang::Python => tree_sitter_python::LANGUAGE.into(),
        Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
    }
}

/// Extract one file. Never fails: unreadable syntax becomes diagnostics.
pub fn extract(lang: Lang, path: &str, src: &[u8]) -> FileFacts {
    match lang {
        Lang::Python => python::extract(path, src),
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => typescript::extract(lang, path, src),
        Lang::Rust => rust::extract(path, src),
    }
}

/// The module definition every file starts with.
pub fn module_def(path: &str, src: &[u8]) -> Def {
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = file.split('.').next().unwrap_or(file);
    let lines = src.iter().filter(|&&b| b == b'\n').count() as u32;
    let end_line = if src.last() == Some(&b'\n') || src.is_empty() {
        lines.max(1)
    } else {
        lines + 1
    };
    Def {
        name: stem.to_string(),
        local: String::new(),
        kind: NodeKind::Module,
        parent: None,
        pos: Pos { line: 1, column: 1 },
        start_line: 1,
        end_line,
        exported: true,
    }
}

/// Diagnostics for every `ERROR` and `MISSING` node Tree-sitter recovered
/// from, at most `limit` of them.
pub fn syntax_diagnostics(root: tree_sitter::Node, limit: usize) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if !root.has_error() {
        return out;
    }
    let mut cursor = root.walk();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if out.len() >= limit {
            break;
        }
        if node.is_error() {
            out.push(Diagnostic {
                pos: Pos::from_ts(node.start_position()),
                message: "syntax error: could not parse this part of the file".into(),
            });
            continue;
        }
        if node.is_missing() {
            out.push(Diagnostic {
                pos: Pos::from_ts(node.start_position()),
                message: format!("syntax error: missing `{}`", node.kind()),
            });
            continue;
        }
        if node.has_error() {
            let children: Vec<_> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    out.sort_by_key(|d| d.pos);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Holder {
        before: u32,
        part: Packed<Vec<(u32, String)>>,
        after: String,
    }

    /// A packed part is read as bytes, decoded when first read, and written
    /// again as it was read, decoded or not.
    #[test]
    fn a_packed_part_decodes_when_first_read_and_encodes_as_it_was() {
        let value: Vec<(u32, String)> = (0..200).map(|i| (i * 1000, format!("é{i}"))).collect();
        let held = Holder {
            before: 7,
            part: Packed::new(value.clone()),
            after: "end".into(),
        };
        let bytes = postcard::to_allocvec(&held).unwrap();
        let back: Holder = postcard::from_bytes(&bytes).unwrap();
        assert!(back.part.value.get().is_none(), "decoded before read");
        assert_eq!((back.before, back.after.as_str()), (7, "end"));
        // Undecoded, it encodes to the same bytes.
        assert_eq!(postcard::to_allocvec(&back).unwrap(), bytes);
        assert_eq!(back.part.get(), &value);
        assert_eq!(back, held);
        let mut back = back;
        back.part.get_mut().push((1, "x".into()));
        assert_eq!(back.part.get().len(), 201);
        assert_eq!(Packed::<Vec<u32>>::default().get(), &Vec::<u32>::new());
        // Bytes that do not decode (never written by this type) read as
        // empty, with an error logged, not a panic.
        let broken =
            postcard::to_allocvec(&(7u32, vec![0xffu8, 0xff, 0xff], String::from("end"))).unwrap();
        let back: Holder = postcard::from_bytes(&broken).unwrap();
        assert!(back.part.get().is_empty());
    }
}
