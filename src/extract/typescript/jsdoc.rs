//! The names a JSDoc comment refers to, as TypeScript parses them: the
//! target of `{@link X}` / `{@linkcode X}` / `{@linkplain X}`, the name of
//! `@see X`, the class of `@extends X` / `@augments X` / `@implements {X}`,
//! and the type of `@throws {X}`, `@param {X}`, `@returns {X}`, `@type {X}`. tsserver resolves these in the scope of the comment and
//! counts them among a definition's references; text is scanned, never
//! parsed as code.

use crate::extract::typescript::{NS_ANY, NS_TYPE};

/// How a segment after the first is reached from the one before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sep {
    /// `X.y`: a member of the value or namespace (TypeScript falls back to
    /// an instance member).
    Dot,
    /// `X#y`: an instance member.
    Hash,
}

/// One segment of a referenced name: its byte offset in the comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment<'a> {
    pub offset: usize,
    pub name: &'a str,
    /// `None` for the first segment.
    pub sep: Option<Sep>,
}

/// A name a comment refers to, looked up in namespace `ns`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocName<'a> {
    pub ns: u8,
    /// `import("./m").A.B`: the module the segments are members of (each
    /// segment's `sep` is then a dot); `None` for a name in scope.
    pub module: Option<&'a str>,
    pub segments: Vec<Segment<'a>>,
}

/// Tags whose `{…}` is a type expression.
const TYPE_TAGS: &[&str] = &[
    "throws", "param", "returns", "return", "type", "typedef", "property", "prop", "this",
];

/// JavaScript's reserved words.
const RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
];

/// Every name a `/** … */` comment refers to (nothing for other comments).
pub fn names(text: &str) -> Vec<DocName<'_>> {
    let mut out = Vec::new();
    if !text.starts_with("/**") || text.starts_with("/**/") {
        return out;
    }
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find('@').map(|k| k + i) {
        let tag_end = at
            + 1
            + b[at + 1..]
                .iter()
                .take_while(|c| c.is_ascii_alphabetic())
                .count();
        let tag = &text[at + 1..tag_end];
        i = tag_end.max(at + 1);
        let in_brace = at > 0 && b[at - 1] == b'{';
        let (ns, start) = match tag {
            "link" | "linkcode" | "linkplain" if in_brace => (NS_ANY, skip_space(b, tag_end)),
            "see" if !in_brace => {
                let s = skip_space(b, tag_end);
                // `@see {@link X}` is the link's; `@see {X}` names X.
                if b.get(s) == Some(&b'{') {
                    if b.get(s + 1) == Some(&b'@') {
                        continue;
                    }
                    (NS_ANY, skip_space(b, s + 1))
                } else {
                    (NS_ANY, s)
                }
            }
            // `@extends Base`, `@augments {Base}`, `@implements {I}`: the
            // class a heritage tag names (a value or a type).
            "extends" | "augments" | "implements" if !in_brace => {
                let s = skip_space(b, tag_end);
                if b.get(s) == Some(&b'{') {
                    (NS_ANY, skip_space(b, s + 1))
                } else {
                    (NS_ANY, s)
                }
            }
            t if !in_brace && TYPE_TAGS.contains(&t) => {
                let s = skip_space(b, tag_end);
                if b.get(s) != Some(&b'{') {
                    continue;
                }
                // Every name of the type expression (`{(string|Command)}`,
                // `{Array<Foo>}`): up to the matching brace.
                let Some(end) = closing_brace(b, s) else {
                    continue;
                };
                type_names(text, s + 1, end, &mut out);
                i = end;
                continue;
            }
            _ => continue,
        };
        if let Some(name) = entity_name(text, start, ns) {
            i = i.max(
                name.segments
                    .last()
                    .map_or(start, |s| s.offset + s.name.len()),
            );
            out.push(name);
        }
    }
    out
}

