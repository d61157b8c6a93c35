//! Verification through language servers (DESIGN §4): ask the server what
//! each guessed site refers to, record the answer with both files' hashes,
//! and let re-resolution apply it (see `index::apply_verdicts`), so a cached
//! answer is re-applied after every re-index until either file changes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};

use crate::api::{LangVerification, VerifyResult};
use crate::extract::Lang;
use crate::graph::{EdgeKind, Pos};
use crate::lsp::{LspConfig, LspError, Pool, ServerState};
use crate::query::{QueryError, Session};
use crate::store::{DiscoveredRow, Outcome, VerdictRow};

/// How much verifying to do.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Check edges below this confidence (1.0: every unverified edge).
    pub min_confidence: f64,
    /// Stop sending new requests after this long.
    pub budget: Duration,
    /// Requests in flight per server.
    pub concurrency: usize,
    /// Also ask `textDocument/references` on the targets to find missed sites.
    pub discover: bool,
    /// Only sites in files under these repository-relative paths (all when empty).
    pub paths: Vec<String>,
    /// Only these sites (`path`, line, column), e.g. the ones a query returned.
    pub sites: Option<BTreeSet<(String, u32, u32)>>,
    /// Definitions (`path`, name position) whose references are asked for
    /// in any case (the symbol of a strict `refs` query).
    pub discover_targets: Vec<(String, Pos)>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            min_confidence: 1.0,
            budget: Duration::from_secs(300),
            concurrency: 8,
            discover: true,
            paths: Vec::new(),
            sites: None,
            discover_targets: Vec::new(),
        }
    }
}

/// A server's answer: `None` when the budget ran out before asking.
type Answer = Option<Result<Vec<crate::lsp::Location>, LspError>>;

/// A site to ask about, with the targets the static graph gave it.
#[derive(Clone, Debug)]
struct Site {
    path: String,
    hash: String,
    pos: Pos,
    /// `(target path, target name position)` of each static candidate.
    expected: Vec<(String, Pos)>,
}

/// The language-server configuration for a session.
pub fn lsp_config(session: &Session) -> Result<LspConfig, QueryError> {
    let mut table = toml::Table::new();
    table.insert("trust".into(), toml::Value::Boolean(session.config.trust));
    table.insert(
        "servers".into(),
        toml::Value::Table(session.config.servers.clone()),
    );
    LspConfig::from_config(&toml::Value::Table(table))
        .map_err(|e| QueryError::BadInput(e.to_string()))
}

