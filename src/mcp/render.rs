//! Compact text renderings of answers for the model: one line per item,
//! keys first, then `file:line`, then confidence. The structured content
//! carries every field; this text is what a model reads at a glance.

use std::fmt::Write;

use crate::api::{
    Analysis, BlastRadius, CallsResult, Communities, Cycle, DeadItem, DependentsResult, FindResult,
    IndexInfo, IndexStatus, Overview, RefsResult, ScoredSymbol, Symbol, Verification,
    VerifyEdgesResult,
};
use crate::query::QueryError;

/// The text of a tool result and whether it is an error result.
pub struct Reply {
    pub text: String,
    pub is_error: bool,
}

impl Reply {
    fn ok(text: String) -> Reply {
        Reply {
            text,
            is_error: false,
        }
    }
}

/// A query failure as a message the model can act on.
pub fn query_error(e: &QueryError) -> String {
    match e {
        QueryError::UnknownSymbol { .. } => {
            format!("{e}. Use find_symbol to search by words of the name.")
        }
        QueryError::FileNotIndexed(_) => {
            format!(
                "{e}. Paths are relative to the repository root; index_status lists skipped files."
            )
        }
        _ => e.to_string(),
    }
}

fn footer(out: &mut String, shown: usize, total: usize, index: &IndexInfo) {
    if shown < total {
        let _ = writeln!(out, "(showing {shown} of {total}; raise `limit` for more)");
    }
    if index.reindexed > 0 {
        let _ = writeln!(out, "(re-indexed {} changed files first)", index.reindexed);
    }
}

fn verification(out: &mut String, v: &Verification) {
    if let Some(h) = &v.hint {
        let _ = writeln!(out, "note: {h}");
    }
}

fn label(confidence: f64, min: f64) -> &'static str {
    if confidence < min {
        " (inferred)"
    } else {
        ""
    }
}

fn symbol_line(s: &Symbol) -> String {
    format!("{} {}  {}:{}", s.kind, s.key, s.file, s.line)
}

fn ambiguous(query_kind: &str, candidates: &[Symbol]) -> Reply {
    let mut t = format!(
        "the {query_kind} is ambiguous ({} definitions); call again with one of these keys as `symbol`:\n",
        candidates.len()
    );
    for s in candidates {
        let _ = writeln!(t, "  {}", symbol_line(s));
    }
    Reply {
        text: t,
        is_error: true,
    }
}

pub fn find(r: &FindResult) -> Reply {
    let mut t = String::new();
    if r.results.is_empty() {
        let _ = writeln!(t, "no symbol matches `{}`", r.query);
    }
    for s in &r.results {
        let _ = writeln!(t, "{}:{}", symbol_line(s), s.column);
    }
    footer(&mut t, r.shown, r.total, &r.index);
    Reply::ok(t)
}

pub fn overview(r: &Overview) -> Reply {
    let mut t = format!("{}\n", r.file);
    if r.results.is_empty() {
        let _ = writeln!(t, "  no definitions");
    }
    for item in &r.results {
        let s = &item.symbol;
        let _ = writeln!(
            t,
            "{:indent$}{} {}  {}-{}",
            "",
            s.kind,
            s.name,
            s.line,
            s.end_line,
            indent = 2 + 2 * item.depth as usize
        );
    }
    footer(&mut t, r.shown, r.total, &r.index);
    Reply::ok(t)
}

pub fn refs(r: &RefsResult) -> Reply {
    if let Some(c) = &r.candidates {
        return ambiguous("symbol name", c);
    }
    let mut t = String::new();
    if let Some(s) = &r.symbol {
        let _ = writeln!(t, "{}", symbol_line(s));
    }
    for i in &r.results {
        let note = i
            .note
            .as_deref()
            .map(|n| format!(" [{n}]"))
            .unwrap_or_default();
        let _ = writeln!(
            t,
            "  {}:{}:{} {} in {}  {} {:.2}{}{note}",
            i.file,
            i.line,
            i.column,
            i.kind,
            i.referrer.key,
            i.status,
            i.confidence,
            label(i.confidence, r.verification.min_confidence)
        );
    }
    if r.results.is_empty() {
        let _ = writeln!(t, "  no references in the repository");
    }
    footer(&mut t, r.shown, r.total, &r.index);
    verification(&mut t, &r.verification);
    Reply::ok(t)
}

