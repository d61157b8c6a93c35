//! The one place positions cross between refgraph and LSP.
//!
//! refgraph: [`Pos`] is a 1-based line and a 1-based column counted in UTF-8 bytes.
//! LSP: a 0-based line and a 0-based `character` counted in the negotiated
//! `positionEncoding` units (UTF-16 unless the server chose otherwise). Lines end at
//! `\n`; a `\r` before it is part of the line for counting but never addressed.

use async_lsp::lsp_types::{self, PositionEncodingKind};

use crate::graph::Pos;

/// The unit LSP `character` offsets count in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
    Utf32,
}

impl Encoding {
    /// What the server announced in `capabilities.positionEncoding` (absent = UTF-16).
    pub fn negotiated(kind: Option<&PositionEncodingKind>) -> Encoding {
        match kind.map(|k| k.as_str()) {
            Some("utf-8") => Encoding::Utf8,
            Some("utf-32") => Encoding::Utf32,
            _ => Encoding::Utf16,
        }
    }

    /// What the client offers, most preferred first.
    pub fn offered() -> Vec<PositionEncodingKind> {
        vec![
            PositionEncodingKind::UTF8,
            PositionEncodingKind::UTF16,
            PositionEncodingKind::UTF32,
        ]
    }

    fn units(self, c: char) -> u32 {
        match self {
            Encoding::Utf8 => c.len_utf8() as u32,
            Encoding::Utf16 => c.len_utf16() as u32,
            Encoding::Utf32 => 1,
        }
    }
}

/// A text with the byte offset at which each of its lines starts, built once
/// per text: converting a position then looks its line up instead of scanning
/// the text from the start (three scans per request made up most of the
/// bridge's own CPU time on typescript-language-server).
#[derive(Debug)]
pub struct Text {
    text: std::sync::Arc<str>,
    starts: Vec<usize>,
}

impl Text {
    pub fn new(text: impl Into<std::sync::Arc<str>>) -> Text {
        let text: std::sync::Arc<str> = text.into();
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(newlines(text.as_bytes()).map(|i| i + 1));
        Text { text, starts }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The text of 0-based line `line` (without its `\n`), if the text has it.
    fn line(&self, line: u32) -> Option<&str> {
        let i = line as usize;
        let start = *self.starts.get(i)?;
        let end = self.starts.get(i + 1).map_or(self.text.len(), |s| s - 1);
        Some(&self.text[start..end])
    }
}

fn newlines(b: &[u8]) -> impl Iterator<Item = usize> + '_ {
    b.iter()
        .enumerate()
        .filter(|(_, c)| **c == b'\n')
        .map(|(i, _)| i)
}

/// A refgraph position to an LSP one. `None` when the line does not exist; a
/// column past the end of the line, or inside a character, is clamped to the
/// character boundary at or before it.
pub fn to_lsp(text: &Text, pos: Pos, enc: Encoding) -> Option<lsp_types::Position> {
    let line = pos.line.checked_sub(1)?;
    let lt = text.line(line)?;
    let mut byte = (pos.column.saturating_sub(1) as usize).min(lt.len());
    while !lt.is_char_boundary(byte) {
        byte -= 1;
    }
    let character = match enc {
        Encoding::Utf8 => byte as u32,
        _ if lt[..byte].is_ascii() => byte as u32,
        _ => lt[..byte].chars().map(|c| enc.units(c)).sum(),
    };
    Some(lsp_types::Position { line, character })
}

