//! The pool: one session per (server, workspace root), started lazily on first
//! need, restarted with backoff after a crash or hang, given up on after
//! `max_restarts` consecutive failures.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::install::{self, ServerStatus};
use super::session::{Session, SessionConfig, Stats, TextDoc};
use super::spec::ServerSpec;
use super::{Document, Found, IncomingCall, LspConfig, LspError, ServerState};
use crate::extract::Lang;
use crate::graph::Pos;

/// Language servers for a set of workspaces. Cheap to share by reference; all
/// request methods take `&self` and may run concurrently.
pub struct Pool {
    cfg: LspConfig,
    entries: Mutex<HashMap<(String, PathBuf), Arc<Entry>>>,
    found: Mutex<HashMap<String, ServerStatus>>,
    /// Paths as asked → canonical paths: every request names a root and a
    /// file, and resolving them costs a few system calls each.
    canonical: Mutex<HashMap<PathBuf, PathBuf>>,
}

/// Canonical paths remembered per pool (all forgotten when it is full).
const MAX_CANONICAL: usize = 4096;

struct Entry {
    slot: tokio::sync::Mutex<Slot>,
    state: Arc<Mutex<ServerState>>,
    /// The running session, also readable while a start holds `slot`.
    live: Mutex<Option<Arc<Session>>>,
    /// Last use, for evicting the least recently used session beyond the cap.
    used: Mutex<Instant>,
}

/// Puts the state back when a start is abandoned (its future dropped at a
/// deadline): the half-started session is dropped, and killed, with it.
struct StartGuard {
    state: Arc<Mutex<ServerState>>,
    armed: bool,
}

impl Drop for StartGuard {
    fn drop(&mut self) {
        if self.armed {
            let mut st = self.state.lock().unwrap();
            if *st == ServerState::Starting {
                *st = ServerState::NotStarted;
            }
        }
    }
}

#[derive(Default)]
struct Slot {
    session: Option<Arc<Session>>,
    /// Consecutive failures (start failures, or crashes before any answer).
    failures: u32,
    restarts: u32,
    next_attempt: Option<Instant>,
    gave_up: Option<String>,
}

fn lang_id(lang: Lang, path: &Path) -> &'static str {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match lang {
        Lang::Python => "python",
        Lang::TypeScript => "typescript",
        Lang::Tsx => "typescriptreact",
        Lang::JavaScript if ext == "jsx" => "javascriptreact",
        Lang::JavaScript => "javascript",
        Lang::Rust => "rust",
    }
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// A ready session and the document a request is about, as the server knows it.
struct Prepared {
    session: Arc<Session>,
    /// Canonical.
    file: PathBuf,
    lang_id: &'static str,
}

impl Prepared {
    fn doc<'a>(&'a self, text: &'a str) -> TextDoc<'a> {
        TextDoc::new(&self.file, self.lang_id, text)
    }
}

impl Pool {
    pub fn new(cfg: LspConfig) -> Pool {
        Pool {
            cfg,
            entries: Mutex::new(HashMap::new()),
            found: Mutex::new(HashMap::new()),
            canonical: Mutex::new(HashMap::new()),
        }
    }

    pub fn config(&self) -> &LspConfig {
        &self.cfg
    }

    fn spec(&self, lang: Lang) -> Result<&ServerSpec, LspError> {
        self.cfg.spec_for(lang).ok_or_else(|| LspError::NoServer {
            lang: lang.as_str().into(),
        })
    }

    /// Discovery, once per server name (it runs `--version` probes).
    fn discover(&self, spec: &ServerSpec) -> ServerStatus {
        if let Some(s) = self.found.lock().unwrap().get(&spec.name) {
            return s.clone();
        }
        let s = install::find(spec, &self.cfg.prefix);
        self.found
            .lock()
            .unwrap()
            .insert(spec.name.clone(), s.clone());
        s
    }

    async fn discover_async(&self, spec: &ServerSpec) -> ServerStatus {
        if let Some(s) = self.found.lock().unwrap().get(&spec.name) {
            return s.clone();
        }
        let (spec2, prefix) = (spec.clone(), self.cfg.prefix.clone());
        let s = tokio::task::spawn_blocking(move || install::find(&spec2, &prefix))
            .await
            .unwrap_or_else(|e| panic!("server discovery panicked: {e}"));
        self.found
            .lock()
            .unwrap()
            .insert(spec.name.clone(), s.clone());
        s
    }