pub fn calls(r: &CallsResult) -> Reply {
    if let Some(c) = &r.candidates {
        return ambiguous("symbol name", c);
    }
    let mut t = String::new();
    if let Some(s) = &r.symbol {
        let _ = writeln!(t, "{}", symbol_line(s));
    }
    for i in &r.results {
        let _ = writeln!(
            t,
            "{:indent$}{}  {} {:.2}{}",
            "",
            symbol_line(&i.symbol),
            i.status,
            i.confidence,
            label(i.confidence, r.verification.min_confidence),
            indent = 2 * i.depth as usize
        );
    }
    if r.results.is_empty() {
        let _ = writeln!(t, "  none");
    }
    footer(&mut t, r.shown, r.total, &r.index);
    verification(&mut t, &r.verification);
    Reply::ok(t)
}

pub fn dependents(r: &DependentsResult) -> Reply {
    let mut t = format!("{}\n", r.file);
    for d in &r.results {
        let _ = writeln!(
            t,
            "  {}  {} sites  {} {:.2}{}",
            d.file,
            d.sites,
            d.status,
            d.confidence,
            label(d.confidence, r.verification.min_confidence)
        );
    }
    if r.results.is_empty() {
        let _ = writeln!(t, "  no dependents");
    }
    footer(&mut t, r.shown, r.total, &r.index);
    verification(&mut t, &r.verification);
    Reply::ok(t)
}

pub fn blast(r: &BlastRadius) -> Reply {
    let mut t = format!("blast radius of {}\n", r.change);
    let _ = writeln!(t, "changed ({}):", r.changed.len());
    for c in r.changed.iter().take(20) {
        let _ = writeln!(t, "  {} {}", c.change, symbol_line(&c.symbol));
    }
    if r.changed.len() > 20 {
        let _ = writeln!(t, "  … and {} more", r.changed.len() - 20);
    }
    let _ = writeln!(t, "impacted ({} of {}, by risk):", r.shown, r.total);
    for i in &r.impacted {
        let _ = writeln!(
            t,
            "  {:.2} d{} {}{}  {}:{}  {} {:.2}",
            i.risk,
            i.depth,
            i.symbol.key,
            if i.tested { "" } else { " UNTESTED" },
            i.symbol.file,
            i.symbol.line,
            i.status,
            i.confidence
        );
    }
    let _ = writeln!(t, "tests reaching the change ({}):", r.tests.len());
    for s in r.tests.iter().take(10) {
        let _ = writeln!(t, "  {}", s.key);
    }
    if r.tests.len() > 10 {
        let _ = writeln!(t, "  … and {} more", r.tests.len() - 10);
    }
    let _ = writeln!(t, "untested impact: {} symbols", r.untested.len());
    for u in r.untested.iter().take(10) {
        let _ = writeln!(t, "  {u}");
    }
    if r.untested.len() > 10 {
        let _ = writeln!(
            t,
            "  … and {} more (all in the structured content)",
            r.untested.len() - 10
        );
    }
    if r.edges_left_out > 0 {
        let _ = writeln!(
            t,
            "({} edges below min_confidence {} not followed)",
            r.edges_left_out, r.verification.min_confidence
        );
    }
    if r.index.reindexed > 0 {
        let _ = writeln!(t, "(re-indexed {} changed files first)", r.index.reindexed);
    }
    verification(&mut t, &r.verification);
    Reply::ok(t)
}

fn analysis<T>(r: &Analysis<T>, line: impl Fn(&T) -> String) -> Reply {
    let mut t = String::new();
    for item in &r.results {
        let _ = writeln!(t, "{}", line(item));
    }
    if r.results.is_empty() {
        let _ = writeln!(t, "none");
    }
    footer(&mut t, r.shown, r.total, &r.index);
    if r.edges_left_out > 0 {
        let _ = writeln!(
            t,
            "({} edges below min_confidence {} not counted)",
            r.edges_left_out, r.min_confidence
        );
    }
    if let Some(k) = r.sampled {
        let _ = writeln!(t, "(approximated from {k} sampled sources)");
    }
    Reply::ok(t)
}