/// Verify the session's guessed edges; returns the report. The session's
/// index is re-resolved so the answers are in the graph afterwards.
pub async fn verify(
    session: &mut Session,
    pool: &Pool,
    opts: &VerifyOptions,
) -> Result<VerifyResult, QueryError> {
    let start = Instant::now();
    let deadline = start + opts.budget;
    let root = session
        .root
        .canonicalize()
        .unwrap_or_else(|_| session.root.clone());
    let hashes: HashMap<String, String> = session
        .store
        .files()?
        .into_iter()
        .map(|f| (f.path, f.hash))
        .collect();
    let mut sites = candidate_sites(session, opts, &hashes)?;
    sites.sort_by(|a, b| (&a.path, a.pos).cmp(&(&b.path, b.pos)));
    let total_sites = sites.len();

    let mut report: BTreeMap<String, LangVerification> = BTreeMap::new();
    let mut texts: HashMap<String, std::sync::Arc<String>> = HashMap::new();
    for s in &sites {
        if !texts.contains_key(&s.path) {
            let text = std::fs::read(root.join(&s.path))
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            texts.insert(s.path.clone(), std::sync::Arc::new(text));
        }
    }

    // Ask, pipelined, until the budget runs out.
    let answers: Vec<(Site, Answer)> = stream::iter(sites)
        .map(|s| {
            let text = texts[&s.path].clone();
            let root = &root;
            async move {
                if Instant::now() >= deadline {
                    return (s, None);
                }
                let Some(lang) = Lang::of_path(&s.path) else {
                    return (s, None);
                };
                let file = root.join(&s.path);
                let r = pool.definition(lang, root, &file, &text, s.pos).await;
                (s, Some(r))
            }
        })
        .buffer_unordered(opts.concurrency.max(1))
        .collect()
        .await;

    let mut verdicts = Vec::new();
    let mut targets_to_discover: BTreeMap<(String, Pos), Lang> = BTreeMap::new();
    let mut errors: BTreeMap<String, String> = BTreeMap::new();
    for (site, answer) in answers {
        let lang = Lang::of_path(&site.path).unwrap_or(Lang::Python);
        let entry = report.entry(lang_name(lang).into()).or_default();
        let Some(answer) = answer else {
            entry.unchecked += 1;
            continue;
        };
        let server = pool.server_id(lang).unwrap_or_else(|| "unknown".into());
        let locations = match answer {
            Ok(l) => l,
            Err(e) => {
                entry.unanswered += 1;
                errors
                    .entry(lang_name(lang).into())
                    .or_insert_with(|| e.to_string());
                continue;
            }
        };
        entry.checked += 1;
        let mut rows = Vec::new();
        for l in &locations {
            let outcome = match relative(&root, &l.path) {
                Some(rel) => match hashes.get(&rel) {
                    Some(h) => Outcome::Target {
                        path: rel,
                        hash: h.clone(),
                        line: l.pos.line,
                        column: l.pos.column,
                    },
                    None => Outcome::External,
                },
                None => Outcome::External,
            };
            rows.push(outcome);
        }
        if rows.is_empty() {
            rows.push(Outcome::None);
        }
        let confirmed = rows.iter().any(|o| match o {
            Outcome::Target { path, line, .. } => site
                .expected
                .iter()
                .any(|(p, pos)| p == path && pos.line == *line),
            _ => false,
        });
        let any_target = rows.iter().any(|o| matches!(o, Outcome::Target { .. }));
        match (&rows[0], confirmed) {
            (Outcome::None, _) => entry.unanswered += 1,
            (_, true) => entry.confirmed += 1,
            _ if any_target && !site.expected.is_empty() => entry.retargeted += 1,
            _ if any_target => entry.resolved_unresolved += 1,
            _ if site.expected.is_empty() => entry.external_unresolved += 1,
            _ => entry.refuted += 1,
        }
        if opts.discover {
            for o in &rows {
                if let Outcome::Target {
                    path, line, column, ..
                } = o
                {
                    targets_to_discover.insert(
                        (
                            path.clone(),
                            Pos {
                                line: *line,
                                column: *column,
                            },
                        ),
                        lang,
                    );
                }
            }
            for (p, pos) in &site.expected {
                targets_to_discover.insert((p.clone(), *pos), lang);
            }
        }
        for o in rows {
            verdicts.push(VerdictRow {
                site_path: site.path.clone(),
                line: site.pos.line,
                column: site.pos.column,
                site_hash: site.hash.clone(),
                server: server.clone(),
                outcome: o,
            });
        }
    }

    // Discover: references on each target the servers confirmed or named.
    for (path, pos) in &opts.discover_targets {
        if let Some(lang) = Lang::of_path(path) {
            targets_to_discover.insert((path.clone(), *pos), lang);
        }
    }
    let mut discovered = Vec::new();
    if (opts.discover || !opts.discover_targets.is_empty()) && Instant::now() < deadline {
        let known = session.store.edge_sites()?;
        let asked: BTreeSet<(String, u32, u32)> = verdicts
            .iter()
            .map(|v| (v.site_path.clone(), v.line, v.column))
            .collect();
        let found: Vec<((String, Pos), Lang, Answer)> = stream::iter(targets_to_discover)
            .map(|((path, pos), lang)| {
                let root = &root;
                async move {
                    if Instant::now() >= deadline {
                        return ((path, pos), lang, None);
                    }
                    let file = root.join(&path);
                    let text = std::fs::read(&file)
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                        .unwrap_or_default();
                    let r = pool.references(lang, root, &file, &text, pos, false).await;
                    ((path, pos), lang, Some(r))
                }
            })
            .buffer_unordered(opts.concurrency.max(1))
            .collect()
            .await;
        for ((tpath, tpos), lang, r) in found {
            let Some(Ok(locations)) = r else { continue };
            let server = pool.server_id(lang).unwrap_or_else(|| "unknown".into());
            for l in locations {
                let Some(rel) = relative(&root, &l.path) else {
                    continue;
                };
                let Some(site_hash) = hashes.get(&rel) else {
                    continue;
                };
                let key = (rel.clone(), l.pos.line, l.pos.column);
                if known.contains(&key) || asked.contains(&key) || (rel == tpath && l.pos == tpos) {
                    continue;
                }
                let text = texts
                    .entry(rel.clone())
                    .or_insert_with(|| {
                        std::sync::Arc::new(
                            std::fs::read_to_string(root.join(&rel)).unwrap_or_default(),
                        )
                    })
                    .clone();
                discovered.push(DiscoveredRow {
                    site_path: rel,
                    line: l.pos.line,
                    column: l.pos.column,
                    site_hash: site_hash.clone(),
                    server: server.clone(),
                    kind: site_kind(&text, l.pos),
                    target_path: tpath.clone(),
                    target_hash: hashes.get(&tpath).cloned().unwrap_or_default(),
                    target_line: tpos.line,
                    target_column: tpos.column,
                });
                report.entry(lang_name(lang).into()).or_default().discovered += 1;
            }
        }
    }

    // Record, then re-resolve the files whose sites got answers.
    let mut touched: Vec<String> = verdicts
        .iter()
        .map(|v| v.site_path.clone())
        .chain(discovered.iter().map(|d| d.site_path.clone()))
        .collect();
    touched.sort();
    touched.dedup();
    session.store.transaction(|tx| {
        tx.put_verdicts(&verdicts)?;
        tx.put_discovered(&discovered)?;
        let paths: Vec<&str> = touched.iter().map(String::as_str).collect();
        let ids = tx.ids_of(&paths)?;
        tx.mark_pending(&ids)
    })?;
    crate::index::update(
        &session.root,
        &mut session.store,
        &crate::index::IndexConfig::default(),
    )?;

    for (lang, e) in errors {
        report.entry(lang).or_default().error = Some(e);
    }
    let mut servers = BTreeMap::new();
    for lang in [Lang::Python, Lang::TypeScript, Lang::Rust] {
        if report.contains_key(lang_name(lang)) {
            servers.insert(
                lang_name(lang).to_string(),
                state_text(&pool.state(lang, &root), pool.server_id(lang)),
            );
        }
    }
    Ok(VerifyResult {
        min_confidence: opts.min_confidence,
        sites: total_sites,
        languages: report,
        servers,
        seconds: start.elapsed().as_secs_f64(),
        budget_exhausted: Instant::now() >= deadline,
        index: session.index.clone(),
    })
}

