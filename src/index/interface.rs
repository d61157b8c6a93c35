//! A file's interface, as other files' resolution sees it: its scope facts
//! (imports, re-exports, bases, declared types) without positions. Editing
//! a body above a class shifts every position below it, but no other file
//! resolves differently; only a change of the interface can move
//! resolutions in other files.
//!
//! Two views:
//! - [`hash`], the position-free hash of a whole scope (Python, whose scope
//!   is compared in the new definition numbering, see `write_changed`). It is
//!   computed by a serde serializer that feeds a BLAKE3 hasher with every
//!   value in order and skips any struct named `Pos` (see
//!   [`crate::graph::Pos`]), so every scope type is covered without a
//!   hand-written "strip positions" pass per language.
//! - [`compare`], a multiset of [`Fact`]s per file (TypeScript, Rust, whose
//!   scopes name things by per-file indexes that an inserted definition
//!   shifts): each fact is written with names as text and definitions by
//!   identity, and belongs to the definition it describes, if any. A change
//!   confined to facts of definitions that appeared or disappeared is seen
//!   by other files only through those definitions' names.

mod rust;
mod typescript;

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::extract::{Def, LangScope};

use serde::ser::{self, Serialize};

/// The position-free hash of `value`, as hex.
pub fn hash<T: Serialize + ?Sized>(value: &T) -> String {
    let mut h = Hasher(blake3::Hasher::new());
    value
        .serialize(&mut h)
        .expect("hashing into memory cannot fail");
    h.0.finalize().to_hex().to_string()
}

struct Hasher(blake3::Hasher);

#[derive(Debug)]
struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("unreachable")
    }
}
impl std::error::Error for Never {}
impl ser::Error for Never {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Never
    }
}

impl Hasher {
    /// A tag byte per kind of value, so `[1, 2]` and `(1, 2)` or `Some(0)` and
    /// `0` hash differently; lengths prefix variable-size values.
    fn tag(&mut self, t: u8) {
        self.0.update(&[t]);
    }
    fn bytes(&mut self, t: u8, b: &[u8]) {
        self.tag(t);
        self.0.update(&(b.len() as u64).to_le_bytes());
        self.0.update(b);
    }
}

/// Compound values: `skip` is set for a `Pos`, whose fields are not hashed.
struct Compound<'a> {
    h: &'a mut Hasher,
    skip: bool,
}

type R = Result<(), Never>;