pub fn untested(r: &Analysis<Symbol>) -> Reply {
    analysis(r, symbol_line)
}

pub fn hubs(r: &Analysis<ScoredSymbol>) -> Reply {
    analysis(r, |s| {
        format!(
            "{} (in {}, out {})  {}:{}",
            s.symbol.key,
            s.fan_in.unwrap_or(0),
            s.fan_out.unwrap_or(0),
            s.symbol.file,
            s.symbol.line
        )
    })
}

pub fn bridges(r: &Analysis<ScoredSymbol>) -> Reply {
    analysis(r, |s| {
        format!(
            "{:.1} {}  {}:{}",
            s.score, s.symbol.key, s.symbol.file, s.symbol.line
        )
    })
}

pub fn cycles(r: &Analysis<Cycle>) -> Reply {
    analysis(r, |c| format!("{}: {}", c.size, c.members.join(" -> ")))
}

pub fn dead_code(r: &Analysis<DeadItem>) -> Reply {
    analysis(r, |d| {
        format!("{} {}  ({})", d.verdict, symbol_line(&d.symbol), d.reason)
    })
}

pub fn communities(r: &Communities) -> Reply {
    let mut t = format!("{} communities, modularity {:.3}\n", r.total, r.modularity);
    for c in &r.results {
        let _ = writeln!(t, "#{} ({} symbols): {}", c.id, c.size, c.top.join(", "));
        let _ = writeln!(t, "  files: {}", c.files.join(", "));
    }
    for x in r.crossing.iter().take(10) {
        let _ = writeln!(t, "#{} -> #{}: {} edges", x.from, x.to, x.edges);
    }
    footer(&mut t, r.shown, r.total, &r.index);
    if r.edges_left_out > 0 {
        let _ = writeln!(
            t,
            "({} edges below min_confidence {} not counted)",
            r.edges_left_out, r.min_confidence
        );
    }
    Reply::ok(t)
}

pub fn status(s: &IndexStatus) -> Reply {
    let join = |m: &std::collections::BTreeMap<String, u64>| {
        m.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut t = format!("repository {}\n", s.root);
    let files: u64 = s.files.values().sum();
    let _ = writeln!(t, "files {files} ({})", join(&s.files));
    let nodes: u64 = s.nodes.values().sum();
    let _ = writeln!(t, "nodes {nodes} ({})", join(&s.nodes));
    let edges: u64 = s.edges.values().flat_map(|m| m.values()).sum();
    let _ = writeln!(t, "edges {edges}");
    for (kind, by_status) in &s.edges {
        let _ = writeln!(t, "  {kind}: {}", join(by_status));
    }
    let _ = writeln!(t, "unresolved sites {}", s.unresolved);
    let _ = writeln!(t, "diagnostics {}", s.diagnostics);
    if !s.skipped.is_empty() {
        let _ = writeln!(t, "skipped {} files", s.skipped.len());
        for f in s.skipped.iter().take(20) {
            let _ = writeln!(t, "  {} — {} ({})", f.path, f.reason, f.detail);
        }
    }
    let _ = writeln!(t, "pending {} files", s.pending);
    let _ = writeln!(
        t,
        "fresh {}, re-indexed {} files, head {}",
        s.index.fresh,
        s.index.reindexed,
        s.index.head.as_deref().unwrap_or("(not a git work tree)")
    );
    if let Some(b) = &s.background {
        let _ = writeln!(
            t,
            "background verification: {} sites queued, {} being verified; so far {} answered, {} unanswered, {} left by the budget",
            b.queued, b.verifying, b.checked, b.unanswered, b.unchecked
        );
        if let Some(e) = &b.error {
            let _ = writeln!(t, "  last error: {e}");
        }
    }
    Reply::ok(t)
}

pub fn verify(r: &VerifyEdgesResult) -> Reply {
    let mut text = Vec::new();
    let _ = crate::cli::render_verify(&mut text, &r.report);
    let mut t = String::from_utf8_lossy(&text).into_owned();
    if r.queued > 0 {
        let _ = writeln!(
            t,
            "{} sites the budget left are being verified in the background; index_status shows progress",
            r.queued
        );
    }
    Reply::ok(t)
}