    /// `"<server>@<version>"` for an edge's `lsp:` source; `None` when no server
    /// is found for `lang`.
    pub fn server_id(&self, lang: Lang) -> Option<String> {
        let spec = self.cfg.spec_for(lang)?;
        let st = self.discover(spec);
        st.found.then(|| {
            format!(
                "{}@{}",
                spec.name,
                st.version.as_deref().unwrap_or("unknown")
            )
        })
    }

    /// The state of the server for `lang` at `root`.
    pub fn state(&self, lang: Lang, root: &Path) -> ServerState {
        let Ok(spec) = self.spec(lang) else {
            return ServerState::Unavailable {
                reason: format!("no language server is configured for {}", lang.as_str()),
            };
        };
        let key = (spec.name.clone(), canonical(root));
        if let Some(e) = self.entries.lock().unwrap().get(&key) {
            return e.state.lock().unwrap().clone();
        }
        let st = self.discover(spec);
        if st.found {
            ServerState::NotStarted
        } else {
            ServerState::NotInstalled {
                hint: st.install_hint,
            }
        }
    }

    /// Requests, time waited and time to readiness of the running session
    /// for `lang` at `root`, if one runs.
    pub fn stats(&self, lang: Lang, root: &Path) -> Option<Stats> {
        let spec = self.spec(lang).ok()?;
        let key = (spec.name.clone(), canonical(root));
        let entry = self.entries.lock().unwrap().get(&key).cloned()?;
        let live = entry.live.lock().unwrap().clone();
        live.map(|s| s.stats())
    }

    /// The roots with a running (or starting) session of the server for `lang`, sorted.
    pub fn live_roots(&self, lang: Lang) -> Vec<PathBuf> {
        let Ok(spec) = self.spec(lang) else {
            return Vec::new();
        };
        let mut v: Vec<PathBuf> = self
            .entries
            .lock()
            .unwrap()
            .iter()
            .filter(|((name, _), e)| {
                name == &spec.name
                    && matches!(
                        *e.state.lock().unwrap(),
                        ServerState::Ready | ServerState::Starting
                    )
            })
            .map(|((_, root), _)| root.clone())
            .collect();
        v.sort();
        v
    }

    /// Make room for one more session of `spec` (beside `keep`): shut down the
    /// least recently used ready ones beyond `max_sessions - 1`.
    fn evict_for(&self, spec: &ServerSpec, keep: &Path) {
        let max = spec.max_sessions.max(1);
        let mut others: Vec<(Instant, Arc<Entry>, PathBuf)> = self
            .entries
            .lock()
            .unwrap()
            .iter()
            .filter(|((name, root), e)| {
                name == &spec.name
                    && root != keep
                    && matches!(
                        *e.state.lock().unwrap(),
                        ServerState::Ready | ServerState::Starting
                    )
            })
            .map(|((_, root), e)| (*e.used.lock().unwrap(), e.clone(), root.clone()))
            .collect();
        if others.len() < max {
            return;
        }
        others.sort_by_key(|(used, _, _)| *used);
        let mut excess = others.len() + 1 - max;
        for (_, e, root) in others {
            if excess == 0 {
                break;
            }
            // A session being started is not evictable.
            let Ok(mut slot) = e.slot.try_lock() else {
                continue;
            };
            let Some(session) = slot.session.take() else {
                continue;
            };
            *e.live.lock().unwrap() = None;
            *e.state.lock().unwrap() = ServerState::NotStarted;
            tracing::info!(
                server = %spec.name,
                root = %root.display(),
                max,
                "shutting down the least recently used session"
            );
            let grace = self.cfg.shutdown_grace;
            tokio::spawn(async move { session.close(grace).await });
            excess -= 1;
        }
    }

    pub async fn definition(&self, doc: Document<'_>, pos: Pos) -> Found {
        let p = self.prepare(doc).await?;
        p.session.definition(p.doc(doc.text), pos).await
    }

    pub async fn references(
        &self,
        doc: Document<'_>,
        pos: Pos,
        include_declaration: bool,
    ) -> Found {
        let p = self.prepare(doc).await?;
        let d = p.doc(doc.text);
        p.session.references(d, pos, include_declaration).await
    }

    /// The implementation behind the declaration named at `pos`, where the
    /// server has a command for it (typescript-language-server's
    /// `_typescript.goToSourceDefinition`); `Unsupported` elsewhere.
    pub async fn source_definition(&self, doc: Document<'_>, pos: Pos) -> Found {
        let p = self.prepare(doc).await?;
        p.session.source_definition(p.doc(doc.text), pos).await
    }