/// `find_referencing_symbols` with the sites below `min_confidence` checked
/// on the spot within `budget`; at 0.95 or more the server's own references
/// to the symbol are asked too, to discover sites the graph missed.
pub async fn refs(
    session: &mut Session,
    pool: &Pool,
    symbol: &str,
    min_confidence: Option<f64>,
    limit: usize,
    budget: Duration,
) -> Result<crate::api::RefsResult, QueryError> {
    let r = session.refs(symbol, min_confidence, usize::MAX)?;
    let Some(s) = r.symbol.clone() else {
        return Ok(r);
    };
    let min = r.verification.min_confidence;
    let below: BTreeSet<(String, u32, u32)> = r
        .results
        .iter()
        .filter(|i| i.confidence < min)
        .map(|i| (i.file.clone(), i.line, i.column))
        .collect();
    if below.is_empty() && min < 0.95 {
        return session.refs(&s.key, Some(min), limit);
    }
    let opts = VerifyOptions {
        budget,
        discover: false,
        sites: Some(below),
        discover_targets: if min >= 0.95 {
            vec![(
                s.file.clone(),
                Pos {
                    line: s.line,
                    column: s.column,
                },
            )]
        } else {
            Vec::new()
        },
        ..VerifyOptions::default()
    };
    let report = verify(session, pool, &opts).await?;
    let mut r = session.refs(&s.key, Some(min), limit)?;
    let v = report
        .languages
        .values()
        .next()
        .cloned()
        .unwrap_or_default();
    r.verification.verified_now = v.confirmed + v.retargeted + v.refuted + v.discovered;
    if let Some(state) = report.servers.values().next() {
        r.verification.server = state.clone();
        if !state.starts_with("ready") && r.verification.below_threshold > 0 {
            r.verification.hint = Some(format!(
                "{} items are below min_confidence and could not be verified ({state}): treat them as inferred",
                r.verification.below_threshold
            ));
        }
    }
    Ok(r)
}

