//! A file's interface, as other files' resolution sees it: its scope facts
//! (imports, re-exports, bases, declared types) without positions. Editing
//! a body above a class shifts every position below it, but no other file
//! resolves differently; only a change in this hash can move resolutions
//! in other files.
//!
//! The hash is computed by a serde serializer that feeds a BLAKE3 hasher with
//! every value in order and skips any struct named `Pos` (see
//! [`crate::graph::Pos`]), so every scope type is covered without a
//! hand-written "strip positions" pass per language.

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

#[cfg(test)]
mod tests {
    use super::hash;
    use crate::extract::{extract, Lang};

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