    /// `Unsupported` where the server has none (pyright).
    pub async fn implementation(&self, doc: Document<'_>, pos: Pos) -> Found {
        let p = self.prepare(doc).await?;
        p.session.implementation(p.doc(doc.text), pos).await
    }

    /// Callers of the function or method named at `pos` (`callHierarchy/incomingCalls`
    /// after `textDocument/prepareCallHierarchy`), sorted.
    pub async fn incoming_calls(&self, doc: Document<'_>, pos: Pos) -> Found<IncomingCall> {
        let p = self.prepare(doc).await?;
        p.session.incoming_calls(p.doc(doc.text), pos).await
    }

    /// A ready session for `doc`, with the file's canonical path and language id.
    async fn prepare(&self, doc: Document<'_>) -> Result<Prepared, LspError> {
        let root = self.canonical(doc.root);
        let file = if doc.file.is_absolute() {
            self.canonical(doc.file)
        } else {
            self.canonical(&root.join(doc.file))
        };
        let lang_id = lang_id(doc.lang, &file);
        let session = self
            .session(doc.lang, &root, TextDoc::new(&file, lang_id, doc.text))
            .await?;
        Ok(Prepared {
            session,
            file,
            lang_id,
        })
    }

    /// [`canonical`], remembered.
    fn canonical(&self, p: &Path) -> PathBuf {
        if let Some(c) = self.canonical.lock().unwrap().get(p) {
            return c.clone();
        }
        let c = canonical(p);
        let mut map = self.canonical.lock().unwrap();
        if map.len() >= MAX_CANONICAL {
            map.clear();
        }
        map.insert(p.to_path_buf(), c.clone());
        c
    }

    fn entry(&self, name: &str, root: &Path) -> Arc<Entry> {
        self.entries
            .lock()
            .unwrap()
            .entry((name.to_string(), root.to_path_buf()))
            .or_insert_with(|| {
                Arc::new(Entry {
                    slot: tokio::sync::Mutex::new(Slot::default()),
                    state: Arc::new(Mutex::new(ServerState::NotStarted)),
                    live: Mutex::new(None),
                    used: Mutex::new(Instant::now()),
                })
            })
            .clone()
    }

    fn backoff(&self, failures: u32) -> Duration {
        let exp = failures.saturating_sub(1).min(16);
        (self.cfg.backoff_base * 2u32.pow(exp)).min(self.cfg.backoff_max)
    }

