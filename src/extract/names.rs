//! A file's string table stored as one string: decoding a scope costs one
//! allocation and one UTF-8 check for all its names, not one per name (a
//! Rust tree's update decodes every file's scope).

use serde::{Deserialize, Serialize};

/// Strings by index, kept end to end in one `String`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawNames")]
pub struct Names {
    text: String,
    /// The end of each string in `text`; string `i` starts where `i - 1` ends.
    ends: Vec<u32>,
}

/// [`Names`] as encoded, checked before use.
#[derive(Deserialize)]
struct RawNames {
    text: String,
    ends: Vec<u32>,
}

impl TryFrom<RawNames> for Names {
    type Error = String;

    /// Rejects ends that go back, run past the text or split a character:
    /// a damaged blob is an error, not a panic on first use.
    fn try_from(raw: RawNames) -> Result<Self, String> {
        let mut start = 0;
        for &end in &raw.ends {
            if end < start || !raw.text.is_char_boundary(end as usize) {
                return Err(format!("name table: bad end {end} after {start}"));
            }
            start = end;
        }
        Ok(Names {
            text: raw.text,
            ends: raw.ends,
        })
    }
}

impl Names {
    /// A table from its encoding (as `postcard` writes it: the text's
    /// length and bytes, then the ends), its text taken out of `bytes` in
    /// place rather than copied: a Rust update reads a kept table of
    /// megabytes.
    pub fn from_encoded(mut bytes: Vec<u8>) -> Result<Names, String> {
        let (len, rest) = postcard::take_from_bytes::<u64>(&bytes).map_err(|e| e.to_string())?;
        let start = bytes.len() - rest.len();
        let end = usize::try_from(len)
            .ok()
            .and_then(|len| start.checked_add(len))
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| format!("name table: text of {len} bytes in {}", bytes.len()))?;
        let ends: Vec<u32> = postcard::from_bytes(&bytes[end..]).map_err(|e| e.to_string())?;
        bytes.copy_within(start..end, 0);
        bytes.truncate(end - start);
        let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
        Names::try_from(RawNames { text, ends })
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Appends `s`; its index is the previous [`len`](Self::len).
    pub fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len() as u32);
    }

    /// Appends every string of `other`, in order.
    pub fn append(&mut self, other: &Names) {
        let base = self.text.len() as u32;
        self.text.push_str(&other.text);
        self.ends.extend(other.ends.iter().map(|&e| base + e));
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        Some(&self.text[start..end])
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let s = &self.text[start..end as usize];
            start = end as usize;
            s
        })
    }
}

impl std::ops::Index<usize> for Names {
    type Output = str;

    fn index(&self, i: usize) -> &str {
        match self.get(i) {
            Some(s) => s,
            None => panic!("name {i} of {}", self.len()),
        }
    }
}

impl<'a> FromIterator<&'a str> for Names {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Self {
        let mut names = Names::default();
        for s in iter {
            names.push(s);
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_index() {
        let names: Names = ["", "crate", "héllo", "x"].into_iter().collect();
        assert_eq!(names.len(), 4);
        assert_eq!(&names[0], "");
        assert_eq!(&names[2], "héllo");
        assert_eq!(names.get(4), None);
        assert_eq!(
            names.iter().collect::<Vec<_>>(),
            ["", "crate", "héllo", "x"]
        );
        let bytes = postcard::to_allocvec(&names).unwrap();
        let back: Names = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, names);
        let mut joined: Names = ["a", "bc"].into_iter().collect();
        joined.append(&names);
        assert_eq!(
            joined.iter().collect::<Vec<_>>(),
            ["a", "bc", "", "crate", "héllo", "x"]
        );
    }

    /// Read in place, a table is what `postcard` reads, and what it
    /// rejects is rejected.
    #[test]
    fn an_encoded_table_reads_in_place_as_postcard_reads_it() {
        // Lengths and ends past one varint byte, text past ASCII.
        let long = "é".repeat(100);
        let many: Vec<String> = (0..300).map(|i| format!("n{i}")).collect();
        for names in [
            Names::default(),
            ["", "crate", "héllo", "x"].into_iter().collect(),
            [long.as_str(), "y"].into_iter().collect(),
            many.iter().map(String::as_str).collect(),
        ] {
            let bytes = postcard::to_allocvec(&names).unwrap();
            assert_eq!(Names::from_encoded(bytes.clone()).unwrap(), names);
            assert_eq!(postcard::from_bytes::<Names>(&bytes).unwrap(), names);
        }
        let bytes = postcard::to_allocvec(&["ab", "c"].into_iter().collect::<Names>()).unwrap();
        for bad in [
            vec![],
            vec![0xff],
            bytes[..bytes.len() - 1].to_vec(),
            bytes[..2].to_vec(),
            postcard::to_allocvec(&(String::from("hé"), vec![2u32])).unwrap(),
            postcard::to_allocvec(&(vec![0xffu8, 0xfe], vec![2u32])).unwrap(),
        ] {
            assert!(
                Names::from_encoded(bad.clone()).is_err(),
                "{bad:?} accepted"
            );
            assert!(postcard::from_bytes::<Names>(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_damaged_table_is_an_error() {
        // An end inside `é`, and ends that go back.
        for ends in [vec![2u32], vec![3, 1], vec![9]] {
            let raw = (String::from("hé"), ends.clone());
            let bytes = postcard::to_allocvec(&raw).unwrap();
            assert!(
                postcard::from_bytes::<Names>(&bytes).is_err(),
                "ends {ends:?} accepted"
            );
        }
    }
}