/// An LSP position to a refgraph one. A `character` past the end of the line, or
/// inside a character (half a surrogate pair), lands on the boundary at or before
/// it; a line past the end of the text keeps its number with column 1.
pub fn from_lsp(text: &Text, p: lsp_types::Position, enc: Encoding) -> Pos {
    let Some(lt) = text.line(p.line) else {
        return Pos {
            line: p.line + 1,
            column: 1,
        };
    };
    let byte = match enc {
        Encoding::Utf8 => {
            let mut b = (p.character as usize).min(lt.len());
            while !lt.is_char_boundary(b) {
                b -= 1;
            }
            b
        }
        _ if lt.is_ascii() => (p.character as usize).min(lt.len()),
        _ => {
            let mut units = 0u32;
            let mut byte = lt.len();
            for (i, c) in lt.char_indices() {
                let next = units + enc.units(c);
                if next > p.character {
                    byte = i;
                    break;
                }
                units = next;
            }
            byte
        }
    };
    Pos {
        line: p.line + 1,
        column: byte as u32 + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::Position;

    fn pos(line: u32, column: u32) -> Pos {
        Pos { line, column }
    }

    /// Byte column (1-based) of the first occurrence of `needle` on 1-based `line`.
    fn col_of(text: &str, line: u32, needle: &str) -> u32 {
        let lt = text.split('\n').nth(line as usize - 1).unwrap();
        lt.find(needle).unwrap() as u32 + 1
    }

    // 😀 is 4 bytes, 2 UTF-16 units, 1 scalar; 中 is 3 bytes, 1 unit; é as
    // e + U+0301 (combining acute) is 1 + 2 bytes, 2 units.
    const SRC: &str =
        "x = 1\n😀😀 = target\ns = \"中文\"; target()\nname = \"e\u{301}\"  # target\r\nend";

    fn to_lsp(text: &str, p: Pos, enc: Encoding) -> Option<Position> {
        super::to_lsp(&Text::new(text), p, enc)
    }

    fn from_lsp(text: &str, p: Position, enc: Encoding) -> Pos {
        super::from_lsp(&Text::new(text), p, enc)
    }

    const TEXT: &str = SRC;

    #[test]
    fn line_index_agrees_with_splitting() {
        for text in ["", "\n", "a", "a\n", "a\nb", "a\r\n\nb\n", SRC] {
            let t = Text::new(text);
            for (i, want) in text.split('\n').enumerate() {
                assert_eq!(t.line(i as u32), Some(want), "{text:?} line {i}");
            }
            assert_eq!(t.line(text.split('\n').count() as u32), None, "{text:?}");
        }
    }

    #[test]
    fn emoji_counts_two_utf16_units() {
        let c = col_of(TEXT, 2, "target");
        assert_eq!(c, 12); // 4 + 4 + " = " (3) → byte 11, column 12
        let p = to_lsp(TEXT, pos(2, c), Encoding::Utf16).unwrap();
        assert_eq!(p, Position::new(1, 7)); // 2 + 2 + 3
        assert_eq!(
            to_lsp(TEXT, pos(2, c), Encoding::Utf8).unwrap(),
            Position::new(1, 11)
        );
        assert_eq!(
            to_lsp(TEXT, pos(2, c), Encoding::Utf32).unwrap(),
            Position::new(1, 5)
        );
    }

    #[test]
    fn cjk_counts_one_utf16_unit_three_bytes() {
        let c = col_of(TEXT, 3, "target");
        let p = to_lsp(TEXT, pos(3, c), Encoding::Utf16).unwrap();
        // `s = "中文"; ` is 5 + 2 + 3 = 10 chars before `target`, all single units.
        assert_eq!(p, Position::new(2, 10));
        assert_eq!(from_lsp(TEXT, p, Encoding::Utf16), pos(3, c));
    }

    #[test]
    fn combining_marks_are_separate_units() {
        let c = col_of(TEXT, 4, "target");
        let p = to_lsp(TEXT, pos(4, c), Encoding::Utf16).unwrap();
        // `name = "é"  # ` = 8 + e + U+0301 + `"  # ` (5) = 15 units
        assert_eq!(p, Position::new(3, 15));
        assert_eq!(from_lsp(TEXT, p, Encoding::Utf16), pos(4, c));
    }

    #[test]
    fn round_trips_every_char_boundary_in_every_encoding() {
        for enc in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            for (i, lt) in TEXT.split('\n').enumerate() {
                let line = i as u32 + 1;
                for (b, _) in lt.char_indices().chain([(lt.len(), ' ')]) {
                    let p = pos(line, b as u32 + 1);
                    let l = to_lsp(TEXT, p, enc).unwrap();
                    assert_eq!(from_lsp(TEXT, l, enc), p, "{enc:?} line {line} byte {b}");
                }
            }
        }
    }

    #[test]
    fn inside_a_character_clamps_backwards() {
        // Byte 2 is inside the first 😀 (bytes 0..4).
        let p = to_lsp(TEXT, pos(2, 3), Encoding::Utf16).unwrap();
        assert_eq!(p, Position::new(1, 0));
        // UTF-16 unit 1 is the low surrogate of the first 😀.
        assert_eq!(
            from_lsp(TEXT, Position::new(1, 1), Encoding::Utf16),
            pos(2, 1)
        );
        assert_eq!(
            from_lsp(TEXT, Position::new(1, 2), Encoding::Utf16),
            pos(2, 5)
        );
    }

    #[test]
    fn past_the_end_clamps_and_missing_lines_are_none() {
        assert_eq!(
            to_lsp(TEXT, pos(1, 99), Encoding::Utf16).unwrap(),
            Position::new(0, 5)
        );
        assert_eq!(
            from_lsp(TEXT, Position::new(0, 99), Encoding::Utf16),
            pos(1, 6)
        );
        assert!(to_lsp(TEXT, pos(99, 1), Encoding::Utf16).is_none());
        assert!(to_lsp(TEXT, pos(0, 1), Encoding::Utf16).is_none());
        assert_eq!(
            from_lsp(TEXT, Position::new(42, 3), Encoding::Utf16),
            pos(43, 1)
        );
    }

    #[test]
    fn negotiation_defaults_to_utf16() {
        assert_eq!(Encoding::negotiated(None), Encoding::Utf16);
        assert_eq!(
            Encoding::negotiated(Some(&PositionEncodingKind::UTF8)),
            Encoding::Utf8
        );
        assert_eq!(Encoding::offered()[0], PositionEncodingKind::UTF8);
    }
}
