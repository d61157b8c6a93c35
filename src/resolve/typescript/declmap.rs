//! Declaration maps (`index.d.ts.map`, source map version 3): where each
//! declaration of a generated `.d.ts` was written. tsserver answers a
//! definition in such a file with the declaration it was built from
//! (svelte's bundled `types/index.d.ts` → `src/index.d.ts`), so the graph
//! links there too.

/// One decoded map: per generated line (0-based), its segments sorted by
/// generated column: (generated column, source, source line, source
/// column), all 0-based.
#[derive(Debug, Default, PartialEq)]
pub struct DeclMap {
    pub sources: Vec<String>,
    lines: Vec<Vec<Segment>>,
}

/// (generated column, source, source line, source column).
type Segment = (u32, u32, u32, u32);

impl DeclMap {
    /// The source position the generated position (0-based) was written
    /// at: the segment starting exactly there, else the last one before it
    /// on its line.
    pub fn lookup(&self, line: u32, column: u32) -> Option<(&str, u32, u32)> {
        let segs = self.lines.get(line as usize)?;
        let i = segs.partition_point(|s| s.0 <= column).checked_sub(1)?;
        let (_, src, l, c) = segs[i];
        Some((self.sources.get(src as usize)?.as_str(), l, c))
    }
}

/// Decode the JSON text of a version 3 source map. `None` for anything
/// else (an index map with `sections`, a malformed `mappings`).
pub fn decode(text: &str) -> Option<DeclMap> {
    let v: serde_json::Value = serde_json::from_str(text).ok()?;
    if v.get("version")?.as_u64()? != 3 {
        return None;
    }
    let root = v.get("sourceRoot").and_then(|r| r.as_str()).unwrap_or("");
    let sources = v
        .get("sources")?
        .as_array()?
        .iter()
        .map(|s| {
            let s = s.as_str().unwrap_or("");
            if root.is_empty() {
                s.to_string()
            } else {
                format!("{}/{s}", root.trim_end_matches('/'))
            }
        })
        .collect();
    let lines = mappings(v.get("mappings")?.as_str()?)?;
    Some(DeclMap { sources, lines })
}

/// The `mappings` string: `;` between generated lines, `,` between
/// segments, each segment's fields base64 VLQ deltas (the generated column
/// from the line's previous segment, the others from the previous segment
/// of the whole map). Segments of one field (no source) are skipped.
fn mappings(s: &str) -> Option<Vec<Vec<Segment>>> {
    let mut lines = Vec::new();
    let (mut src, mut line, mut col) = (0i64, 0i64, 0i64);
    for text in s.split(';') {
        let mut segs = Vec::new();
        let mut gen = 0i64;
        for seg in text.split(',').filter(|s| !s.is_empty()) {
            let mut fields = [0i64; 5];
            let n = vlq(seg, &mut fields)?;
            gen += fields[0];
            if n >= 4 {
                src += fields[1];
                line += fields[2];
                col += fields[3];
                if gen < 0 || src < 0 || line < 0 || col < 0 {
                    return None;
                }
                segs.push((gen as u32, src as u32, line as u32, col as u32));
            }
        }
        segs.sort_by_key(|s| s.0);
        lines.push(segs);
    }
    Some(lines)
}

/// Decode the base64 VLQ fields of one segment into `out`; how many.
fn vlq(seg: &str, out: &mut [i64; 5]) -> Option<usize> {
    let (mut n, mut value, mut shift) = (0usize, 0i64, 0u32);
    for b in seg.bytes() {
        let digit = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as i64;
        if shift > 60 {
            return None;
        }
        value += (digit & 31) << shift;
        if digit & 32 != 0 {
            shift += 5;
            continue;
        }
        if n == out.len() {
            return None;
        }
        let magnitude = value >> 1;
        out[n] = if value & 1 == 1 {
            -magnitude
        } else {
            magnitude
        };
        n += 1;
        (value, shift) = (0, 0);
    }
    (shift == 0).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vlq_fields_decode_with_signs_and_continuations() {
        let mut f = [0i64; 5];
        // A = 0, C = 1, D = -1, gB = 16 (continuation), 3H = -123.
        assert_eq!(vlq("ACDgB", &mut f), Some(4));
        assert_eq!(f[..4], [0, 1, -1, 16]);
        assert_eq!(vlq("3H", &mut f), Some(1));
        assert_eq!(f[0], -123);
        assert_eq!(vlq("g", &mut f), None, "a continuation with no end");
        assert_eq!(vlq("A!", &mut f), None);
    }

    #[test]
    fn a_map_gives_the_source_position_of_a_generated_one() {
        // Line 0: col 2 → src 0 (1, 4); col 10 → src 1 (0, 0).
        // Line 1: nothing. Line 2: col 0 → src 1 (3, 2).
        let text = r#"{ "version": 3, "file": "index.d.ts", "names": [],
            "sources": ["../src/a.d.ts", "../src/b.ts"],
            "mappings": "EACI,QCDJ;;AAGE" }"#;
        let m = decode(text).expect("a map");
        assert_eq!(m.lookup(0, 2), Some(("../src/a.d.ts", 1, 4)));
        assert_eq!(m.lookup(0, 5), Some(("../src/a.d.ts", 1, 4)));
        assert_eq!(m.lookup(0, 12), Some(("../src/b.ts", 0, 0)));
        assert_eq!(m.lookup(0, 1), None);
        assert_eq!(m.lookup(1, 0), None);
        assert_eq!(m.lookup(2, 7), Some(("../src/b.ts", 3, 2)));
        assert!(decode(r#"{ "version": 2, "sources": [], "mappings": "" }"#).is_none());
    }
}
