//! `blast_radius`: map a change to the symbols it touches, then walk to
//! everything that depends on them, the tests that reach them, and what
//! no test reaches — ranked by risk.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::Path;
use std::process::Command;

use super::{QueryError, Session};
use crate::api::{BlastRadius, ChangedSymbol, ImpactedSymbol, Symbol};
use crate::graph::{EdgeKind, NodeKind, Status};
use crate::store::NodeRow;

/// What to compare.
#[derive(Clone, Debug)]
pub enum ChangeSpec {
    /// The working tree against `HEAD` (staged and unstaged).
    WorkingTree,
    /// The index against `HEAD`.
    Staged,
    /// One commit against its first parent.
    Commit(String),
    /// `A..B` (or `A...B`: from the merge base).
    Range(String),
    /// A unified diff, as text.
    Diff(String),
}

/// Edge kinds along which a change propagates to dependents.
const IMPACT_KINDS: [EdgeKind; 5] = [
    EdgeKind::Calls,
    EdgeKind::References,
    EdgeKind::Imports,
    EdgeKind::Extends,
    EdgeKind::Implements,
];

/// Hunks of one file: changed line numbers on the new side, and removed
/// lines on the old side.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileDiff {
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    /// New-side line numbers that were added or modified.
    pub added: BTreeSet<u32>,
    /// New-side positions where lines were removed (the line after the gap).
    pub removed_at: BTreeSet<u32>,
    /// Text of removed lines.
    pub removed_text: Vec<String>,
}

/// Parse a unified diff (as `git diff` writes it). Errors name the line.
pub fn parse_diff(text: &str) -> Result<Vec<FileDiff>, String> {
    let mut files: Vec<FileDiff> = Vec::new();
    let mut new_line = 0u32;
    let mut in_hunk = false;
    let mut old_left = 0u32;
    let mut new_left = 0u32;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.starts_with("diff --git ") {
            files.push(FileDiff::default());
            in_hunk = false;
            continue;
        }
        if in_hunk && (old_left > 0 || new_left > 0) {
            let f = files.last_mut().expect("in a file");
            match line.as_bytes().first() {
                Some(b'+') => {
                    f.added.insert(new_line);
                    new_line += 1;
                    new_left = new_left.saturating_sub(1);
                }
                Some(b'-') => {
                    f.removed_at.insert(new_line);
                    f.removed_text.push(line[1..].to_string());
                    old_left = old_left.saturating_sub(1);
                }
                Some(b' ') | None => {
                    new_line += 1;
                    old_left = old_left.saturating_sub(1);
                    new_left = new_left.saturating_sub(1);
                }
                Some(b'\\') => {}
                _ => return Err(format!("line {n}: unexpected line inside a hunk: {line:?}")),
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("--- ") {
            if files
                .last()
                .is_none_or(|f| f.old_path.is_some() || f.new_path.is_some())
            {
                files.push(FileDiff::default());
            }
            files.last_mut().expect("a file").old_path = diff_path(rest, "a/");
            in_hunk = false;
        } else if let Some(rest) = line.strip_prefix("+++ ") {
            let f = files
                .last_mut()
                .ok_or_else(|| format!("line {n}: `+++` without a preceding `---`"))?;
            f.new_path = diff_path(rest, "b/");
        } else if let Some(rest) = line.strip_prefix("@@ ") {
            if files
                .last()
                .is_none_or(|f| f.new_path.is_none() && f.old_path.is_none())
            {
                return Err(format!("line {n}: hunk header before any file header"));
            }
            let (old, new) = parse_hunk_header(rest)
                .ok_or_else(|| format!("line {n}: malformed hunk header {line:?}"))?;
            new_line = new.0;
            new_left = new.1;
            old_left = old.1;
            // A pure deletion at new line 0 means "before line 1".
            if new.1 == 0 {
                new_line = new.0 + 1;
            }
            in_hunk = true;
        }
    }
    files.retain(|f| f.old_path.is_some() || f.new_path.is_some());
    Ok(files)
}

fn diff_path(s: &str, prefix: &str) -> Option<String> {
    let s = s.split('\t').next().unwrap_or(s).trim();
    if s == "/dev/null" {
        return None;
    }
    Some(s.strip_prefix(prefix).unwrap_or(s).to_string())
}

/// `-a,b +c,d @@ …` → ((a, b), (c, d)); counts default to 1.
fn parse_hunk_header(s: &str) -> Option<((u32, u32), (u32, u32))> {
    let mut parts = s.split_whitespace();
    let old = parts.next()?.strip_prefix('-')?;
    let new = parts.next()?.strip_prefix('+')?;
    let range = |r: &str| -> Option<(u32, u32)> {
        match r.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    Some((range(old)?, range(new)?))
}

/// A revision argument: a commit id, `HEAD` with `~N`/`^`, or a ref name.
/// Checked before git sees it; never starts with `-` (no option injection).
pub fn validate_rev(rev: &str) -> Result<(), String> {
    let ok = !rev.is_empty()
        && !rev.starts_with('-')
        && rev.len() <= 256
        && !rev.contains("..")
        && rev.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '~' | '^' | '@')
        });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "invalid revision `{rev}`: expected a commit id, HEAD~N, or a branch or tag name"
        ))
    }
}

