//! Background verification (DESIGN §4): the sites a tool call had to leave
//! unchecked — its budget ran out, or the tool answers from the graph alone —
//! are verified afterwards with the server's warm language servers, so a
//! later call finds them `verified` (or retargeted, or refuted).
//!
//! One worker task at a time takes batches from a de-duplicated queue. Each
//! batch opens a fresh session (the index brought up to date first) and runs
//! the ordinary [`crate::verify::verify`] restricted to those sites: verdicts
//! are keyed by both files' hashes and recorded in one transaction, so a file
//! edited or re-indexed meanwhile (by this server or another process) only
//! makes them inapplicable, never wrong. Nothing holds the index writer lock
//! or the server's update gate while waiting on a language server.
//!
//! Calls that verify on the spot go first: the worker waits between batches
//! while one runs. Shutdown cancels the worker; a batch cancelled while
//! waiting on servers has written nothing.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::api::{BackgroundStatus, VerifyResult};
use crate::query::{QueryError, Session};
use crate::store::Outcome;

use super::Server;

/// A reference site: repository-relative path, line, column (1-based).
pub type SiteKey = (String, u32, u32);

/// Most sites one tool call adds to the queue.
pub const MAX_PER_CALL: usize = 5000;
/// Sites per batch. Each batch pays a fixed cost besides the server's
/// answers (an index update before, re-resolving the touched files after:
/// about 1–2 s of CPU on Django, measured), so batches are large; shutdown
/// does not wait for one, and calls verifying on the spot wait for nothing.
const BATCH: usize = 256;
/// Time budget of one batch (it includes starting a cold server).
const BATCH_BUDGET: Duration = Duration::from_secs(90);
/// How long shutdown waits for the worker to stop.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// The queue and its worker; one per MCP server.
#[derive(Default)]
pub struct Background {
    state: Mutex<State>,
    cancel: CancellationToken,
    /// Calls verifying on the spot right now.
    foreground: AtomicUsize,
}

#[derive(Default)]
struct State {
    queue: BTreeSet<SiteKey>,
    /// The batch being verified.
    batch: BTreeSet<SiteKey>,
    worker: Option<tokio::task::JoinHandle<()>>,
    running: bool,
    checked: usize,
    unanswered: usize,
    unchecked: usize,
    error: Option<String>,
}

/// Marks a call verifying on the spot while alive.
pub struct Foreground<'a>(&'a Background);

impl Drop for Foreground<'_> {
    fn drop(&mut self) {
        self.0.foreground.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Background {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The worker waits between batches while the returned guard lives.
    pub fn foreground(&self) -> Foreground<'_> {
        self.foreground.fetch_add(1, Ordering::SeqCst);
        Foreground(self)
    }

    /// Queue `sites` (at most [`MAX_PER_CALL`]) and start the worker if it
    /// is idle. Returns how many of them are queued or being verified.
    pub fn enqueue(&self, server: &Server, sites: Vec<SiteKey>) -> usize {
        if sites.is_empty() || self.cancel.is_cancelled() {
            return 0;
        }
        let mut st = self.lock();
        let mut n = 0;
        for s in sites.into_iter().take(MAX_PER_CALL) {
            if !st.batch.contains(&s) {
                st.queue.insert(s);
            }
            n += 1;
        }
        if !st.running {
            st.running = true;
            let server = server.clone();
            st.worker = Some(tokio::spawn(run(server)));
        }
        n
    }

    pub fn status(&self) -> BackgroundStatus {
        let st = self.lock();
        BackgroundStatus {
            queued: st.queue.len(),
            verifying: st.batch.len(),
            checked: st.checked,
            unanswered: st.unanswered,
            unchecked: st.unchecked,
            error: st.error.clone(),
        }
    }

    /// Stop the worker: no new batch starts; one waiting on servers is
    /// dropped before it writes anything.
    pub async fn shutdown(&self) {
        self.cancel.cancel();
        let worker = self.lock().worker.take();
        if let Some(mut w) = worker {
            if tokio::time::timeout(STOP_GRACE, &mut w).await.is_err() {
                tracing::warn!("background verification did not stop in time; aborting it");
                w.abort();
            }
        }
    }
}