/// The parameter types a `/** … */` comment declares with `@param {T}
/// name` (or `@param {T} [name]`, `{?T}`, `{!T}`, `{T=}`), where `T` is a
/// plain or dotted name or an import type (`import("./m").A`, see
/// [`simple_type`]): `(name, segments of T)`. In a JavaScript file
/// tsserver takes them as the parameters' declared types; a union, a
/// generic or a record type is left out (nothing is known then), as is a
/// property of a parameter (`@param {T} opts.x`).
pub fn param_types(text: &str) -> Vec<(&str, Vec<&str>)> {
    let mut out = Vec::new();
    if !text.starts_with("/**") {
        return out;
    }
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("@param").map(|k| k + i) {
        i = at + "@param".len();
        let Some((segments, s)) = simple_type(text, skip_space(b, i)) else {
            continue;
        };
        let mut s = s;
        if b.get(s) == Some(&b'[') {
            s += 1;
        }
        let n = ident_len(b, s);
        if n == 0 || b.get(s + n) == Some(&b'.') {
            continue;
        }
        out.push((&text[s..s + n], segments));
        i = s + n;
    }
    out
}

/// The `}` closing the `{` at `open` (nested braces of record types
/// counted), if the comment has it.
fn closing_brace(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The names a type expression between `from` and `to` refers to: in scope,
/// or members of a module (`import("./m").X`); not the text of strings, not
/// reserved words (`function(string)`), not a member reached from something
/// else, not a record type's keys (`{{a: A}}`).
fn type_names<'a>(text: &'a str, from: usize, to: usize, out: &mut Vec<DocName<'a>>) {
    let b = text.as_bytes();
    let mut i = from;
    while i < to {
        let c = b[i];
        if matches!(c, b'"' | b'\'' | b'`') {
            i += 1;
            while i < to && b[i] != c {
                i += 1;
            }
            i += 1;
            continue;
        }
        let n = ident_len(b, i);
        if n == 0 {
            i += 1;
            continue;
        }
        let prev = b[from..i].iter().rev().find(|c| !c.is_ascii_whitespace());
        if &text[i..i + n] == "import" && !matches!(prev, Some(b'.' | b'#')) {
            if let Some((module, segments, end)) = import_type(text, i) {
                if end <= to && !segments.is_empty() {
                    out.push(DocName {
                        ns: NS_TYPE,
                        module: Some(module),
                        segments,
                    });
                }
                i = end;
                continue;
            }
        }
        if matches!(prev, Some(b'.' | b'#' | b')')) || RESERVED.contains(&&text[i..i + n]) {
            i += n;
            continue;
        }
        match entity_name(text, i, NS_TYPE) {
            Some(name) => {
                let last = name.segments.last().expect("a segment");
                i = last.offset + last.name.len();
                if i <= to {
                    out.push(name);
                }
            }
            None => i += n,
        }
    }
}

/// `import("./m").A.B` at `at`: the module specifier, the members after
/// it, and the offset just past the last.
fn import_type(text: &str, at: usize) -> Option<(&str, Vec<Segment<'_>>, usize)> {
    let b = text.as_bytes();
    if !text[at..].starts_with("import") {
        return None;
    }
    let mut s = skip_space(b, at + "import".len());
    if b.get(s) != Some(&b'(') {
        return None;
    }
    s = skip_space(b, s + 1);
    let q = *b.get(s).filter(|q| matches!(q, b'"' | b'\''))?;
    let len = text[s + 1..].find(q as char)?;
    let spec = &text[s + 1..s + 1 + len];
    s = skip_space(b, s + 2 + len);
    if b.get(s) != Some(&b')') {
        return None;
    }
    s += 1;
    let mut members = Vec::new();
    while b.get(s) == Some(&b'.') {
        let n = ident_len(b, s + 1);
        if n == 0 {
            break;
        }
        members.push(Segment {
            offset: s + 1,
            name: &text[s + 1..s + 1 + n],
            sep: Some(Sep::Dot),
        });
        s += 1 + n;
    }
    Some((spec, members, s))
}

/// `@typedef {import("./m").A.B} Local` (JavaScript's way to import a
/// type): the module specifier, the members after `import(…)` and the
/// local name the typedef declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypedefImport<'a> {
    pub spec: &'a str,
    pub members: Vec<Segment<'a>>,
    pub local: &'a str,
}

