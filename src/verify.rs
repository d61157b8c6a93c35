//! Verification through language servers (DESIGN §4): ask the server what
//! each guessed site refers to, record the answer with both files' hashes,
//! and let re-resolution apply it (see `index::apply_verdicts`), so a cached
//! answer is re-applied after every re-index until either file changes.

mod import_binding;
mod module_start;
mod overloads;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};

use crate::api::{LangVerification, VerifyResult};
use crate::extract::{Family, Lang};
use crate::graph::{EdgeKind, NodeKind, Pos};
use crate::lsp::{Document, Location, LspConfig, LspError, Pool, ServerState};
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
    /// Findings listed in the report (all are counted).
    pub limit: usize,
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
            limit: 50,
        }
    }
}

/// A site where the server's answer was not the graph's, before its
/// targets are named (see [`name_findings`]).
struct Found {
    outcome: &'static str,
    lang: Lang,
    path: String,
    pos: Pos,
    name: String,
    graph: Vec<(String, Pos)>,
    server: Vec<(String, Pos)>,
    external: bool,
}

/// The identifier at `pos` (1-based, columns in UTF-8 bytes) in `text`.
fn ident_at(text: &str, pos: Pos) -> Option<&str> {
    text.lines()
        .nth(pos.line.saturating_sub(1) as usize)
        .and_then(|line| overloads::ident_in(line, pos.column))
}

/// The identifier at `pos` in `text` (empty when there is none).
fn name_at(text: &str, pos: Pos) -> String {
    ident_at(text, pos).unwrap_or_default().to_string()
}

/// A server's answer: `None` when the budget ran out before asking.
type Answer<R = Vec<Location>> = Option<Result<R, LspError>>;

/// One group's answers: its key, each item with its answer, the wall time.
type Asked<T, R = Vec<Location>> = ((&'static str, PathBuf), Vec<(T, Answer<R>)>, Duration);

/// References to a discovery target: the sites, and where the target's
/// declaration twin leads in the sources (empty unless the target is in a
/// declaration file with an indexed source; see [`Twins`]).
type Referenced = (Vec<Location>, Vec<Location>);

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
    let mut cfg = LspConfig::from_config(&toml::Value::Table(table))
        .map_err(|e| QueryError::BadInput(e.to_string()))?;
    cfg.import_roots = python_import_roots(&session.store.files()?)
        .into_iter()
        .map(|r| {
            let dir = session.root.join(r);
            std::fs::canonicalize(&dir).unwrap_or(dir)
        })
        .collect();
    Ok(cfg)
}

/// The folders (repository-relative, `""` for the root) the repository's
/// Python modules are imported from: a file's path without the
/// components its module key names (`src/flask/app.py`, `flask.app`: `src`).
fn python_import_roots(files: &[crate::store::FileRow]) -> BTreeSet<String> {
    let mut roots = BTreeSet::new();
    for f in files.iter().filter(|f| f.lang.family() == Family::Python) {
        let (parts, _) = crate::resolve::python::module_path(&f.path);
        let named = f.module.split('.').count();
        if f.module.is_empty() || named > parts.len() {
            continue;
        }
        roots.insert(parts[..parts.len() - named].join("/"));
    }
    roots
}

/// Where a server runs and what it is asked there: the sites under one
/// workspace root of one language (its server's `root_for`), and the
/// definitions whose references are asked for in discovery.
struct Group {
    /// A language of the group's family, for pool calls not tied to a site.
    lang: Lang,
    /// Absolute (canonical) root.
    root: PathBuf,
    sites: Vec<Site>,
    targets: BTreeSet<(String, Pos)>,
    /// Sites the server answered.
    checked: usize,
    /// Why no session runs here.
    skipped: Option<String>,
    /// Wall time of this root's requests.
    busy: Duration,
}

/// Workspace roots per language, found once per folder.
struct Roots<'a> {
    pool: &'a Pool,
    repo: &'a Path,
    cache: HashMap<(&'static str, PathBuf), PathBuf>,
}

impl Roots<'_> {
    /// The server root for the repository-relative `path`: the nearest folder
    /// with one of its server's root markers, the repository root at most.
    fn of(&mut self, lang: Lang, path: &str) -> PathBuf {
        let file = self.repo.join(path);
        let dir = file.parent().unwrap_or(self.repo).to_path_buf();
        let key = (lang_name(lang), dir);
        if let Some(r) = self.cache.get(&key) {
            return r.clone();
        }
        let root = match self.pool.config().spec_for(lang) {
            Some(spec) => spec.root_for(&file, self.repo),
            None => self.repo.to_path_buf(),
        };
        self.cache.insert(key, root.clone());
        root
    }
}

/// Run `ask` on each item, `concurrency` at a time; items not started, or
/// not answered, by `deadline` get `None`.
async fn bounded_all<'a, T, R, F, Fut>(
    items: Vec<T>,
    concurrency: usize,
    deadline: Instant,
    ask: F,
) -> Vec<(T, Answer<R>)>
where
    T: Clone + 'a,
    F: Fn(T) -> Fut + 'a,
    Fut: std::future::Future<Output = Result<R, LspError>> + 'a,
{
    let ask = &ask;
    stream::iter(items)
        .map(|item| async move {
            if Instant::now() >= deadline {
                return (item, None);
            }
            let r = tokio::time::timeout_at(deadline.into(), ask(item.clone()))
                .await
                .ok();
            (item, r)
        })
        .buffer_unordered(concurrency.max(1))
        .collect()
        .await
}