impl<'a> ser::Serializer for &'a mut Hasher {
    type Ok = ();
    type Error = Never;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> R {
        self.bytes(1, &[v as u8]);
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> R {
        self.serialize_i64(v as i64)
    }
    fn serialize_i16(self, v: i16) -> R {
        self.serialize_i64(v as i64)
    }
    fn serialize_i32(self, v: i32) -> R {
        self.serialize_i64(v as i64)
    }
    fn serialize_i64(self, v: i64) -> R {
        self.bytes(2, &v.to_le_bytes());
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> R {
        self.serialize_u64(v as u64)
    }
    fn serialize_u16(self, v: u16) -> R {
        self.serialize_u64(v as u64)
    }
    fn serialize_u32(self, v: u32) -> R {
        self.serialize_u64(v as u64)
    }
    fn serialize_u64(self, v: u64) -> R {
        self.bytes(3, &v.to_le_bytes());
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> R {
        self.serialize_f64(v as f64)
    }
    fn serialize_f64(self, v: f64) -> R {
        self.bytes(4, &v.to_le_bytes());
        Ok(())
    }
    fn serialize_char(self, v: char) -> R {
        self.serialize_u64(v as u64)
    }
    fn serialize_str(self, v: &str) -> R {
        self.bytes(5, v.as_bytes());
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> R {
        self.bytes(6, v);
        Ok(())
    }
    fn serialize_none(self) -> R {
        self.tag(7);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> R {
        self.tag(8);
        value.serialize(self)
    }
    fn serialize_unit(self) -> R {
        self.tag(9);
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> R {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _name: &'static str, index: u32, _variant: &'static str) -> R {
        self.bytes(10, &index.to_le_bytes());
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> R {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        value: &T,
    ) -> R {
        self.bytes(11, &index.to_le_bytes());
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a>, Never> {
        self.bytes(12, &(len.unwrap_or(usize::MAX) as u64).to_le_bytes());
        Ok(Compound {
            h: self,
            skip: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a>, Never> {
        self.bytes(13, &(len as u64).to_le_bytes());
        Ok(Compound {
            h: self,
            skip: false,
        })
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Never> {
        self.serialize_tuple(len)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a>, Never> {
        self.bytes(11, &index.to_le_bytes());
        self.serialize_tuple(len)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a>, Never> {
        self.bytes(14, &(len.unwrap_or(usize::MAX) as u64).to_le_bytes());
        Ok(Compound {
            h: self,
            skip: false,
        })
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Compound<'a>, Never> {
        let skip = name == "Pos";
        self.tag(if skip { 16 } else { 15 });
        Ok(Compound { h: self, skip })
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a>, Never> {
        self.bytes(11, &index.to_le_bytes());
        self.tag(15);
        Ok(Compound {
            h: self,
            skip: false,
        })
    }
}

impl Compound<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> R {
        if self.skip {
            return Ok(());
        }
        value.serialize(&mut *self.h)
    }
}

/// Every compound kind hashes its parts in order (keys and field names
/// aside: the order of fields is fixed by the type).
macro_rules! forward {
    ($($trait:ident :: $method:ident ( $($key:ty)? );)*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = Never;
            fn $method<T: Serialize + ?Sized>(&mut self, $(_key: $key,)? value: &T) -> R {
                self.element(value)
            }
            fn end(self) -> R {
                Ok(())
            }
        }
    )*};
}

forward! {
    SerializeSeq::serialize_element();
    SerializeTuple::serialize_element();
    SerializeTupleStruct::serialize_field();
    SerializeTupleVariant::serialize_field();
    SerializeStruct::serialize_field(&'static str);
    SerializeStructVariant::serialize_field(&'static str);
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> R {
        self.element(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> R {
        self.element(value)
    }
    fn end(self) -> R {
        Ok(())
    }
}

/// How a re-extracted file's interface compares with its stored one.
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing other files read changed.
    Same,
    /// Only facts of definitions that appeared or disappeared changed:
    /// other files see those only through names, the sorted name texts the
    /// differing facts mention (the definitions' own names among them).
    Owned(Vec<String>),
    /// Something other files may read changed.
    Changed,
}

/// Compare a file's stored interface (`old_defs`, `old`) with its
/// re-extracted one; `remap` maps each old definition to its new index
/// (`None`: gone), as `remap_defs` in `index.rs` matched them.
pub fn compare(
    old_defs: &[Def],
    old: &LangScope,
    new_defs: &[Def],
    new: &LangScope,
    remap: &[Option<u32>],
) -> Change {
    let (old_facts, new_facts) = match (old, new) {
        // Python scopes name definitions by index too, but compare whole in
        // the new numbering (an inserted definition leaves them equal).
        (LangScope::Python(o), LangScope::Python(_)) => {
            let moved = LangScope::Python(o.with_defs_moved(remap));
            return if hash(&moved) == hash(new) {
                Change::Same
            } else {
                Change::Changed
            };
        }
        (LangScope::Script(o), LangScope::Script(n)) => (
            typescript::facts(old_defs, o),
            typescript::facts(new_defs, n),
        ),
        (LangScope::Rust(o), LangScope::Rust(n)) => {
            (rust::facts(old_defs, o), rust::facts(new_defs, n))
        }
        _ => return Change::Changed,
    };
    let mut kept = vec![false; new_defs.len()];
    for j in remap.iter().flatten() {
        if let Some(k) = kept.get_mut(*j as usize) {
            *k = true;
        }
    }
    let (gone, came) = difference(old_facts, new_facts);
    if gone.is_empty() && came.is_empty() {
        return Change::Same;
    }
    let removed = |f: &Fact| {
        f.owner
            .is_some_and(|i| remap.get(i as usize) == Some(&None))
    };
    let added = |f: &Fact| {
        f.owner
            .is_some_and(|j| kept.get(j as usize) == Some(&false))
    };
    if !(gone.iter().all(removed) && came.iter().all(added)) {
        return Change::Changed;
    }
    let mut names: Vec<String> = gone.into_iter().chain(came).flat_map(|f| f.names).collect();
    names.sort_unstable();
    names.dedup();
    Change::Owned(names)
}

/// The names under which a file (`defs`, `scope`) lets other files reach
/// something it reaches through one of `names`, when they are other names:
/// `export { a as b }`, `export const b = a.x`, `pub use m::a as b`,
/// `type B = A`. When what `a` resolves to changes, files naming `b` may
/// resolve differently too, without naming `a`. (Python: none computed.)
pub fn aliases(
    defs: &[Def],
    scope: &LangScope,
    names: &std::collections::BTreeSet<String>,
) -> Vec<String> {
    let facts = match scope {
        LangScope::Script(s) => typescript::facts(defs, s),
        LangScope::Rust(s) => rust::facts(defs, s),
        LangScope::Python(_) => return Vec::new(),
    };
    facts
        .into_iter()
        .filter_map(|f| {
            let b = f.binds?;
            (!names.contains(&b) && f.names.iter().any(|n| names.contains(n))).then_some(b)
        })
        .collect()
}

/// The facts only in `old` and only in `new`, compared as multisets of
/// texts; an opaque fact equals none.
fn difference(old: Vec<Fact>, new: Vec<Fact>) -> (Vec<Fact>, Vec<Fact>) {
    let split = |v: Vec<Fact>| -> (Vec<Fact>, Vec<Fact>) {
        let (mut plain, opaque): (Vec<Fact>, Vec<Fact>) =
            v.into_iter().partition(|f| f.text.is_some());
        plain.sort_unstable_by(|a, b| a.text.cmp(&b.text));
        (plain, opaque)
    };
    let (old, mut gone) = split(old);
    let (new, mut came) = split(new);
    let mut o = old.into_iter().peekable();
    let mut n = new.into_iter().peekable();
    loop {
        let order = match (o.peek(), n.peek()) {
            (Some(a), Some(b)) => a.text.cmp(&b.text),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => break,
        };
        match order {
            std::cmp::Ordering::Less => gone.extend(o.next()),
            std::cmp::Ordering::Greater => came.extend(n.next()),
            std::cmp::Ordering::Equal => {
                o.next();
                n.next();
            }
        }
    }
    (gone, came)
}

/// One element of a file's interface, written without positions or
/// per-file indexes.
#[derive(Debug)]
struct Fact {
    /// `None`: too large or deep to write out (opaque: equal to no other).
    text: Option<String>,
    /// The definition the fact belongs to (index into its file's
    /// definitions): other files reach the fact only through that
    /// definition's name. `None`: any file may read it.
    owner: Option<u32>,
    /// Name texts the fact mentions.
    names: Vec<String>,
    /// The name other files can reach what the fact describes by, where it
    /// may differ from the names it mentions (an export `b` of a local or
    /// imported `a`, `use a as b`, `type B = A`): see [`aliases`].
    binds: Option<String>,
}

/// A fact longer than this is opaque.
const MAX_FACT: usize = 1 << 14;

/// The facts of one file, being written.
struct Facts<'a> {
    defs: &'a [Def],
    /// Each definition's identity: kind, qualified name and ordinal among
    /// definitions with both the same (how `remap_defs` matches them).
    idents: Vec<String>,
    /// Facts written so far per leading text (see [`Facts::rank`]).
    ranks: HashMap<String, u32>,
    out: Vec<Fact>,
}

impl<'a> Facts<'a> {
    fn new(defs: &'a [Def]) -> Self {
        let mut seen: HashMap<(&str, crate::graph::NodeKind), u32> = HashMap::new();
        let idents = defs
            .iter()
            .map(|d| {
                let ord = seen.entry((d.local.as_str(), d.kind)).or_insert(0);
                *ord += 1;
                format!(
                    "{}:{}:{}#{}",
                    d.kind.as_str(),
                    d.local.len(),
                    d.local,
                    *ord - 1
                )
            })
            .collect();
        Facts {
            defs,
            idents,
            ranks: HashMap::new(),
            out: Vec::new(),
        }
    }

    /// Write definition `d` by identity; its name and its qualified name's
    /// segments count as mentioned.
    fn def(&self, t: &mut Text, d: u32) {
        match (self.idents.get(d as usize), self.defs.get(d as usize)) {
            (Some(id), Some(def)) => {
                t.raw("D(");
                t.raw(id);
                t.raw(")");
                t.names.push(def.name.clone());
                t.names.extend(
                    def.local
                        .split(['.', ':'])
                        .filter(|s| !s.is_empty() && *s != def.name)
                        .map(str::to_string),
                );
            }
            _ => {
                let _ = write!(t.s, "D?{d}");
            }
        }
    }

    /// Append how many facts began with the text written so far: where the
    /// resolver takes the first (or last) of several entries with the same
    /// key, their order counts, and a multiset would not see it.
    fn rank(&mut self, t: &mut Text) {
        let n = self.ranks.entry(t.s.clone()).or_insert(0);
        let _ = write!(t.s, "#{n};");
        *n += 1;
    }

    fn push(&mut self, owner: Option<u32>, t: Text) {
        self.push_bound(owner, t, None);
    }

    /// A fact describing what other files reach under the name `binds`.
    fn push_bound(&mut self, owner: Option<u32>, t: Text, binds: Option<&str>) {
        let opaque = t.opaque || t.s.len() > MAX_FACT;
        self.out.push(Fact {
            text: (!opaque).then_some(t.s),
            owner,
            names: t.names,
            binds: binds.map(str::to_string),
        });
    }
}

/// The text of one fact.
#[derive(Default)]
struct Text {
    s: String,
    names: Vec<String>,
    /// Cut short (too deep or too long): see [`Fact::text`].
    opaque: bool,
}

impl Text {
    fn new(tag: &str) -> Self {
        let mut t = Text::default();
        t.raw(tag);
        t.raw(" ");
        t
    }

    fn raw(&mut self, s: &str) {
        self.s.push_str(s);
    }

    /// An arbitrary string, length-prefixed so that no two sequences of
    /// strings write the same text.
    fn str(&mut self, s: &str) {
        let _ = write!(self.s, "{}:{s}", s.len());
    }

    /// A name other files may look up.
    fn name(&mut self, s: &str) {
        self.str(s);
        self.names.push(s.to_string());
    }

    /// Stop writing when the fact has grown too long: it becomes opaque.
    fn full(&mut self) -> bool {
        if self.s.len() > MAX_FACT {
            self.opaque = true;
        }
        self.opaque
    }
}

#[cfg(test)]
mod tests {
    use super::{compare, hash, Change};
    use crate::extract::{extract, Lang};

    /// How `new` compares with `old` as an edit of one file.
    fn change(lang: Lang, path: &str, old: &str, new: &str) -> Change {
        let old = extract(lang, path, old.as_bytes());
        let new = extract(lang, path, new.as_bytes());
        let remap = super::super::remap_defs(&old.defs, &new.defs);
        compare(&old.defs, &old.scope, &new.defs, &new.scope, &remap)
    }

    /// The names an edit confined to added or removed definitions mentions;
    /// panics on any other outcome.
    fn owned(lang: Lang, path: &str, old: &str, new: &str) -> Vec<String> {
        match change(lang, path, old, new) {
            Change::Owned(names) => names,
            other => panic!("expected a change owned by added definitions, got {other:?}\n{new}"),
        }
    }

    const TS: &str = "import { Base, helper } from './base';
import * as ns from './ns';
export * from './all';
export { helper as h } from './base';

export class Shape extends Base {
  size: number = 1;
  area(): number {
    return this.size;
  }
}

export function make(): Shape {
  return new Shape();
}

const table = { a: make, b: ns.other };
export const t = table;
";

    #[test]
    fn typescript_added_definitions_are_no_interface_change() {
        let ts = |new: &str| owned(Lang::TypeScript, "m.ts", TS, new);
        let appended = ts(&format!(
            "{TS}\nexport function added(): Shape {{ return make(); }}\n"
        ));
        assert!(appended.contains(&"added".to_string()), "{appended:?}");
        assert!(appended.contains(&"Shape".to_string()), "{appended:?}");
        // Inserted above the rest: every later definition moves.
        let inserted = TS.replace(
            "export class Shape",
            "export function first() {}\n\nexport class Shape",
        );
        assert!(ts(&inserted).contains(&"first".to_string()));
        let method = TS.replace(
            "  area(): number {",
            "  grow(): Shape {\n    return this;\n  }\n  area(): number {",
        );
        let names = ts(&method);
        assert!(
            names.contains(&"grow".to_string()) && names.contains(&"Shape".to_string()),
            "{names:?}"
        );
        ts(&format!(
            "{TS}\nexport class Extra extends Shape {{\n  x: Shape = make();\n}}\n"
        ));
        // Removing what was added is the same kind of change.
        let removed = change(Lang::TypeScript, "m.ts", &method, TS);
        assert!(matches!(removed, Change::Owned(_)), "{removed:?}");
        // A body edit changes nothing.
        assert_eq!(
            change(
                Lang::TypeScript,
                "m.ts",
                TS,
                &TS.replace("return this.size;", "// x\n    return 2;")
            ),
            Change::Same
        );
    }

    #[test]
    fn typescript_interface_edits_are_interface_changes() {
        for (what, from, to) in [
            ("a return type", "make(): Shape", "make(): Base"),
            ("a base class", "extends Base", "extends ns.Other"),
            ("an export target", "helper as h", "Base as h"),
            (
                "an import specifier",
                "from './base';\nimport * as",
                "from './base2';\nimport * as",
            ),
            (
                "a star re-export",
                "export * from './all'",
                "export * from './every'",
            ),
            ("a field type", "size: number = 1", "size: Shape = make()"),
            ("a variable's value", "a: make,", "a: helper,"),
            (
                "an added field",
                "  size: number = 1;",
                "  size: number = 1;\n  other: Shape = make();",
            ),
            (
                "an export of an existing definition",
                "const table",
                "export const table",
            ),
            (
                "a default export of an added definition",
                "export const t",
                "export default function d() {}\nexport const t",
            ),
            (
                "a method made a getter",
                "  area(): number {",
                "  get area(): number {",
            ),
            (
                "a namespace's renamed export",
                "const table",
                "namespace Shape { export { make as create } }\nconst table",
            ),
        ] {
            assert!(TS.contains(from), "{what}: {from}");
            assert_eq!(
                change(Lang::TypeScript, "m.ts", TS, &TS.replacen(from, to, 1)),
                Change::Changed,
                "{what}"
            );
        }
    }

    /// JavaScript: a static assigned on a class (`Shape.make = …`) is no
    /// definition, yet `Shape.make` elsewhere is it, no longer the method.
    #[test]
    fn javascript_statics_are_interface_changes() {
        let js = "export class Shape {\n  make() {}\n}\n";
        let with_static = format!("{js}Shape.make = function () {{}};\n");
        assert_eq!(
            change(Lang::JavaScript, "m.js", js, &with_static),
            Change::Changed
        );
    }

    const RS: &str = "use crate::a::{b, c as d};
pub use crate::gw::Gateway;
pub mod m;

pub struct S {
    pub f: u32,
}

pub trait T: Clone {
    fn t(&self);
}

impl S {
    pub fn new() -> S {
        S { f: 1 }
    }
}

impl T for S {
    fn t(&self) {}
}

pub fn free() -> S {
    fn inner() {}
    S::new()
}
";

    #[test]
    fn rust_added_definitions_are_no_interface_change() {
        let rs = |new: &str| owned(Lang::Rust, "src/lib.rs", RS, new);
        let appended = rs(&format!("{RS}\npub fn added() -> u32 {{\n    1\n}}\n"));
        assert!(appended.contains(&"added".to_string()), "{appended:?}");
        let inserted = RS.replace("pub struct S", "pub fn first() {}\n\npub struct S");
        assert!(rs(&inserted).contains(&"first".to_string()));
        let method = RS.replace(
            "impl S {\n",
            "impl S {\n    pub fn grow(&self, by: u32) -> S {\n        use crate::a::b;\n        S { f: by }\n    }\n\n",
        );
        let names = rs(&method);
        assert!(
            names.contains(&"grow".to_string()) && names.contains(&"S".to_string()),
            "{names:?}"
        );
        let trait_method = RS.replace(
            "    fn t(&self);\n",
            "    fn t(&self);\n    fn u(&self) -> S;\n",
        );
        assert!(rs(&trait_method).contains(&"T".to_string()));
        rs(&format!("{RS}\npub struct Extra {{\n    pub s: S,\n}}\n"));
        assert_eq!(
            change(
                Lang::Rust,
                "src/lib.rs",
                RS,
                &RS.replace("S { f: 1 }", "S { f: 2 }")
            ),
            Change::Same
        );
    }

    #[test]
    fn rust_interface_edits_are_interface_changes() {
        for (what, from, to) in [
            (
                "a return type",
                "pub fn free() -> S",
                "pub fn free() -> Gateway",
            ),
            (
                "a pub use",
                "pub use crate::gw::Gateway;",
                "pub use crate::gw::Other as Gateway;",
            ),
            ("a use", "c as d", "c as e"),
            ("a field type", "pub f: u32", "pub f: Gateway"),
            ("a supertrait", "T: Clone", "T: Copy"),
            (
                "a new impl block",
                "pub fn free",
                "impl Clone for S {}\n\npub fn free",
            ),
            (
                "a method moved to another impl",
                "impl T for S {\n",
                "impl T for S {\n    pub fn new() -> S {\n        S { f: 1 }\n    }\n",
            ),
            (
                "a trait's type argument (`From<A>`)",
                "impl T for S {\n",
                "impl T<u8> for S {\n",
            ),
            ("a mod declaration", "pub mod m;", "pub mod n;"),
            (
                "an inline module",
                "pub mod m;",
                "pub mod m;\nmod inline {}",
            ),
            (
                "an impl in an added function",
                "pub fn free",
                "fn added() {\n    impl Clone for S {}\n}\n\npub fn free",
            ),
        ] {
            assert!(RS.contains(from), "{what}: {from}");
            let mut new = RS.replacen(from, to, 1);
            if what == "a method moved to another impl" {
                new = new.replacen(
                    "    pub fn new() -> S {\n        S { f: 1 }\n    }\n",
                    "",
                    1,
                );
            }
            assert_eq!(
                change(Lang::Rust, "src/lib.rs", RS, &new),
                Change::Changed,
                "{what}"
            );
        }
    }

    #[test]
    fn aliases_are_the_other_names_things_are_reached_by() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
        let aliases = |lang, path, src: &str, of: &[&str]| {
            let f = extract(lang, path, src.as_bytes());
            let mut a = super::aliases(&f.defs, &f.scope, &names(of));
            a.sort();
            a
        };
        let ts = "import { foo } from './f';\nexport { foo as bar };\nexport { other as o } from './f';\nexport const t = { k: foo };\nexport { foo };\n";
        assert_eq!(
            aliases(Lang::TypeScript, "g.ts", ts, &["foo"]),
            ["bar", "t"]
        );
        assert!(aliases(Lang::TypeScript, "g.ts", ts, &["nothing"]).is_empty());
        let rs = "pub use crate::f::foo as bar;\nuse crate::f::Foo;\npub type Alias = Foo;\nfn g() {\n    use crate::f::foo as local;\n}\n";
        assert_eq!(
            aliases(Lang::Rust, "src/g.rs", rs, &["foo", "Foo"]),
            ["Alias", "bar"]
        );
    }

    #[test]
    fn python_keeps_comparing_in_the_new_numbering() {
        let py = "class K:\n    def f(self) -> int:\n        return 1\n";
        assert_eq!(
            change(
                Lang::Python,
                "m.py",
                py,
                &format!("def first():\n    pass\n\n\n{py}")
            ),
            Change::Same
        );
        assert_eq!(
            change(Lang::Python, "m.py", py, &py.replace("-> int", "-> str")),
            Change::Changed
        );
    }

    fn scope_hash(lang: Lang, path: &str, src: &str) -> String {
        hash(&extract(lang, path, src.as_bytes()).scope)
    }

    #[test]
    fn positions_do_not_count_but_content_does() {
        let py = "from a import b as c\nimport x.y\n\nclass K(Base):\n    def f(self) -> int:\n        return 1\n";
        let shifted = format!("# a comment\n\n{py}");
        let renamed = py.replace("as c", "as d");
        let base = scope_hash(Lang::Python, "m.py", py);
        assert_eq!(base, scope_hash(Lang::Python, "m.py", &shifted));
        assert_ne!(base, scope_hash(Lang::Python, "m.py", &renamed));
        assert_ne!(
            base,
            scope_hash(Lang::Python, "m.py", &py.replace("(Base)", "(Other)"))
        );

        let ts =
            "import { a as b } from './x';\nexport * from './y';\nexport class C extends D {}\n";
        let base = scope_hash(Lang::TypeScript, "m.ts", ts);
        assert_eq!(
            base,
            scope_hash(Lang::TypeScript, "m.ts", &format!("\n\n{ts}"))
        );
        assert_ne!(
            base,
            scope_hash(Lang::TypeScript, "m.ts", &ts.replace("./y", "./z"))
        );

        let rs = "use crate::a::{b, c as d};\npub mod m;\nimpl T for S {}\n";
        let base = scope_hash(Lang::Rust, "src/lib.rs", rs);
        assert_eq!(
            base,
            scope_hash(Lang::Rust, "src/lib.rs", &format!("// x\n{rs}"))
        );
        assert_ne!(
            base,
            scope_hash(Lang::Rust, "src/lib.rs", &rs.replace("c as d", "c as e"))
        );
    }

    #[test]
    fn shapes_are_distinguished() {
        assert_ne!(hash(&Some(0u32)), hash(&0u32));
        assert_ne!(hash(&vec![1u32, 2]), hash(&(1u32, 2u32)));
        assert_ne!(hash(&("ab", "c")), hash(&("a", "bc")));
    }
}