pub fn typedef_imports(text: &str) -> Vec<TypedefImport<'_>> {
    let mut out = Vec::new();
    if !text.starts_with("/**") {
        return out;
    }
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("@typedef").map(|k| k + i) {
        i = at + "@typedef".len();
        let mut s = skip_space(b, i);
        if b.get(s) != Some(&b'{') {
            continue;
        }
        s = skip_space(b, s + 1);
        let Some((spec, members, end)) = import_type(text, s) else {
            continue;
        };
        s = skip_space(b, end);
        if b.get(s) != Some(&b'}') {
            continue;
        }
        s = skip_space(b, s + 1);
        let n = ident_len(b, s);
        if n == 0 {
            continue;
        }
        out.push(TypedefImport {
            spec,
            members,
            local: &text[s..s + n],
        });
        i = s + n;
    }
    out
}

/// `@import { A, B as C } from "./m"`, `@import D from "./m"` or
/// `@import * as NS from "./m"` (TypeScript 5.5's type import in JSDoc):
/// the module specifier and what it binds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportTag<'a> {
    pub spec: &'a str,
    /// `{ A, B as C }`: each imported name (a segment, a site) and the
    /// local name it binds.
    pub named: Vec<(Segment<'a>, &'a str)>,
    /// `D`: the module's default export.
    pub default: Option<&'a str>,
    /// `* as NS`: the module itself.
    pub namespace: Option<&'a str>,
}

pub fn import_tags(text: &str) -> Vec<ImportTag<'_>> {
    let mut out = Vec::new();
    if !text.starts_with("/**") {
        return out;
    }
    let b = text.as_bytes();
    // Blanks, line breaks and the `*` starting a comment line.
    let skip = |mut i: usize| {
        let mut line_start = false;
        while i < b.len() {
            match b[i] {
                b' ' | b'\t' | b'\r' => {}
                b'\n' => line_start = true,
                b'*' if line_start && b.get(i + 1) != Some(&b'/') => line_start = false,
                _ => break,
            }
            i += 1;
        }
        i
    };
    let word = |i: usize| &text[i..i + ident_len(b, i)];
    let mut i = 0;
    while let Some(at) = text[i..].find("@import").map(|k| k + i) {
        i = at + "@import".len();
        if ident_len(b, i) > 0 || b.get(i).is_some_and(|c| c.is_ascii_digit()) {
            continue;
        }
        let mut tag = ImportTag {
            spec: "",
            named: Vec::new(),
            default: None,
            namespace: None,
        };
        let mut s = skip(i);
        if b.get(s) == Some(&b'*') {
            s = skip(s + 1);
            if word(s) != "as" {
                continue;
            }
            s = skip(s + 2);
            let n = ident_len(b, s);
            if n == 0 {
                continue;
            }
            tag.namespace = Some(&text[s..s + n]);
            s = skip(s + n);
        } else {
            let n = ident_len(b, s);
            if n > 0 && word(s) != "from" {
                tag.default = Some(&text[s..s + n]);
                s = skip(s + n);
                if b.get(s) == Some(&b',') {
                    s = skip(s + 1);
                }
            }
            if b.get(s) == Some(&b'{') {
                s = skip(s + 1);
                loop {
                    let n = ident_len(b, s);
                    if n == 0 {
                        break;
                    }
                    let seg = Segment {
                        offset: s,
                        name: &text[s..s + n],
                        sep: None,
                    };
                    s = skip(s + n);
                    let mut local = seg.name;
                    if word(s) == "as" {
                        s = skip(s + 2);
                        let m = ident_len(b, s);
                        if m == 0 {
                            break;
                        }
                        local = &text[s..s + m];
                        s = skip(s + m);
                    }
                    tag.named.push((seg, local));
                    if b.get(s) == Some(&b',') {
                        s = skip(s + 1);
                    }
                }
                if b.get(s) != Some(&b'}') {
                    continue;
                }
                s = skip(s + 1);
            }
        }
        if word(s) != "from" {
            continue;
        }
        s = skip(s + 4);
        let Some(&q) = b.get(s).filter(|q| matches!(q, b'"' | b'\'')) else {
            continue;
        };
        let Some(len) = text[s + 1..].find(q as char) else {
            continue;
        };
        tag.spec = &text[s + 1..s + 1 + len];
        i = s + 1 + len;
        out.push(tag);
    }
    out
}