/// The worker: batches until the queue is empty or the server shuts down.
async fn run(server: Server) {
    let bg = server.background.clone();
    loop {
        while bg.foreground.load(Ordering::SeqCst) > 0 && !bg.cancel.is_cancelled() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let batch: BTreeSet<SiteKey> = {
            let mut st = bg.lock();
            if bg.cancel.is_cancelled() || st.queue.is_empty() {
                st.running = false;
                st.batch.clear();
                return;
            }
            let mut batch = BTreeSet::new();
            while batch.len() < BATCH {
                let Some(s) = st.queue.pop_first() else { break };
                batch.insert(s);
            }
            st.batch = batch.clone();
            batch
        };
        tracing::debug!(sites = batch.len(), "background verification batch");
        let result = tokio::select! {
            _ = bg.cancel.cancelled() => {
                let mut st = bg.lock();
                st.running = false;
                st.batch.clear();
                return;
            }
            r = verify_batch(&server, batch) => r,
        };
        let mut st = bg.lock();
        st.batch.clear();
        match result {
            Ok(report) => {
                for l in report.languages.values() {
                    st.checked += l.checked;
                    st.unanswered += l.unanswered;
                    // Sites the budget left are dropped, not re-queued: the
                    // next call that meets them queues them again.
                    st.unchecked += l.unchecked;
                    if let Some(e) = &l.error {
                        st.error = Some(e.clone());
                    }
                }
                if report.languages.values().all(|l| l.error.is_none()) {
                    st.error = None;
                }
            }
            Err(e) => {
                tracing::warn!("background verification failed: {e}");
                st.error = Some(e.to_string());
            }
        }
    }
}

async fn verify_batch(
    server: &Server,
    sites: BTreeSet<SiteKey>,
) -> Result<VerifyResult, QueryError> {
    let this = server.clone();
    let mut session = tokio::task::spawn_blocking(move || this.open())
        .await
        .map_err(|e| QueryError::BadInput(format!("background verification failed: {e}")))??;
    let pool = server.pool(crate::verify::lsp_config(&session)).await?;
    let opts = crate::verify::VerifyOptions {
        budget: BATCH_BUDGET,
        discover: false,
        sites: Some(sites),
        ..crate::verify::VerifyOptions::default()
    };
    crate::verify::verify(&mut session, pool, &opts).await
}

/// The sites among `sites` no language server has judged for the current
/// content of their file (and of the target it named): what is worth
/// queueing. Sites in files the index does not know are left out.
pub fn unchecked(
    session: &Session,
    sites: impl IntoIterator<Item = SiteKey>,
) -> Result<Vec<SiteKey>, QueryError> {
    let mut sites = sites.into_iter().peekable();
    if sites.peek().is_none() {
        return Ok(Vec::new());
    }
    let hashes = session.store.file_hashes()?;
    let mut judged: HashMap<String, HashSet<(u32, u32)>> = HashMap::new();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (path, line, column) in sites {
        let Some(hash) = hashes.get(&path) else {
            continue;
        };
        if !judged.contains_key(&path) {
            // A verdict naming a target whose file changed since is stale.
            let mut stale = HashSet::new();
            let mut fresh = HashSet::new();
            for v in session.store.verdicts_for(&path, hash)? {
                let current = match &v.outcome {
                    Outcome::Target { path, hash, .. } => hashes.get(path) == Some(hash),
                    Outcome::External | Outcome::None => true,
                };
                if current {
                    fresh.insert((v.line, v.column));
                } else {
                    stale.insert((v.line, v.column));
                }
            }
            judged.insert(path.clone(), fresh.difference(&stale).copied().collect());
        }
        if judged[&path].contains(&(line, column)) {
            continue;
        }
        let key = (path, line, column);
        if seen.insert(key.clone()) {
            out.push(key);
        }
    }
    Ok(out)
}

/// Whether a stored edge is a guess a language server could still judge.
fn guessed(link: &crate::store::Link, min: f64) -> bool {
    link.confidence < min
        && matches!(
            link.status,
            crate::graph::Status::Syntactic | crate::graph::Status::Inferred
        )
}