fn candidate_sites(
    session: &Session,
    opts: &VerifyOptions,
    hashes: &HashMap<String, String>,
) -> Result<Vec<Site>, QueryError> {
    let keep = |path: &str, line: u32, col: u32| {
        (opts.paths.is_empty()
            || opts.paths.iter().any(|p| {
                path == p
                    || path.starts_with(&format!("{}/", p.trim_end_matches('/')))
                    || p.is_empty()
                    || p == "."
            }))
            && opts
                .sites
                .as_ref()
                .is_none_or(|s| s.contains(&(path.to_string(), line, col)))
    };
    let mut by_site: BTreeMap<(String, u32, u32), Site> = BTreeMap::new();
    for c in session.store.unverified_edges(opts.min_confidence)? {
        if !keep(&c.site_path, c.line, c.column) {
            continue;
        }
        let s = by_site
            .entry((c.site_path.clone(), c.line, c.column))
            .or_insert_with(|| Site {
                path: c.site_path.clone(),
                hash: hashes.get(&c.site_path).cloned().unwrap_or_default(),
                pos: Pos {
                    line: c.line,
                    column: c.column,
                },
                expected: Vec::new(),
            });
        s.expected.push((
            c.target_path,
            Pos {
                line: c.target_line,
                column: c.target_column,
            },
        ));
    }
    for u in session.store.all_unresolved()? {
        if !keep(&u.file, u.line, u.column) {
            continue;
        }
        by_site
            .entry((u.file.clone(), u.line, u.column))
            .or_insert_with(|| Site {
                path: u.file.clone(),
                hash: hashes.get(&u.file).cloned().unwrap_or_default(),
                pos: Pos {
                    line: u.line,
                    column: u.column,
                },
                expected: Vec::new(),
            });
    }
    Ok(by_site.into_values().collect())
}

/// `calls` when the identifier at `pos` is followed by `(` (or `!(` for a
/// Rust macro, `<…>(` for explicit generics is left as a reference).
fn site_kind(text: &str, pos: Pos) -> EdgeKind {
    let Some(line) = text.lines().nth(pos.line.saturating_sub(1) as usize) else {
        return EdgeKind::References;
    };
    let start = (pos.column.saturating_sub(1) as usize).min(line.len());
    let rest = &line[start..];
    let ident_len = rest
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '$'))
        .map_or(rest.len(), |(i, _)| i);
    let after = rest[ident_len..].trim_start();
    if after.starts_with('(') || after.starts_with("!(") {
        EdgeKind::Calls
    } else {
        EdgeKind::References
    }
}

fn relative(root: &Path, path: &Path) -> Option<String> {
    let p: PathBuf = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let rel = p.strip_prefix(root).ok()?;
    Some(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

fn lang_name(lang: Lang) -> &'static str {
    match lang.family() {
        crate::extract::Family::Python => "python",
        crate::extract::Family::Script => "typescript",
        crate::extract::Family::Rust => "rust",
    }
}

/// A server state as users read it.
pub fn state_text(state: &ServerState, id: Option<String>) -> String {
    match state {
        ServerState::Ready => format!("ready ({})", id.unwrap_or_default()),
        ServerState::NotInstalled { hint } => format!("not installed: {hint}"),
        ServerState::NotStarted => "not started".into(),
        ServerState::Starting => "starting".into(),
        ServerState::Crashed { restarts } => format!("crashed ({restarts} restarts)"),
        ServerState::Unavailable { reason } => format!("unavailable: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_sites_are_told_from_references() {
        let text = "x = foo(1)\ny = foo\nbar!(z)\nq = é.foo (1)\n";
        assert_eq!(site_kind(text, Pos { line: 1, column: 5 }), EdgeKind::Calls);
        assert_eq!(
            site_kind(text, Pos { line: 2, column: 5 }),
            EdgeKind::References
        );
        assert_eq!(site_kind(text, Pos { line: 3, column: 1 }), EdgeKind::Calls);
        assert_eq!(site_kind(text, Pos { line: 4, column: 8 }), EdgeKind::Calls);
    }
}