/// The type `@returns {T}` / `@return {T}` declares, when it is a plain or
/// dotted name (as for [`param_types`]).
pub fn return_type(text: &str) -> Option<Vec<&str>> {
    if !text.starts_with("/**") {
        return None;
    }
    let b = text.as_bytes();
    let at = text.find("@return")?;
    let mut s = at + "@return".len();
    if b.get(s) == Some(&b's') {
        s += 1;
    }
    simple_type(text, skip_space(b, s)).map(|(t, _)| t)
}

/// The type `@type {T}` declares, when it is a plain or dotted name (as
/// for [`param_types`]).
pub fn type_tag(text: &str) -> Option<Vec<&str>> {
    if !text.starts_with("/**") {
        return None;
    }
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("@type").map(|k| k + i) {
        i = at + "@type".len();
        if b.get(i).is_some_and(|c| c.is_ascii_alphabetic()) {
            continue; // @typedef
        }
        return simple_type(text, skip_space(b, i)).map(|(t, _)| t);
    }
    None
}

/// `{T}`, `{?T}`, `{!T}`, `{T=}`, `{(T|null)}`, `{T | undefined}` at `s`
/// with `T` a plain or dotted name (a member of `T | null` is `T`'s) or an
/// import type (`import("./m").A.B`: segments `import("./m")`, `A`, `B`;
/// undici types its `webidl` object so): its segments and the offset after
/// the `}`.
fn simple_type(text: &str, s: usize) -> Option<(Vec<&str>, usize)> {
    let b = text.as_bytes();
    if b.get(s) != Some(&b'{') {
        return None;
    }
    let mut s = s + 1;
    while matches!(b.get(s), Some(b'?' | b'!' | b' ' | b'(')) {
        s += 1;
    }
    let mut found: Option<Vec<&str>> = None;
    loop {
        let mut segments = Vec::new();
        // `import("./m").A.B`: the first segment is `import("./m")` (see
        // [`import_spec`]), then the members.
        if let Some((_, members, end)) = import_type(text, s) {
            let close = members.first().map_or(end, |m| m.offset - 1);
            segments.push(&text[s..close]);
            segments.extend(members.iter().map(|m| m.name));
            s = end;
        }
        while segments.is_empty() {
            let n = ident_len(b, s);
            if n == 0 {
                break;
            }
            segments.push(&text[s..s + n]);
            s += n;
            while b.get(s) == Some(&b'.') {
                let n = ident_len(b, s + 1);
                if n == 0 {
                    break;
                }
                segments.push(&text[s + 1..s + 1 + n]);
                s += 1 + n;
            }
        }
        // `T[]`: a last segment `[]` says the type is an array of `T`.
        if !segments.is_empty() && text[s..].starts_with("[]") {
            segments.push("[]");
            s += 2;
        }
        match segments.as_slice() {
            [] => return None,
            ["null" | "undefined"] => {}
            [first, ..] if RESERVED.contains(first) => return None,
            _ if found.is_some() => return None,
            _ => found = Some(segments),
        }
        s = skip_space(b, s);
        if b.get(s) != Some(&b'|') {
            break;
        }
        s = skip_space(b, s + 1);
    }
    if b.get(s) == Some(&b')') {
        s += 1;
    }
    if b.get(s) == Some(&b'=') {
        s += 1;
    }
    let s = skip_space(b, s);
    if b.get(s) != Some(&b'}') {
        return None;
    }
    Some((found?, skip_space(b, s + 1)))
}