/// The node id of each key (the first definition with that key).
fn id_of(
    session: &Session,
    ids: &mut HashMap<String, Option<i64>>,
    key: &str,
) -> Result<Option<i64>, QueryError> {
    if let Some(id) = ids.get(key) {
        return Ok(*id);
    }
    let id = session.store.nodes_by_key(key)?.first().map(|n| n.id);
    ids.insert(key.to_string(), id);
    Ok(id)
}

/// `find_referencing_symbols`: the sites still below the threshold.
pub fn refs_sites(r: &crate::api::RefsResult) -> Vec<SiteKey> {
    let min = r.verification.min_confidence;
    r.results
        .iter()
        .filter(|i| i.confidence < min)
        .map(|i| (i.file.clone(), i.line, i.column))
        .collect()
}

/// Callers and callees: the sites of the guessed edges (below the
/// threshold) along the paths of the items below it.
pub fn call_sites(
    session: &Session,
    r: &crate::api::CallsResult,
) -> Result<Vec<SiteKey>, QueryError> {
    let min = r.verification.min_confidence;
    let mut pairs: BTreeSet<(String, String)> = BTreeSet::new();
    for item in r.results.iter().filter(|i| i.confidence < min) {
        for w in item.path.windows(2) {
            pairs.insert((w[0].clone(), w[1].clone()));
        }
    }
    let mut ids = HashMap::new();
    let mut out = Vec::new();
    for (a, b) in pairs {
        let (Some(a), Some(b)) = (id_of(session, &mut ids, &a)?, id_of(session, &mut ids, &b)?)
        else {
            continue;
        };
        // Either direction: callers walk b -> a, callees a -> b.
        let links = session
            .store
            .links_from(b)?
            .into_iter()
            .filter(|l| l.dst == a);
        let back = session
            .store
            .links_from(a)?
            .into_iter()
            .filter(|l| l.dst == b);
        for l in links.chain(back) {
            if let (true, Some(site)) = (guessed(&l, min), l.site) {
                out.push(site);
            }
            if out.len() >= MAX_PER_CALL {
                return Ok(out);
            }
        }
    }
    Ok(out)
}

/// `blast_radius`: the sites of the guessed edges into the changed and
/// impacted symbols that were left out (not followed).
pub fn blast_sites(
    session: &Session,
    r: &crate::api::BlastRadius,
) -> Result<Vec<SiteKey>, QueryError> {
    if r.edges_left_out == 0 {
        return Ok(Vec::new());
    }
    let min = r.verification.min_confidence;
    let keys: BTreeSet<&str> = r
        .changed
        .iter()
        .map(|c| c.symbol.key.as_str())
        .chain(r.impacted.iter().map(|i| i.symbol.key.as_str()))
        .collect();
    let mut ids = HashMap::new();
    let mut out = Vec::new();
    for key in keys {
        let Some(id) = id_of(session, &mut ids, key)? else {
            continue;
        };
        for l in session.store.links_to(id)? {
            if let (true, Some(site)) = (guessed(&l, min), l.site) {
                out.push(site);
            }
        }
        if out.len() >= MAX_PER_CALL {
            break;
        }
    }
    Ok(out)
}

/// `verify_edges`: the guessed edges and unresolved sites under `paths`
/// (all when empty) below `min`.
pub fn sweep_sites(
    session: &Session,
    min: f64,
    paths: &[String],
) -> Result<Vec<SiteKey>, QueryError> {
    let under = |path: &str| {
        paths.is_empty()
            || paths.iter().any(|p| {
                let p = p.trim_end_matches('/');
                p.is_empty() || p == "." || path == p || path.starts_with(&format!("{p}/"))
            })
    };
    let mut out: Vec<SiteKey> = session
        .store
        .unverified_edges(min)?
        .into_iter()
        .filter(|e| under(&e.site_path))
        .map(|e| (e.site_path, e.line, e.column))
        .collect();
    out.extend(
        session
            .store
            .all_unresolved()?
            .into_iter()
            .filter(|u| under(&u.file))
            .map(|u| (u.file, u.line, u.column)),
    );
    out.sort();
    out.dedup();
    Ok(out)
}
