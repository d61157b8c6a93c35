//! Module answers: tsserver answers a module specifier (`from './types'`)
//! with the source file, positioned where the file's first token stands
//! (TypeScript's `SourceFile.getStart()` skips leading comments), while
//! the graph names a module at 1:1. An answer at a script file's first
//! token names its module: no declaration's name is ever a file's first
//! token (a keyword or `export` comes first).

use std::collections::HashMap;
use std::path::Path;

use crate::extract::{Family, Lang};
use crate::graph::Pos;

/// Where the first token of a script file stands: after a `#!` line,
/// whitespace (a byte-order mark too) and comments.
pub fn first_token(text: &str) -> Pos {
    let b = text.as_bytes();
    let mut i = 0;
    if text.starts_with("#!") {
        i = text.find('\n').unwrap_or(b.len());
    }
    loop {
        if text[i..].starts_with('\u{feff}') {
            i += '\u{feff}'.len_utf8();
        } else if i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("//") {
            i += text[i..].find('\n').unwrap_or(b.len() - i);
        } else if text[i..].starts_with("/*") {
            i += text[i + 2..].find("*/").map_or(b.len() - i, |k| k + 4);
        } else {
            break;
        }
    }
    let before = &text[..i];
    let line = before.matches('\n').count() as u32 + 1;
    let column = (i - before.rfind('\n').map_or(0, |nl| nl + 1)) as u32 + 1;
    Pos { line, column }
}

/// First-token positions of the script files answers land in, read once.
pub struct ModuleStarts<'a> {
    root: &'a Path,
    starts: HashMap<String, Option<Pos>>,
}

impl<'a> ModuleStarts<'a> {
    pub fn new(root: &'a Path) -> ModuleStarts<'a> {
        ModuleStarts {
            root,
            starts: HashMap::new(),
        }
    }

    /// 1:1 for an answer at the first token of a script file after
    /// leading comments, `at` otherwise.
    pub fn module_at(&mut self, path: &str, at: Pos) -> Pos {
        let one = Pos { line: 1, column: 1 };
        if at == one || Lang::of_path(path).map(Lang::family) != Some(Family::Script) {
            return at;
        }
        let root = self.root;
        let start = *self.starts.entry(path.to_string()).or_insert_with(|| {
            std::fs::read_to_string(root.join(path))
                .ok()
                .map(|t| first_token(&t))
        });
        if start == Some(at) {
            one
        } else {
            at
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, column: u32) -> Pos {
        Pos { line, column }
    }

    #[test]
    fn first_token_skips_comments_whitespace_and_shebang() {
        assert_eq!(first_token("import x from 'y'\n"), pos(1, 1));
        assert_eq!(
            first_token("/**\n * doc\n */\n// @trpc/server\n\n  import type { A } from './a';\n"),
            pos(6, 3)
        );
        assert_eq!(
            first_token("#!/usr/bin/env node\n/* a */ /* b */ export {}\n"),
            pos(2, 17)
        );
        assert_eq!(first_token("\u{feff}export {}"), pos(1, 4));
        assert_eq!(first_token("// only a comment"), pos(1, 18));
    }

    #[test]
    fn an_answer_at_a_script_files_first_token_is_its_module() {
        let dir =
            std::env::temp_dir().join(format!("refgraph-module-start-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("types.ts"),
            "// header\nexport interface A { a: 1 }\n",
        )
        .unwrap();
        std::fs::write(dir.join("m.py"), "# header\nimport os\n").unwrap();
        let mut m = ModuleStarts::new(&dir);
        assert_eq!(m.module_at("types.ts", pos(2, 1)), pos(1, 1));
        // The interface's name is a definition, not the module.
        assert_eq!(m.module_at("types.ts", pos(2, 18)), pos(2, 18));
        assert_eq!(m.module_at("m.py", pos(2, 1)), pos(2, 1));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