/// Verify the session's guessed edges; returns the report. The session's
/// index is re-resolved so the answers are in the graph afterwards.
///
/// Sites are grouped by their server's workspace root (one session per
/// language and root, at most `max_sessions` of them, the roots with the most
/// sites first); nothing is asked after the budget's deadline, and requests
/// still in flight then are dropped: what was not answered counts as
/// `unchecked` (`targets_unasked` for discovery).
pub async fn verify(
    session: &mut Session,
    pool: &Pool,
    opts: &VerifyOptions,
) -> Result<VerifyResult, QueryError> {
    let start = Instant::now();
    let deadline = start
        .checked_add(opts.budget)
        .unwrap_or(start + Duration::from_secs(365 * 86_400));
    let root = session
        .root
        .canonicalize()
        .unwrap_or_else(|_| session.root.clone());
    let hashes = session.store.file_hashes()?;
    let mut sites = candidate_sites(session, opts, &hashes)?;
    if opts.sites.is_none() {
        let asked = sites.len();
        sites = without_cached_no_answers(&session.store, pool, sites)?;
        if sites.len() < asked {
            tracing::info!(
                skipped = asked - sites.len(),
                "sites the same server found no definition for, in unchanged files: not asked again"
            );
        }
    }
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

    // Group the sites by (language, server root).
    let mut roots = Roots {
        pool,
        repo: &root,
        cache: HashMap::new(),
    };
    let mut groups: BTreeMap<(&'static str, PathBuf), Group> = BTreeMap::new();
    for s in sites {
        let Some(lang) = Lang::of_path(&s.path) else {
            continue;
        };
        let r = roots.of(lang, &s.path);
        groups
            .entry((lang_name(lang), r.clone()))
            .or_insert_with(|| Group::new(lang, r))
            .sites
            .push(s);
    }
    // The session cap: per language, the roots with the most sites first.
    let mut active: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut ranked: Vec<&mut Group> = groups.values_mut().collect();
    ranked.sort_by(|a, b| {
        (lang_name(a.lang), std::cmp::Reverse(a.sites.len()), &a.root).cmp(&(
            lang_name(b.lang),
            std::cmp::Reverse(b.sites.len()),
            &b.root,
        ))
    });
    for g in ranked {
        g.sites
            .sort_by(|a, b| (&a.path, a.pos).cmp(&(&b.path, b.pos)));
        let max = max_sessions(pool, g.lang);
        let n = active.entry(lang_name(g.lang)).or_default();
        if *n < max {
            *n += 1;
        } else {
            g.skipped = Some(cap_reason(pool, g.lang, max));
        }
    }

    // Ask each root's server, pipelined, all roots at once, until the deadline.
    let concurrency = opts.concurrency;
    let twins = Twins {
        repo: &root,
        hashes: &hashes,
        seen: std::sync::Mutex::new(HashMap::new()),
    };
    let phase: Vec<Asked<Site>> =
        futures::future::join_all(groups.iter().filter(|(_, g)| g.skipped.is_none()).map(
            |(key, g)| {
                let texts = &texts;
                let root = &root;
                let twins = &twins;
                async move {
                    let t = Instant::now();
                    let answers = bounded_all(g.sites.clone(), concurrency, deadline, |s: Site| {
                        let text = texts[&s.path].clone();
                        let lang = Lang::of_path(&s.path).unwrap_or(g.lang);
                        async move {
                            let file = root.join(&s.path);
                            let doc = Document {
                                lang,
                                root: &g.root,
                                file: &file,
                                text: &text,
                            };
                            let mut locs = pool.definition(doc, s.pos).await?;
                            // rust-analyzer answers `Self` in an impl with the
                            // impl's self type (`Identifier` in `impl Identifier`),
                            // itself a reference: its definition is the type
                            // `Self` stands for (and the type's references
                            // include `Self`).
                            if lang == Lang::Rust && is_self_keyword(&text, s.pos) {
                                if let [l] = locs.as_slice() {
                                    let l = l.clone();
                                    let ltext = read_text(&l.path).await;
                                    let ldoc = Document {
                                        lang,
                                        root: &g.root,
                                        file: &l.path,
                                        text: &ltext,
                                    };
                                    // `impl IntoIterator for &'a ChunkBy`: the
                                    // answer is the `&`; the type's name follows.
                                    let at = past_reference(&ltext, l.pos);
                                    let next = pool.definition(ldoc, at).await?;
                                    if !next.is_empty() {
                                        locs = next;
                                    }
                                }
                            }
                            // Declarations name declarations (a shipped `.d.ts`
                            // importing its siblings): only sources are followed.
                            if is_declaration_file(&file) {
                                return Ok(locs);
                            }
                            let locs = twins
                                .resolve(locs, |p| pool.source_definition(doc, p), s.pos)
                                .await;
                            if lang.family() == Family::Script {
                                return follow_local_answers(pool, twins, doc, root, &s, locs)
                                    .await;
                            }
                            Ok(locs)
                        }
                    })
                    .await;
                    (key.clone(), answers, t.elapsed())
                }
            },
        ))
        .await;

    // Something was left unasked at the deadline.
    let mut cut = false;
    let mut verdicts = Vec::new();
    let mut targets_to_discover: BTreeMap<(String, Pos), Lang> = BTreeMap::new();
    let mut errors: BTreeMap<String, String> = BTreeMap::new();
    let mut differ: Vec<Found> = Vec::new();
    // The graph's nodes per file: discovery and the findings read them.
    let mut nodes = FileNodes::default();
    let mut overloads = overloads::Overloads::new(&root);
    let mut module_starts = module_start::ModuleStarts::new(&root);
    let mut import_bindings = import_binding::ImportBindings::new(&root);
    for g in groups.values() {
        let entry = report.entry(lang_name(g.lang).into()).or_default();
        if g.skipped.is_some() {
            entry.unchecked += g.sites.len();
        }
    }
    for (key, answers, busy) in phase {
        let g = groups.get_mut(&key).expect("a group that was asked");
        g.busy = busy;
        g.checked = answers
            .iter()
            .filter(|(_, a)| matches!(a, Some(Ok(_))))
            .count();
        for (site, answer) in answers {
            let lang = Lang::of_path(&site.path).unwrap_or(Lang::Python);
            let entry = report.entry(lang_name(lang).into()).or_default();
            let Some(answer) = answer else {
                entry.unchecked += 1;
                cut = true;
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
            // The server names the site itself: a declaration (a pytest
            // test's fixture parameter, which the graph links to its
            // fixture), where the server can neither confirm nor refute the
            // graph's edge: no answer. Its other answers are the same
            // local's other declarations (`for env in …` in a test taking
            // the fixture `env`), no more about the edge.
            let located: Vec<(Option<String>, &Location)> = locations
                .iter()
                .map(|l| (relative(&root, &l.path), l))
                .collect();
            let names_site = located
                .iter()
                .any(|(rel, l)| l.pos == site.pos && rel.as_deref() == Some(site.path.as_str()));
            for (rel, l) in located.into_iter().filter(|_| !names_site) {
                // An import binding the server could not follow past (its
                // module does not resolve where the server runs) is no
                // answer about the definition.
                if rel
                    .as_deref()
                    .is_some_and(|r| hashes.contains_key(r) && import_bindings.at(r, l.pos))
                {
                    continue;
                }
                let outcome = match rel {
                    Some(rel) => match hashes.get(&rel) {
                        Some(h) => {
                            // A script file's first token is its module; another
                            // signature of an overload set names the set's node.
                            let at = module_starts.module_at(&rel, l.pos);
                            let at = overloads.node_at(&session.store, &rel, at).unwrap_or(at);
                            Outcome::Target {
                                path: rel,
                                hash: h.clone(),
                                line: at.line,
                                column: at.column,
                            }
                        }
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
            let outcome = match (&rows[0], confirmed) {
                (Outcome::None, _) => {
                    entry.unanswered += 1;
                    None
                }
                (_, true) => {
                    entry.confirmed += 1;
                    None
                }
                _ if any_target && !site.expected.is_empty() => {
                    entry.retargeted += 1;
                    Some("retargeted")
                }
                _ if any_target && unmodelled_only(&session.store, &mut nodes, &rows)? => {
                    entry.unmodelled += 1;
                    None
                }
                _ if any_target => {
                    entry.resolved_unresolved += 1;
                    Some("resolved_unresolved")
                }
                _ if site.expected.is_empty() => {
                    entry.external_unresolved += 1;
                    None
                }
                _ => {
                    entry.refuted += 1;
                    Some("refuted")
                }
            };
            if let Some(outcome) = outcome {
                differ.push(Found {
                    outcome,
                    lang,
                    path: site.path.clone(),
                    pos: site.pos,
                    name: texts
                        .get(&site.path)
                        .map(|t| name_at(t, site.pos))
                        .unwrap_or_default(),
                    graph: site.expected.clone(),
                    server: rows.iter().filter_map(Outcome::target).collect(),
                    external: rows.iter().any(|o| matches!(o, Outcome::External)),
                });
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
    }

    // Discover: references on each target the servers confirmed or named, asked
    // of the server at the target's own root — only where the graph has a
    // definition. A module's node sits at 1:1, where a server answers for
    // whatever token is there (an import binding); a variable or constant is
    // no node, so its references could never be edges.
    for k in unmodelled_targets(&session.store, &mut nodes, targets_to_discover.keys())? {
        targets_to_discover.remove(&k);
    }
    for (path, pos) in &opts.discover_targets {
        if let Some(lang) = Lang::of_path(path) {
            targets_to_discover.insert((path.clone(), *pos), lang);
        }
    }
    let mut discovered = Vec::new();
    // Script sites awaiting the server's definition (below).
    let mut unconfirmed: Vec<DiscoveredRow> = Vec::new();
    if opts.discover || !opts.discover_targets.is_empty() {
        for ((path, pos), lang) in targets_to_discover {
            let r = roots.of(lang, &path);
            let key = (lang_name(lang), r.clone());
            if !groups.contains_key(&key) {
                // A root with no sites of its own: within the cap, it gets a session.
                let max = max_sessions(pool, lang);
                let n = active.entry(lang_name(lang)).or_default();
                let mut g = Group::new(lang, r);
                if *n < max {
                    *n += 1;
                } else {
                    g.skipped = Some(cap_reason(pool, lang, max));
                }
                groups.insert(key.clone(), g);
            }
            groups.get_mut(&key).unwrap().targets.insert((path, pos));
        }
        let known = session.store.edge_sites()?;
        let asked: BTreeSet<(String, u32, u32)> = verdicts
            .iter()
            .map(|v| (v.site_path.clone(), v.line, v.column))
            .collect();
        for g in groups.values() {
            if g.skipped.is_some() && !g.targets.is_empty() {
                report
                    .entry(lang_name(g.lang).into())
                    .or_default()
                    .targets_unasked += g.targets.len();
            }
        }
        let phase: Vec<Asked<(String, Pos), Referenced>> = futures::future::join_all(
            groups
                .iter()
                .filter(|(_, g)| g.skipped.is_none() && !g.targets.is_empty())
                .map(|(key, g)| {
                    let (root, twins) = (&root, &twins);
                    async move {
                        let t = Instant::now();
                        let targets: Vec<(String, Pos)> = g.targets.iter().cloned().collect();
                        let answers = bounded_all(targets, concurrency, deadline, |(path, pos)| {
                            let lang = Lang::of_path(&path).unwrap_or(g.lang);
                            async move {
                                let file = root.join(&path);
                                let text = read_text(&file).await;
                                let doc = Document {
                                    lang,
                                    root: &g.root,
                                    file: &file,
                                    text: &text,
                                };
                                let sites = pool.references(doc, pos, false).await?;
                                let sources = twins
                                    .of_target(&file, pos, &sites, |site| async move {
                                        let text = read_text(&site.path).await;
                                        let doc = Document {
                                            lang: Lang::of_path(&site.path.to_string_lossy())
                                                .unwrap_or(lang),
                                            root: &g.root,
                                            file: &site.path,
                                            text: &text,
                                        };
                                        pool.source_definition(doc, site.pos).await
                                    })
                                    .await;
                                Ok((sites, sources))
                            }
                        })
                        .await;
                        (key.clone(), answers, t.elapsed())
                    }
                }),
        )
        .await;
        for (key, found, busy) in phase {
            if let Some(g) = groups.get_mut(&key) {
                g.busy += busy;
            }
            for ((tpath, tpos), r) in found {
                let Some(lang) = Lang::of_path(&tpath) else {
                    continue;
                };
                let entry = report.entry(lang_name(lang).into()).or_default();
                let (locations, sources) = match r {
                    None => {
                        entry.targets_unasked += 1;
                        cut = true;
                        continue;
                    }
                    Some(Err(_)) => continue,
                    Some(Ok(l)) => l,
                };
                let server = pool.server_id(lang).unwrap_or_else(|| "unknown".into());
                // A declaration twin's sources: what sites in source files
                // refer to (sites in declaration files keep the declaration).
                let sources: Vec<(String, Pos)> = sources
                    .iter()
                    .filter_map(|l| Some((relative(&root, &l.path)?, l.pos)))
                    .collect();
                let asked_target = [(tpath.clone(), tpos)];
                for l in locations {
                    let Some(rel) = relative(&root, &l.path) else {
                        continue;
                    };
                    let Some(site_hash) = hashes.get(&rel) else {
                        continue;
                    };
                    let key = (rel.clone(), l.pos.line, l.pos.column);
                    if known.contains(&key) || asked.contains(&key) {
                        continue;
                    }
                    if nodes.is_named_at(&session.store, &rel, l.pos)? {
                        continue;
                    }
                    let targets = if sources.is_empty() || is_declaration_file(&l.path) {
                        &asked_target[..]
                    } else {
                        &sources[..]
                    };
                    let text = texts
                        .entry(rel.clone())
                        .or_insert_with(|| {
                            std::sync::Arc::new(
                                std::fs::read_to_string(root.join(&rel)).unwrap_or_default(),
                            )
                        })
                        .clone();
                    for (target, at) in targets {
                        if *target == rel && *at == l.pos {
                            continue;
                        }
                        let to = if lang.family() == Family::Script {
                            &mut unconfirmed
                        } else {
                            &mut discovered
                        };
                        to.push(DiscoveredRow {
                            site_path: rel.clone(),
                            line: l.pos.line,
                            column: l.pos.column,
                            site_hash: site_hash.clone(),
                            server: server.clone(),
                            kind: site_kind(&text, l.pos),
                            target_path: target.clone(),
                            target_hash: hashes.get(target).cloned().unwrap_or_default(),
                            target_line: at.line,
                            target_column: at.column,
                        });
                    }
                }
            }
        }
        // tsserver's references of a member also list the members it
        // overrides or implements, with their declarations and every use
        // of them (`class Registry extends Map`: each `Map#get` call is a
        // reference of `Registry.get`). At such a site the server's own
        // definition is the declaration itself, or lies outside the
        // repository: no static edge could stand there (it would be
        // refuted), so it is no reference the graph missed. Any other
        // answer keeps the site (the shorthand `{ x }` of an imported `x`
        // is defined at its import, and still a reference of `x`).
        let rows: Vec<(DiscoveredRow, PathBuf)> = std::mem::take(&mut unconfirmed)
            .into_iter()
            .map(|row| {
                let lang = Lang::of_path(&row.site_path).unwrap_or(Lang::TypeScript);
                let group_root = roots.of(lang, &row.site_path);
                (row, group_root)
            })
            .collect();
        let answers = bounded_all(rows, concurrency, deadline, |(row, group_root)| {
            let lang = Lang::of_path(&row.site_path).unwrap_or(Lang::TypeScript);
            let file = root.join(&row.site_path);
            let twins = &twins;
            async move {
                let text = read_text(&file).await;
                let doc = Document {
                    lang,
                    root: &group_root,
                    file: &file,
                    text: &text,
                };
                let pos = Pos {
                    line: row.line,
                    column: row.column,
                };
                let locs = pool.definition(doc, pos).await?;
                Ok(twins
                    .resolve(locs, |p| pool.source_definition(doc, p), pos)
                    .await)
            }
        })
        .await;
        for ((row, _), answer) in answers {
            // Unanswered (an error, the deadline): kept, as before asking.
            let Some(Ok(locs)) = answer else {
                discovered.push(row);
                continue;
            };
            // Where the server defines the site in the repository, but at
            // no definition of the graph (fastify's `import fastify from`
            // names the namespace's `export const fastify`, a variable),
            // no edge could stand either.
            let elsewhere_in_repo: Vec<(String, Pos)> = locs
                .iter()
                .filter_map(|l| {
                    let rel = relative(&root, &l.path)?;
                    if !hashes.contains_key(&rel)
                        || (rel == row.site_path && l.pos.line == row.line)
                    {
                        return None;
                    }
                    // Another signature of an overload set names the set.
                    let at = overloads
                        .node_at(&session.store, &rel, l.pos)
                        .unwrap_or(l.pos);
                    Some((rel, at))
                })
                .collect();
            let unmodelled =
                unmodelled_targets(&session.store, &mut nodes, elsewhere_in_repo.iter())?;
            if elsewhere_in_repo.len() > unmodelled.len() || locs.is_empty() {
                discovered.push(row);
            }
        }
        for row in &discovered {
            if let Some(lang) = Lang::of_path(&row.site_path) {
                report.entry(lang_name(lang).into()).or_default().discovered += 1;
                let pos = Pos {
                    line: row.line,
                    column: row.column,
                };
                let at = Pos {
                    line: row.target_line,
                    column: row.target_column,
                };
                differ.push(Found {
                    outcome: "discovered",
                    lang,
                    path: row.site_path.clone(),
                    pos,
                    name: texts
                        .get(&row.site_path)
                        .map(|t| name_at(t, pos))
                        .unwrap_or_default(),
                    graph: Vec::new(),
                    server: vec![(row.target_path.clone(), at)],
                    external: false,
                });
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
    let cfg = session.index_config.clone();
    crate::index::update(&session.root, &mut session.store, &cfg)?;

    for (lang, e) in errors {
        report.entry(lang).or_default().error = Some(e);
    }
    let mut ordered: Vec<&Group> = groups.values().collect();
    ordered.sort_by(|a, b| {
        (lang_name(a.lang), std::cmp::Reverse(a.sites.len()), &a.root).cmp(&(
            lang_name(b.lang),
            std::cmp::Reverse(b.sites.len()),
            &b.root,
        ))
    });
    let mut servers = BTreeMap::new();
    let mut root_reports = Vec::new();
    for g in ordered {
        let state = state_text(&pool.state(g.lang, &g.root), pool.server_id(g.lang));
        // A language's state is its busiest root's.
        servers
            .entry(lang_name(g.lang).to_string())
            .or_insert_with(|| state.clone());
        let stats = pool.stats(g.lang, &g.root).unwrap_or_default();
        root_reports.push(crate::api::RootVerification {
            language: lang_name(g.lang).into(),
            root: relative(&root, &g.root)
                .filter(|r| !r.is_empty())
                .unwrap_or_else(|| ".".into()),
            sites: g.sites.len(),
            checked: g.checked,
            server: state,
            ready_seconds: stats.ready_after.map(|d| d.as_secs_f64()),
            requests: stats.requests,
            server_seconds: stats.waited.as_secs_f64(),
            seconds: g.busy.as_secs_f64(),
            skipped: g.skipped.clone(),
        });
    }
    let findings = name_findings(&session.store, &mut nodes, differ, opts.limit)?;
    Ok(VerifyResult {
        min_confidence: opts.min_confidence,
        sites: total_sites,
        languages: report,
        servers,
        seconds: start.elapsed().as_secs_f64(),
        budget_exhausted: cut,
        roots: root_reports,
        findings,
        index: session.index.clone(),
    })
}

/// The first `limit` findings, worst first (an edge the server refuted, one
/// it moved, a reference the graph left unresolved, one it did not have),
/// then by site; each target named by the key of the node at its name.
fn name_findings(
    store: &crate::store::Store,
    nodes: &mut FileNodes,
    mut found: Vec<Found>,
    limit: usize,
) -> Result<crate::api::Findings, QueryError> {
    const ORDER: [&str; 4] = ["refuted", "retargeted", "resolved_unresolved", "discovered"];
    let rank = |o: &str| ORDER.iter().position(|x| *x == o).unwrap_or(ORDER.len());
    found.sort_by(|a, b| {
        (rank(a.outcome), &a.path, a.pos, &a.server).cmp(&(
            rank(b.outcome),
            &b.path,
            b.pos,
            &b.server,
        ))
    });
    let total = found.len();
    found.truncate(limit);
    let mut target =
        |(file, pos): &(String, Pos)| -> Result<crate::api::FindingTarget, QueryError> {
            let key = nodes
                .of(store, file)?
                .iter()
                .find(|n| n.line == pos.line && n.column == pos.column)
                .map(|n| n.key.clone());
            Ok(crate::api::FindingTarget {
                file: file.clone(),
                line: pos.line,
                column: pos.column,
                key,
            })
        };
    let mut results = Vec::with_capacity(found.len());
    for f in found {
        results.push(crate::api::VerifyFinding {
            outcome: f.outcome.to_string(),
            language: lang_name(f.lang).to_string(),
            file: f.path,
            line: f.pos.line,
            column: f.pos.column,
            name: f.name,
            graph: f.graph.iter().map(&mut target).collect::<Result<_, _>>()?,
            server: f.server.iter().map(&mut target).collect::<Result<_, _>>()?,
            external: f.external,
        });
    }
    Ok(crate::api::Findings {
        shown: results.len(),
        truncated: results.len() < total,
        total,
        results,
    })
}

/// tsserver defines the shorthand `{ x }` of an imported x at its import
/// (and at the property of the object's contextual type), though it lists
/// the site among the references of the imported definition: the import's
/// own definition is what x names. Where no answer is the graph's, each
/// answer elsewhere in the site's file is asked once more, and replaced
/// when that answer leads out of the file (a declaration's definition is
/// itself: no change).
async fn follow_local_answers(
    pool: &Pool,
    twins: &Twins<'_>,
    doc: Document<'_>,
    root: &Path,
    site: &Site,
    locs: Vec<Location>,
) -> Result<Vec<Location>, LspError> {
    let expected = |l: &Location| {
        let rel = relative(root, &l.path);
        site.expected
            .iter()
            .any(|(p, at)| rel.as_deref() == Some(p.as_str()) && at.line == l.pos.line)
    };
    let here = |l: &Location| relative(root, &l.path).as_deref() == Some(site.path.as_str());
    if locs.iter().any(expected) || !locs.iter().any(here) {
        return Ok(locs);
    }
    let mut out = Vec::with_capacity(locs.len());
    for l in locs {
        if here(&l) && l.pos != site.pos {
            let next = pool.definition(doc, l.pos).await?;
            let next = twins
                .resolve(next, |p| pool.source_definition(doc, p), l.pos)
                .await;
            if next.iter().any(|n| !here(n)) {
                out.extend(next);
                continue;
            }
        }
        out.push(l);
    }
    Ok(out)
}

/// Definitions that land in a declaration file a package ships beside its
/// sources (`index.d.ts` reached through `import … from "zod/v4/core"` in
/// zod's own `src/`): the server's source definition is asked at the same
/// site, and its answer replaces the declaration when it lands in an indexed
/// TypeScript source file. JavaScript is no source of a declaration: built
/// next to it (`index.js` beside `index.d.ts`) it is the declaration's twin,
/// and written by hand (fastify) it is what the declaration describes.
/// Answers are remembered per declaration.
/// Sites in declaration files keep their declarations.
struct Twins<'a> {
    repo: &'a Path,
    hashes: &'a HashMap<String, String>,
    seen: std::sync::Mutex<HashMap<(PathBuf, Pos), Vec<Location>>>,
}

impl Twins<'_> {
    async fn resolve<F, Fut>(
        &self,
        locs: Vec<Location>,
        source_definition: F,
        pos: Pos,
    ) -> Vec<Location>
    where
        F: FnOnce(Pos) -> Fut,
        Fut: std::future::Future<Output = Result<Vec<Location>, LspError>>,
    {
        let Some(decl) = locs.iter().find(|l| is_declaration_file(&l.path)) else {
            return locs;
        };
        let key = (decl.path.clone(), decl.pos);
        let cached = self.seen.lock().unwrap().get(&key).cloned();
        let sources = match cached {
            Some(s) => s,
            None => {
                let sources: Vec<Location> = match source_definition(pos).await {
                    Ok(found) => found
                        .into_iter()
                        .filter(|l| self.is_indexed_source(&l.path))
                        .collect(),
                    Err(e) => {
                        tracing::debug!("source definition at {}: {e}", decl.path.display());
                        Vec::new()
                    }
                };
                self.seen.lock().unwrap().insert(key, sources.clone());
                sources
            }
        };
        if sources.is_empty() {
            return locs;
        }
        let mut out: Vec<Location> = locs
            .into_iter()
            .filter(|l| !is_declaration_file(&l.path))
            .chain(sources)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The sources behind a discovery target in a declaration file: the
    /// server's source definition asked at the first of its reference
    /// `sites` that is in a source file (as for a definition landing there);
    /// empty when the target is no declaration or nothing leads to an
    /// indexed source.
    async fn of_target<F, Fut>(
        &self,
        file: &Path,
        pos: Pos,
        sites: &[Location],
        source_definition: F,
    ) -> Vec<Location>
    where
        F: FnOnce(Location) -> Fut,
        Fut: std::future::Future<Output = Result<Vec<Location>, LspError>>,
    {
        if !is_declaration_file(file) {
            return Vec::new();
        }
        let Some(site) = sites.iter().find(|l| !is_declaration_file(&l.path)) else {
            return Vec::new();
        };
        let decl = Location {
            path: file.to_path_buf(),
            pos,
            end: pos,
        };
        let site = site.clone();
        let at = site.pos;
        let found = self
            .resolve(vec![decl], move |_| source_definition(site), at)
            .await;
        found
            .into_iter()
            .filter(|l| !is_declaration_file(&l.path))
            .collect()
    }

    /// A TypeScript source (no declaration) the index holds.
    fn is_indexed_source(&self, path: &Path) -> bool {
        if is_declaration_file(path) || !is_typescript_source(path) {
            return false;
        }
        relative(self.repo, path).is_some_and(|rel| self.hashes.contains_key(&rel))
    }
}

/// The position of the type a reference type at `pos` names: past `&`,
/// `&mut`, a lifetime, `*const`/`*mut` (`pos` itself when none stands there).
fn past_reference(text: &str, pos: Pos) -> Pos {
    let Some(line) = text.lines().nth(pos.line.saturating_sub(1) as usize) else {
        return pos;
    };
    let start = pos.column.saturating_sub(1) as usize;
    let Some(rest) = line.get(start..) else {
        return pos;
    };
    if !rest.starts_with(['&', '*']) {
        return pos;
    }
    let mut r = rest[1..].trim_start_matches(['&', ' ']);
    if let Some(l) = r.strip_prefix('\'') {
        r = l.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_');
        r = r.trim_start();
    }
    for word in ["mut ", "const "] {
        if let Some(w) = r.strip_prefix(word) {
            r = w.trim_start();
        }
    }
    Pos {
        line: pos.line,
        column: pos.column + (rest.len() - r.len()) as u32,
    }
}

/// Whether the identifier at `pos` (1-based, columns in UTF-8 bytes) is `Self`.
fn is_self_keyword(text: &str, pos: Pos) -> bool {
    ident_at(text, pos) == Some("Self")
}

/// `.d.ts`, `.d.mts`, `.d.cts` (also `.d.<ext>.ts`, TS 5's declarations of
/// arbitrary extensions).
fn is_declaration_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name.ends_with(".d.ts")
        || name.ends_with(".d.mts")
        || name.ends_with(".d.cts")
        || (name.ends_with(".ts") && name.contains(".d."))
}

/// `.ts`, `.tsx`, `.mts`, `.cts` (a declaration file too).
fn is_typescript_source(path: &Path) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    matches!(ext, "ts" | "tsx" | "mts" | "cts")
}

impl Group {
    fn new(lang: Lang, root: PathBuf) -> Group {
        Group {
            lang,
            root,
            sites: Vec::new(),
            targets: BTreeSet::new(),
            checked: 0,
            skipped: None,
            busy: Duration::ZERO,
        }
    }
}

fn max_sessions(pool: &Pool, lang: Lang) -> usize {
    pool.config()
        .spec_for(lang)
        .map_or(1, |s| s.max_sessions.max(1))
}

fn cap_reason(pool: &Pool, lang: Lang, max: usize) -> String {
    let name = pool
        .config()
        .spec_for(lang)
        .map_or("the server", |s| s.name.as_str());
    format!(
        "not checked: {name} runs at most {max} sessions (workspace roots) and other roots have more sites; raise `max_sessions` in [servers.{name}] of .refgraph/config.toml"
    )
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

/// `sites` without those whose file is unchanged since the same server
/// (name and version) answered "no definition" there: asking again gives
/// the same answer (DESIGN §4: no answer stays `inferred`, marked checked).
/// Editing the file, or another server version, asks again.
fn without_cached_no_answers(
    store: &crate::store::Store,
    pool: &Pool,
    sites: Vec<Site>,
) -> Result<Vec<Site>, QueryError> {
    let mut no_answer: HashMap<String, BTreeSet<Pos>> = HashMap::new();
    for s in &sites {
        if no_answer.contains_key(&s.path) {
            continue;
        }
        let server = Lang::of_path(&s.path).and_then(|l| pool.server_id(l));
        let mut outcomes: BTreeMap<Pos, bool> = BTreeMap::new();
        for v in store.verdicts_for(&s.path, &s.hash)? {
            let none = Some(&v.server) == server.as_ref() && v.outcome == Outcome::None;
            let pos = Pos {
                line: v.line,
                column: v.column,
            };
            *outcomes.entry(pos).or_insert(true) &= none;
        }
        let positions = outcomes.into_iter().filter(|(_, n)| *n).map(|(p, _)| p);
        no_answer.insert(s.path.clone(), positions.collect());
    }
    Ok(sites
        .into_iter()
        .filter(|s| !no_answer[&s.path].contains(&s.pos))
        .collect())
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

/// A file's text for a request ("" when it cannot be read: the server then
/// answers about an empty document, and nothing is found).
async fn read_text(path: &Path) -> String {
    tokio::fs::read(path)
        .await
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
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
    fn python_import_roots_are_the_folders_above_module_keys() {
        let row = |path: &str, module: &str| crate::store::FileRow {
            id: 0,
            path: path.into(),
            lang: Lang::of_path(path).unwrap(),
            hash: String::new(),
            size: 0,
            mtime_ns: 0,
            module: module.into(),
            resolved: true,
        };
        let roots = python_import_roots(&[
            row("src/flask/app.py", "flask.app"),
            row("src/flask/__init__.py", "flask"),
            row("examples/tutorial/flaskr/db.py", "flaskr.db"),
            row("conftest.py", "conftest"),
            row("web/app.ts", "web/app.ts"),
        ]);
        let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
        assert_eq!(roots, ["", "examples/tutorial", "src"]);
    }

    #[test]
    fn declaration_files_and_typescript_sources() {
        assert!(is_declaration_file(Path::new("/p/index.d.ts")));
        assert!(is_declaration_file(Path::new("/p/v4/core/api.d.cts")));
        assert!(is_declaration_file(Path::new("/p/a.d.mts")));
        assert!(is_declaration_file(Path::new("/p/styles.d.css.ts")));
        assert!(!is_declaration_file(Path::new("/p/src/index.ts")));
        assert!(!is_declaration_file(Path::new("/p/src/d.ts")));
        assert!(is_typescript_source(Path::new("/p/src/a.mts")));
        assert!(!is_typescript_source(Path::new("/p/lib/server.js")));
        assert!(!is_typescript_source(Path::new("/p/api.cjs")));
    }

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

/// The graph's nodes per file, read once each; and where its definitions
/// are named.
///
/// pyright lists every declaration of a symbol among its references: the
/// other signatures of an `@overload` set, a property's setter and deleter,
/// a function defined in both branches of an `if`, the implementation
/// beside its `.pyi` stub. Such a location is a definition's name, where no
/// reference edge can stand: recorded as discovered it would be a `calls`
/// edge from a definition to itself under another key, and it would count
/// as a reference the graph missed. tsserver does the same with the
/// interface member a class method implements (and the method implementing
/// it), rust-analyzer with the methods implementing a trait method.
#[derive(Default)]
struct FileNodes(HashMap<String, Vec<crate::store::NodeRow>>);

impl FileNodes {
    fn of(
        &mut self,
        store: &crate::store::Store,
        path: &str,
    ) -> Result<&[crate::store::NodeRow], QueryError> {
        if !self.0.contains_key(path) {
            let rows = store.nodes_of_file(path)?.unwrap_or_default();
            self.0.insert(path.to_string(), rows);
        }
        Ok(&self.0[path])
    }

    /// Whether a definition (not a module) is named at `at`.
    fn is_named_at(
        &mut self,
        store: &crate::store::Store,
        path: &str,
        at: Pos,
    ) -> Result<bool, QueryError> {
        Ok(self
            .of(store, path)?
            .iter()
            .any(|n| n.kind != NodeKind::Module && n.line == at.line && n.column == at.column))
    }
}

/// The targets among `targets` that are no definition node of the graph
/// (a module's 1:1, a variable, a position inside a declaration): a server's
/// answer there is not the graph's business (see discovery in [`verify`]).
fn unmodelled_targets<'t>(
    store: &crate::store::Store,
    nodes: &mut FileNodes,
    targets: impl Iterator<Item = &'t (String, Pos)>,
) -> Result<Vec<(String, Pos)>, QueryError> {
    let mut out = Vec::new();
    for (path, pos) in targets {
        let defs = nodes
            .of(store, path)?
            .iter()
            .filter(|n| n.kind != NodeKind::Module);
        let at = defs
            .clone()
            .any(|n| n.line == pos.line && n.column == pos.column);
        // The one definition on the line, at a position up to its name
        // (`def`, `pub fn`): a server's start of the definition. Past the
        // name stand its parameters (a pytest test's fixture arguments),
        // which are no nodes.
        let on_line: Vec<_> = defs.filter(|n| n.line == pos.line).collect();
        let before_name = matches!(on_line.as_slice(), [n] if pos.column <= n.column);
        if !(at || before_name) {
            out.push((path.clone(), *pos));
        }
    }
    Ok(out)
}

/// Whether every in-repo answer among `rows` lies at no node of the graph
/// (see [`unmodelled_targets`]; a module, at 1:1, is a node here: a site
/// naming it has an edge).
fn unmodelled_only(
    store: &crate::store::Store,
    nodes: &mut FileNodes,
    rows: &[Outcome],
) -> Result<bool, QueryError> {
    let targets: Vec<(String, Pos)> = rows.iter().filter_map(Outcome::target).collect();
    if targets.iter().any(|(_, p)| p.line == 1 && p.column == 1) {
        return Ok(false);
    }
    Ok(unmodelled_targets(store, nodes, targets.iter())?.len() == targets.len())
}

#[cfg(test)]
mod discovery_tests {
    use super::*;

    #[test]
    fn discovery_skips_targets_that_are_no_definition() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("pay.py"),
            "import os\nLIMIT = 3\n\ndef charge(x):\n    return x\n",
        )
        .unwrap();
        let (mut store, _) = crate::index::open(root).unwrap();
        crate::index::update(root, &mut store, &Default::default()).unwrap();
        let at = |line, column| ("pay.py".to_string(), Pos { line, column });
        // The module's node (1:1, where `import os` stands), the constant
        // (no node), the function's name, its `def` keyword, and its
        // parameter (no node, on the function's line).
        let targets = [at(1, 1), at(2, 1), at(4, 5), at(4, 1), at(4, 12)];
        let skipped =
            unmodelled_targets(&store, &mut FileNodes::default(), targets.iter()).unwrap();
        assert_eq!(skipped, vec![at(1, 1), at(2, 1), at(4, 12)]);
        // An unresolved site the server resolves: to the constant only, no
        // edge could stand; to the module or the function, one could.
        let rows = |ats: &[(u32, u32)]| -> Vec<Outcome> {
            ats.iter()
                .map(|&(line, column)| Outcome::Target {
                    path: "pay.py".into(),
                    hash: String::new(),
                    line,
                    column,
                })
                .collect()
        };
        let only = |ats: &[(u32, u32)]| {
            unmodelled_only(&store, &mut FileNodes::default(), &rows(ats)).unwrap()
        };
        assert!(only(&[(2, 1)]));
        assert!(!only(&[(1, 1)]));
        assert!(!only(&[(2, 1), (4, 5)]));
        assert!(!only(&[(4, 1)]));
    }

    #[test]
    fn references_are_skipped_to_the_type_they_name() {
        // itertools' `impl IntoIterator for &'a ChunkBy<K, I, F>`:
        // rust-analyzer answers `Self` with the `&` (column 36).
        let text = "impl<'a, K, I, F> IntoIterator for &'a ChunkBy<K, I, F> {}\nimpl X for &mut Y {}\nimpl X for Z {}\n";
        let at = |line, column| Pos { line, column };
        assert_eq!(past_reference(text, at(1, 36)), at(1, 40));
        assert_eq!(past_reference(text, at(2, 12)), at(2, 17));
        assert_eq!(past_reference(text, at(3, 12)), at(3, 12));
        assert_eq!(past_reference(text, at(9, 1)), at(9, 1));
    }

    #[test]
    fn self_is_told_from_names_starting_with_it() {
        let text = "impl A {\n    fn new() -> Self { Selfish }\n}\n";
        assert!(is_self_keyword(
            text,
            Pos {
                line: 2,
                column: 17
            }
        ));
        assert!(!is_self_keyword(
            text,
            Pos {
                line: 2,
                column: 24
            }
        ));
        assert!(!is_self_keyword(text, Pos { line: 9, column: 1 }));
    }

    #[test]
    fn implementing_methods_are_known_to_the_graph() {
        // rust-analyzer names `fn step` of `impl Walk for Fast` among the
        // references of `Walk::step` (itertools: 52 such "discovered"
        // references, http: 25): the graph has it as an `implements` edge.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"w\"\n").unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(
            root.join("src/lib.rs"),
            "pub trait Walk {\n    fn step(&self);\n}\npub struct Fast;\nimpl Walk for Fast {\n    fn step(&self) {}\n}\n",
        )
        .unwrap();
        let (mut store, _) = crate::index::open(root).unwrap();
        crate::index::update(root, &mut store, &Default::default()).unwrap();
        let mut nodes = FileNodes::default();
        let at = |line, column| Pos { line, column };
        // The implementing method's name is a definition: no reference.
        assert!(nodes.is_named_at(&store, "src/lib.rs", at(6, 8)).unwrap());
        // `Walk` in `impl Walk for Fast` is one.
        assert!(!nodes.is_named_at(&store, "src/lib.rs", at(5, 6)).unwrap());
    }

    #[test]
    fn declarations_are_no_discovered_references() {
        // Regression (click, attrs): pyright names the other signatures of
        // an overload set and a property's setter among the references;
        // they were recorded as `calls` edges the graph "missed".
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("m.py"),
            "class C:\n    @property\n    def x(self): ...\n    @x.setter\n    def x(self, v): ...\n",
        )
        .unwrap();
        let (mut store, _) = crate::index::open(root).unwrap();
        crate::index::update(root, &mut store, &Default::default()).unwrap();
        let mut names = FileNodes::default();
        let at = |line, column| Pos { line, column };
        assert!(names.is_named_at(&store, "m.py", at(5, 9)).unwrap());
        assert!(names.is_named_at(&store, "m.py", at(3, 9)).unwrap());
        // `@x.setter` names the getter: a reference.
        assert!(!names.is_named_at(&store, "m.py", at(4, 6)).unwrap());
        // The module's node is no declaration of anything.
        assert!(!names.is_named_at(&store, "m.py", at(1, 1)).unwrap());
    }
}