/// The module specifier of a first segment [`simple_type`] gives for
/// `import("./m")`, if it is one.
pub fn import_spec(segment: &str) -> Option<&str> {
    let inner = segment
        .strip_prefix("import")?
        .trim_start()
        .strip_prefix('(')?;
    let inner = inner.trim().strip_suffix(')')?.trim();
    let q = inner.chars().next().filter(|q| matches!(q, '"' | '\''))?;
    inner[1..].strip_suffix(q)
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

fn ident_len(b: &[u8], i: usize) -> usize {
    let first = |c: u8| c.is_ascii_alphabetic() || c == b'_' || c == b'$';
    if i >= b.len() || !first(b[i]) {
        return 0;
    }
    1 + b[i + 1..]
        .iter()
        .take_while(|&&c| first(c) || c.is_ascii_digit())
        .count()
}

/// `A`, `A.b`, `A#b`, … at `start`. A single name followed by `:` is a URL
/// (`https://…`) or a `module:` path, not a name.
fn entity_name(text: &str, start: usize, ns: u8) -> Option<DocName<'_>> {
    let b = text.as_bytes();
    let mut segments = Vec::new();
    let mut i = start;
    let mut sep = None;
    loop {
        let n = ident_len(b, i);
        // tsserver resolves no reserved word after `#` (`{@link
        // Mutation#continue}` names only `Mutation`).
        if n == 0 || (sep == Some(Sep::Hash) && RESERVED.contains(&&text[i..i + n])) {
            break;
        }
        segments.push(Segment {
            offset: i,
            name: &text[i..i + n],
            sep,
        });
        i += n;
        sep = match b.get(i) {
            Some(b'.') => Some(Sep::Dot),
            Some(b'#') => Some(Sep::Hash),
            _ => break,
        };
        i += 1;
    }
    if segments.is_empty() || (segments.len() == 1 && b.get(i) == Some(&b':')) {
        return None;
    }
    Some(DocName {
        ns,
        module: None,
        segments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(text: &str) -> Vec<String> {
        names(text)
            .iter()
            .map(|n| {
                n.segments
                    .iter()
                    .map(|s| {
                        let sep = match s.sep {
                            None => "",
                            Some(Sep::Dot) => ".",
                            Some(Sep::Hash) => "#",
                        };
                        format!("{sep}{}@{}", s.name, s.offset)
                    })
                    .collect::<String>()
                    + if n.ns == NS_TYPE { " (type)" } else { "" }
                    + &n.module.map(|m| format!(" of {m}")).unwrap_or_default()
            })
            .collect()
    }

    #[test]
    fn links_see_and_type_tags() {
        assert_eq!(
            render("/** Like {@link Query#fetch}, see {@linkcode A.b | text}. */"),
            ["Query@16#fetch@22", "A@45.b@47"]
        );
        assert_eq!(
            render("/**\n * @see Observable\n * @see {@link of}\n * @see https://x.io\n */"),
            ["Observable@12", "of@38"]
        );
        assert_eq!(
            render("/** @throws {EmptyError} when empty\n * @param {number} n\n * @returns x */"),
            ["EmptyError@13 (type)", "number@47 (type)"]
        );
        // Not JSDoc, or not a name.
        assert!(render("/* {@link A} */").is_empty());
        assert!(render("// {@link A}").is_empty());
        assert!(render("/** {@link https://x.io} {@link module:fs} @link A */").is_empty());
        assert!(render("/** user@example.com {@link 1x} */").is_empty());
        assert_eq!(render("/** {@link Mutation#continue} */"), ["Mutation@11"]);
    }

    #[test]
    fn type_expressions_name_every_type_in_them() {
        assert_eq!(
            render("/** @returns {(Command | object)} x\n * @param {Array<ns.Foo>} a */"),
            [
                "Command@15 (type)",
                "object@25 (type)",
                "Array@47 (type)",
                "ns@53.Foo@56 (type)"
            ]
        );
        // Strings, reserved words and record keys are no names; the
        // members of an import type are the module's.
        assert_eq!(
            render(
                "/** @type {function(A): void} @typedef {{k: B}} T @typedef {import('./c').C} C */"
            ),
            ["A@20 (type)", "B@44 (type)", ".C@74 (type) of ./c"]
        );
        assert_eq!(
            render("/** @param {Map<K, import(\"./m\").A.B>} x @type {import('./n')} */"),
            ["Map@12 (type)", "K@16 (type)", ".A@33.B@35 (type) of ./m"]
        );
    }

    #[test]
    fn typedefs_import_types() {
        let text = "/**\n * @typedef { import(\"./argument.js\").Argument } Argument\n */";
        let t = typedef_imports(text);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].spec, "./argument.js");
        assert_eq!(t[0].local, "Argument");
        assert_eq!(
            t[0].members,
            [Segment {
                offset: 42,
                name: "Argument",
                sep: Some(Sep::Dot)
            }]
        );
        assert!(typedef_imports("/** @typedef {Object} Options */").is_empty());
    }

    #[test]
    fn param_tags_give_simple_types() {
        let text = "/**\n * @param {WebSocket} ws The socket\n * @param {?ns.Opts=} [opts]\n \
                    * @param {(String|Buffer)} data\n * @param {Object} opts.x\n \
                    * @param {Array<Foo>} list\n * @param cb untyped\n */";
        assert_eq!(
            param_types(text),
            [("ws", vec!["WebSocket"]), ("opts", vec!["ns", "Opts"])]
        );
        assert!(param_types("/* @param {A} a */").is_empty());
        assert_eq!(
            return_type("/** x\n * @return {Command} y */"),
            Some(vec!["Command"])
        );
        assert_eq!(return_type("/** @returns {?a.B} */"), Some(vec!["a", "B"]));
        assert_eq!(return_type("/** @returns {(A|B)} */"), None);
        assert_eq!(
            return_type("/** @return {(Command|null)} */"),
            Some(vec!["Command"])
        );
        assert_eq!(
            return_type("/** @return {Command | undefined} */"),
            Some(vec!["Command"])
        );
        assert_eq!(return_type("/** @return {undefined} */"), None);
        assert_eq!(
            type_tag("/** @type {Option[]} */"),
            Some(vec!["Option", "[]"])
        );
        assert_eq!(
            type_tag("/** @typedef {A} B\n @type {(Option | null)} */"),
            Some(vec!["Option"])
        );
        assert_eq!(type_tag("/** @typedef {A} B */"), None);
        assert_eq!(return_type("/** @returns {this} */"), None);
        // An import type: `import("…")` first, then its members.
        let t = type_tag("/** @type {import('../types/webidl').Webidl} */");
        assert_eq!(t, Some(vec!["import('../types/webidl')", "Webidl"]));
        assert_eq!(
            import_spec("import('../types/webidl')"),
            Some("../types/webidl")
        );
        assert_eq!(
            param_types("/** @param {?import(\"./h\").A.B} h */"),
            [("h", vec!["import(\"./h\")", "A", "B"])]
        );
        assert_eq!(
            type_tag("/** @type {import('crypto')} */"),
            Some(vec!["import('crypto')"])
        );
        assert_eq!(import_spec("Webidl"), None);
        assert_eq!(import_spec("import(x)"), None);
    }

    #[test]
    fn heritage_tags_name_their_class() {
        assert_eq!(
            render("/**\n * @extends Event\n * @augments {ns.Base}\n * @implements {I} */"),
            ["Event@16", "ns@36.Base@39", "I@61"]
        );
        // Only as a tag: a word `extends` in the text names nothing.
        assert!(render("/** A class that extends Event. */").is_empty());
    }

    #[test]
    fn import_tags_named_default_namespace_and_multiline() {
        let text = "/**\n * @import { A, B as C } from './m.js'\n * @import D from \"d\"\n * @import * as NS from '#ns'\n * @import {\n *   E,\n *   F\n * } from './e'\n * @imports nothing\n */";
        let tags = import_tags(text);
        type Tag<'a> = (
            &'a str,
            Vec<(&'a str, &'a str)>,
            Option<&'a str>,
            Option<&'a str>,
        );
        let got: Vec<Tag> = tags
            .iter()
            .map(|t| {
                let named = t.named.iter().map(|(s, l)| (s.name, *l)).collect();
                (t.spec, named, t.default, t.namespace)
            })
            .collect();
        assert_eq!(
            got,
            [
                ("./m.js", vec![("A", "A"), ("B", "C")], None, None),
                ("d", vec![], Some("D"), None),
                ("#ns", vec![], None, Some("NS")),
                ("./e", vec![("E", "E"), ("F", "F")], None, None),
            ]
        );
        // Each imported name is where the comment has it.
        let a = &tags[0].named[0].0;
        assert_eq!(&text[a.offset..a.offset + 1], "A");
        assert!(import_tags("/* @import { A } from './m' */").is_empty());
    }
}