fn git(root: &Path, args: &[&str]) -> Result<String, QueryError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .map_err(|e| QueryError::BadInput(format!("cannot run git: {e}")))?;
    if !out.status.success() {
        return Err(QueryError::BadInput(format!(
            "git {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn verify_commit(root: &Path, rev: &str) -> Result<(), QueryError> {
    validate_rev(rev).map_err(QueryError::BadInput)?;
    let spec = format!("{rev}^{{commit}}");
    git(root, &["rev-parse", "--verify", "--quiet", &spec]).map_err(|_| {
        QueryError::BadInput(format!("unknown commit `{rev}` in {}", root.display()))
    })?;
    Ok(())
}

/// The diff text and a description of a change.
fn diff_text(root: &Path, spec: &ChangeSpec) -> Result<(String, String), QueryError> {
    let is_git = crate::git::find_root(root).is_some();
    let need_git = |what: &str| {
        QueryError::BadInput(format!(
            "{what} needs a git repository, and {} is not in one; pass a unified diff with --diff instead",
            root.display()
        ))
    };
    // `--relative`: paths relative to the repository root given to refgraph,
    // which may be a folder inside the git work tree.
    const DIFF: [&str; 5] = ["diff", "--no-color", "--no-ext-diff", "--relative", "-U0"];
    match spec {
        ChangeSpec::Diff(text) => Ok((text.clone(), "diff".into())),
        ChangeSpec::WorkingTree => {
            if !is_git {
                return Err(need_git("the working-tree change"));
            }
            let mut args = DIFF.to_vec();
            args.push("HEAD");
            Ok((git(root, &args)?, "working tree vs HEAD".into()))
        }
        ChangeSpec::Staged => {
            if !is_git {
                return Err(need_git("--staged"));
            }
            let mut args = DIFF.to_vec();
            args.push("--cached");
            Ok((git(root, &args)?, "staged vs HEAD".into()))
        }
        ChangeSpec::Commit(c) => {
            if !is_git {
                return Err(need_git("--commit"));
            }
            verify_commit(root, c)?;
            let args = [
                "show",
                "--no-color",
                "--no-ext-diff",
                "-U0",
                "--format=",
                "--first-parent",
                c.as_str(),
            ];
            Ok((git(root, &args)?, format!("commit {c}")))
        }
        ChangeSpec::Range(r) => {
            if !is_git {
                return Err(need_git("--range"));
            }
            let (a, b, three) = if let Some((a, b)) = r.split_once("...") {
                (a, b, true)
            } else if let Some((a, b)) = r.split_once("..") {
                (a, b, false)
            } else {
                return Err(QueryError::BadInput(format!(
                    "invalid range `{r}`: expected A..B or A...B"
                )));
            };
            let b = if b.is_empty() { "HEAD" } else { b };
            verify_commit(root, a)?;
            verify_commit(root, b)?;
            let spec = if three {
                format!("{a}...{b}")
            } else {
                format!("{a}..{b}")
            };
            let mut args = DIFF.to_vec();
            args.push(&spec);
            Ok((git(root, &args)?, format!("range {r}")))
        }
    }
}

/// Names defined by removed lines (`def f`, `class C`, `fn f`, `function f`, …).
fn defined_names(lines: &[String]) -> BTreeSet<String> {
    const KEYWORDS: [&str; 8] = [
        "def",
        "class",
        "fn",
        "function",
        "struct",
        "enum",
        "trait",
        "interface",
    ];
    let mut out = BTreeSet::new();
    for l in lines {
        let words: Vec<&str> = l
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .filter(|w| !w.is_empty())
            .collect();
        for w in words.windows(2) {
            if KEYWORDS.contains(&w[0]) {
                out.insert(w[1].to_string());
            }
        }
    }
    out
}

impl Session {
    /// `blast_radius`.
    pub fn blast_radius(
        &self,
        spec: &ChangeSpec,
        depth: u32,
        min_confidence: Option<f64>,
        limit: usize,
    ) -> Result<BlastRadius, QueryError> {
        let (text, change) = diff_text(&self.root, spec)?;
        let diffs =
            parse_diff(&text).map_err(|e| QueryError::BadInput(format!("malformed diff: {e}")))?;
        let min = min_confidence.unwrap_or(super::DEFAULT_MIN_CONFIDENCE);

        // 1. Changed symbols.
        let mut changed: BTreeMap<i64, (NodeRow, &'static str)> = BTreeMap::new();
        let mut deleted: Vec<ChangedSymbol> = Vec::new();
        let mut deleted_names: Vec<(String, String)> = Vec::new();
        for d in &diffs {
            let new_nodes = match &d.new_path {
                Some(p) => self.store.nodes_of_file(p)?.unwrap_or_default(),
                None => Vec::new(),
            };
            let touched: BTreeSet<u32> = d.added.iter().chain(&d.removed_at).copied().collect();
            for line in &touched {
                // The innermost definition containing the line.
                let inner = new_nodes
                    .iter()
                    .filter(|n| n.start_line <= *line && *line <= n.end_line)
                    .min_by_key(|n| (n.end_line - n.start_line, std::cmp::Reverse(n.start_line)));
                if let Some(n) = inner {
                    let all_added = (n.start_line..=n.end_line).all(|l| d.added.contains(&l));
                    let kind = if all_added { "added" } else { "modified" };
                    changed.entry(n.id).or_insert((n.clone(), kind));
                }
            }
            let remaining: HashSet<&str> = new_nodes.iter().map(|n| n.name.as_str()).collect();
            let old = d
                .old_path
                .clone()
                .or(d.new_path.clone())
                .unwrap_or_default();
            for name in defined_names(&d.removed_text) {
                if !remaining.contains(name.as_str()) {
                    deleted.push(ChangedSymbol {
                        symbol: Symbol {
                            key: format!("{old}:{name}"),
                            name: name.clone(),
                            kind: "deleted".into(),
                            file: old.clone(),
                            line: 0,
                            column: 0,
                            end_line: 0,
                        },
                        change: "deleted".into(),
                    });
                    deleted_names.push((old.clone(), name));
                }
            }
        }

        // 2. Everything that depends on them, breadth-first.
        let mut cache = HashMap::new();
        let mut info: HashMap<i64, (u32, f64, Status)> = HashMap::new();
        let mut fan_in: HashMap<i64, usize> = HashMap::new();
        let mut queue: VecDeque<i64> = VecDeque::new();
        for id in changed.keys() {
            info.insert(*id, (0, 1.0, Status::Verified));
            queue.push_back(*id);
        }
        // A deleted symbol's former users are the files that still name it.
        for (_, name) in &deleted_names {
            for path in self.store.files_with_ref_name(name)? {
                if let Some(m) = self.store.module_node(&path)? {
                    info.entry(m).or_insert((1, 0.5, Status::Inferred));
                }
            }
        }
        let mut left_out = 0usize;
        while let Some(id) = queue.pop_front() {
            let (d, conf, status) = info[&id];
            let links = self.store.links_to(id)?;
            fan_in.insert(
                id,
                links
                    .iter()
                    .filter(|l| IMPACT_KINDS.contains(&l.kind))
                    .count(),
            );
            if d >= depth {
                continue;
            }
            for l in links {
                if !IMPACT_KINDS.contains(&l.kind) {
                    continue;
                }
                if l.confidence < min {
                    left_out += 1;
                    continue;
                }
                if info.contains_key(&l.src) {
                    continue;
                }
                info.insert(l.src, (d + 1, conf.min(l.confidence), status.max(l.status)));
                queue.push_back(l.src);
            }
        }

        // 3. Tests in the impacted set, and what they reach within it.
        let mut tests: Vec<Symbol> = Vec::new();
        let mut tested: HashSet<i64> = HashSet::new();
        let ids: Vec<i64> = info.keys().copied().collect();
        let mut nodes: HashMap<i64, NodeRow> = HashMap::new();
        for id in &ids {
            if let Some(n) = self.node_cached(&mut cache, *id)? {
                nodes.insert(*id, n);
            }
        }
        let test_ids: Vec<i64> = ids
            .iter()
            .copied()
            .filter(|id| nodes.get(id).is_some_and(|n| n.kind == NodeKind::Test))
            .collect();
        let mut stack = test_ids.clone();
        while let Some(id) = stack.pop() {
            for l in self.store.links_from(id)? {
                if IMPACT_KINDS.contains(&l.kind)
                    && l.confidence >= min
                    && info.contains_key(&l.dst)
                    && tested.insert(l.dst)
                {
                    stack.push(l.dst);
                }
            }
        }
        for id in &test_ids {
            tests.push(Symbol::from(&nodes[id]));
        }
        tests.sort();

        // 4. Rank. Changed symbols are listed in `changed`, not again as
        // impacted; test files' modules are where tests live, not impact.
        let is_code = |n: &NodeRow| {
            matches!(
                n.kind,
                NodeKind::Function | NodeKind::Method | NodeKind::Class
            )
        };
        let mut untested: Vec<String> = info
            .keys()
            .filter_map(|id| nodes.get(id))
            .filter(|n| is_code(n) && !tested.contains(&n.id))
            .map(|n| n.key.clone())
            .collect();
        untested.sort();
        untested.dedup();
        let mut impacted: Vec<ImpactedSymbol> = info
            .iter()
            .filter(|(id, (d, _, _))| *d > 0 && !changed.contains_key(id))
            .filter_map(|(id, v)| Some((id, v, nodes.get(id)?)))
            .filter(|(_, _, n)| {
                n.kind != NodeKind::Test
                    && !(n.kind == NodeKind::Module && super::analysis::is_test_path(&n.file))
            })
            .map(|(id, (d, conf, status), n)| {
                let is_tested = tested.contains(id);
                let policy = self.threshold(None, &n.file) > super::DEFAULT_MIN_CONFIDENCE;
                let fan = *fan_in.get(id).unwrap_or(&0) as f64;
                let risk = (1.0 + (1.0 + fan).ln())
                    * if is_tested || !is_code(n) { 1.0 } else { 2.0 }
                    * if policy { 2.0 } else { 1.0 }
                    / (1.0 + 0.25 * f64::from(*d));
                ImpactedSymbol {
                    symbol: Symbol::from(n),
                    depth: *d,
                    confidence: *conf,
                    status: status.as_str().to_string(),
                    tested: is_tested,
                    risk: (risk * 100.0).round() / 100.0,
                }
            })
            .collect();
        impacted.sort_by(|a, b| {
            b.risk
                .total_cmp(&a.risk)
                .then_with(|| a.symbol.cmp(&b.symbol))
        });
        let below = impacted.iter().filter(|i| i.confidence < min).count();
        let mut changed_out: Vec<ChangedSymbol> = changed
            .values()
            .map(|(n, c)| ChangedSymbol {
                symbol: Symbol::from(n),
                change: (*c).to_string(),
            })
            .collect();
        changed_out.extend(deleted);
        changed_out.sort_by(|a, b| a.symbol.cmp(&b.symbol));
        let total = impacted.len();
        impacted.truncate(limit);
        Ok(BlastRadius {
            change,
            changed: changed_out,
            shown: impacted.len(),
            truncated: total > impacted.len(),
            total,
            impacted,
            tests,
            untested,
            edges_left_out: left_out,
            index: self.index.clone(),
            verification: self.verification(Some(min), None, below),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "diff --git a/shop/pay.py b/shop/pay.py
index 1..2 100644
--- a/shop/pay.py
+++ b/shop/pay.py
@@ -3,2 +3,3 @@ def charge():
-    return 1
-def refund(x):
+    return 2
+    # more
+    # lines
@@ -10,0 +12,2 @@
+def new_one():
+    pass
diff --git a/gone.py b/gone.py
deleted file mode 100644
--- a/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-class Gone:
-    pass
";

    #[test]
    fn unified_diffs_parse() {
        let files = parse_diff(DIFF).unwrap();
        assert_eq!(files.len(), 2);
        let f = &files[0];
        assert_eq!(f.new_path.as_deref(), Some("shop/pay.py"));
        assert_eq!(
            f.added.iter().copied().collect::<Vec<_>>(),
            vec![3, 4, 5, 12, 13]
        );
        assert_eq!(
            defined_names(&f.removed_text),
            BTreeSet::from(["refund".to_string()])
        );
        assert_eq!(files[1].new_path, None);
        assert_eq!(files[1].old_path.as_deref(), Some("gone.py"));
        assert_eq!(
            defined_names(&files[1].removed_text),
            BTreeSet::from(["Gone".to_string()])
        );
    }

    #[test]
    fn malformed_diffs_name_the_line() {
        let e = parse_diff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n?what\n").unwrap_err();
        assert!(e.starts_with("line 4"), "{e}");
        let e = parse_diff("@@ -1 +1 @@\n").unwrap_err();
        assert!(e.contains("before any file header"), "{e}");
        let e = parse_diff("--- a/x\n+++ b/x\n@@ -x +1 @@\n").unwrap_err();
        assert!(e.contains("malformed hunk header"), "{e}");
    }

    #[test]
    fn revisions_are_validated_before_git() {
        assert!(validate_rev("HEAD~2").is_ok());
        assert!(validate_rev("0123abcd").is_ok());
        assert!(validate_rev("feature/x").is_ok());
        assert!(validate_rev("--output=/tmp/x").is_err());
        assert!(validate_rev("a;rm -rf /").is_err());
        assert!(validate_rev("a..b").is_err());
        assert!(validate_rev("").is_err());
    }
}