    /// A ready session for (server of `lang`, `root`), starting or restarting it.
    async fn session(
        &self,
        lang: Lang,
        root: &Path,
        doc: TextDoc<'_>,
    ) -> Result<Arc<Session>, LspError> {
        let spec = self.spec(lang)?;
        let entry = self.entry(&spec.name, root);
        *entry.used.lock().unwrap() = Instant::now();
        // Waiting callers queue behind a start; bound the wait like the start itself.
        let lock_wait = spec.startup_timeout() + spec.request_timeout();
        let mut slot = tokio::time::timeout(lock_wait, entry.slot.lock())
            .await
            .map_err(|_| LspError::Unavailable {
                server: spec.name.clone(),
                reason: format!("still starting after {}s", lock_wait.as_secs_f64()),
            })?;
        if let Some(s) = &slot.session {
            if s.is_alive() {
                return Ok(s.clone());
            }
            // It died: count it, close what is left in the background.
            let dead = slot.session.take().unwrap();
            *entry.live.lock().unwrap() = None;
            slot.failures = if dead.answered.load(Ordering::Relaxed) {
                1
            } else {
                slot.failures + 1
            };
            slot.next_attempt = Some(Instant::now() + self.backoff(slot.failures));
            *entry.state.lock().unwrap() = ServerState::Crashed {
                restarts: slot.restarts,
            };
            let grace = self.cfg.shutdown_grace;
            tokio::spawn(async move { dead.close(grace).await });
        }
        if let Some(reason) = &slot.gave_up {
            return Err(LspError::Unavailable {
                server: spec.name.clone(),
                reason: reason.clone(),
            });
        }
        if slot.failures > self.cfg.max_restarts {
            let reason = format!("gave up after {} failures in a row", slot.failures);
            slot.gave_up = Some(reason.clone());
            *entry.state.lock().unwrap() = ServerState::Unavailable {
                reason: reason.clone(),
            };
            return Err(LspError::Unavailable {
                server: spec.name.clone(),
                reason,
            });
        }
        if let Some(at) = slot.next_attempt {
            let wait = at.saturating_duration_since(Instant::now());
            if wait > spec.request_timeout() {
                return Err(LspError::Unavailable {
                    server: spec.name.clone(),
                    reason: format!("restarting in {:.1}s", wait.as_secs_f64()),
                });
            }
            tokio::time::sleep(wait).await;
        }
        let requested = Instant::now();
        let status = self.discover_async(spec).await;
        let Some(program) = status.path.clone().filter(|_| status.found) else {
            *entry.state.lock().unwrap() = ServerState::NotInstalled {
                hint: status.install_hint.clone(),
            };
            return Err(LspError::NotInstalled {
                server: spec.name.clone(),
                hint: status.install_hint,
            });
        };
        if slot.failures > 0 {
            slot.restarts += 1;
        }
        self.evict_for(spec, root);
        *entry.state.lock().unwrap() = ServerState::Starting;
        let mut guard = StartGuard {
            state: entry.state.clone(),
            armed: true,
        };
        let started = Instant::now();
        let res = async {
            let session = Session::start(SessionConfig {
                spec: Arc::new(spec.clone()),
                program,
                root: root.to_path_buf(),
                trust: self.cfg.trust,
                cache_dir: self.cfg.cache_dir.clone(),
                fallback: spec.fallback_at(root).cloned(),
                import_roots: self
                    .cfg
                    .import_roots
                    .iter()
                    .filter(|r| !r.starts_with(root))
                    .cloned()
                    .collect(),
                requested,
            })
            .await?;
            session.sync_doc(doc).await?;
            if let Err(e) = session.wait_ready().await {
                session.kill();
                return Err(e);
            }
            Ok(session)
        }
        .await;
        guard.armed = false;
        match res {
            Ok(session) => {
                tracing::info!(
                    server = %spec.name,
                    root = %root.display(),
                    secs = started.elapsed().as_secs_f64(),
                    "ready"
                );
                let session = Arc::new(session);
                slot.session = Some(session.clone());
                *entry.live.lock().unwrap() = Some(session.clone());
                slot.next_attempt = None;
                *entry.state.lock().unwrap() = ServerState::Ready;
                // Reflect a later death in `state()` without waiting for a request.
                let (dead, state, restarts) = (session.dead(), entry.state.clone(), slot.restarts);
                tokio::spawn(async move {
                    dead.await;
                    let mut st = state.lock().unwrap();
                    if *st == ServerState::Ready {
                        *st = ServerState::Crashed { restarts };
                    }
                });
                Ok(session)
            }
            Err(e) => {
                slot.failures += 1;
                slot.next_attempt = Some(Instant::now() + self.backoff(slot.failures));
                *entry.state.lock().unwrap() = ServerState::Crashed {
                    restarts: slot.restarts,
                };
                tracing::warn!(server = %spec.name, "start failed: {e}");
                Err(e)
            }
        }
    }

    /// Forget the server for `lang` at `root` (also an `Unavailable` one): the next
    /// request starts it afresh. A running session is shut down in the background.
    pub fn reset(&self, lang: Lang, root: &Path) {
        let Ok(spec) = self.spec(lang) else { return };
        self.found.lock().unwrap().remove(&spec.name);
        let entry = self
            .entries
            .lock()
            .unwrap()
            .remove(&(spec.name.clone(), canonical(root)));
        if let Some(entry) = entry {
            let grace = self.cfg.shutdown_grace;
            *entry.live.lock().unwrap() = None;
            tokio::spawn(async move {
                if let Some(s) = entry.slot.lock().await.session.take() {
                    s.close(grace).await;
                }
            });
        }
    }

    /// shutdown/exit every server, killing those that do not exit in time.
    pub async fn shutdown(self) {
        let entries: Vec<Arc<Entry>> = self.entries.lock().unwrap().values().cloned().collect();
        let grace = self.cfg.shutdown_grace;
        let closes = entries.into_iter().map(|e| async move {
            let session = e.slot.lock().await.session.take();
            *e.live.lock().unwrap() = None;
            if let Some(s) = session {
                s.close(grace).await;
            }
            *e.state.lock().unwrap() = ServerState::NotStarted;
        });
        futures::future::join_all(closes).await;
    }
}
