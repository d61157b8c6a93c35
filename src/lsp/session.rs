//! One running server for one workspace root: the async-lsp main loop, the
//! initialize handshake, readiness tracking, document sync and requests with
//! timeouts.
//!
//! Life: [`Session::start`] spawns and initializes; the caller opens a document
//! and awaits [`Session::wait_ready`] (the server's own signal, bounded by the
//! startup timeout); requests are then pipelined over clones of the socket. When
//! the stream ends (EOF, crash, malformed frame) the main loop stops and every
//! pending request fails at once with [`LspError::ServerExited`].

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_lsp::lsp_types::{self as lt, notification as ln, request as lr, Url};
use async_lsp::{ErrorCode, MainLoop, ServerSocket};
use futures::FutureExt;
use tokio::sync::watch;
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};
use tower::ServiceBuilder;

use super::client::{build_router, capabilities, Shared, Stop, Track};
use super::convert::{self, Encoding, Text};
use super::process;
use super::spec::{self, Readiness, ServerSpec};
use super::{Found, IncomingCall, Location, LspError};
use crate::graph::Pos;

/// Documents kept open per session; the least recently used is closed beyond this.
const MAX_OPEN_DOCS: usize = 256;
/// Files read from disk for position conversion kept per session (all are
/// dropped when it is full: definitions land in a project's few hub files).
const MAX_DISK_TEXTS: usize = 1024;
/// `ContentModified` answers are retried this many times.
const CONTENT_MODIFIED_RETRIES: u32 = 3;

/// What a session needs to start.
pub struct SessionConfig {
    pub spec: Arc<ServerSpec>,
    pub program: PathBuf,
    pub root: PathBuf,
    pub trust: bool,
    pub cache_dir: PathBuf,
    /// Declare this project at the root (it has no project file of its own).
    pub fallback: Option<spec::ProjectFallback>,
    /// The repository's import roots outside `root`, for the spec's
    /// `import_roots_setting`.
    pub import_roots: Vec<PathBuf>,
    /// When the session was first needed (before finding the server's binary
    /// and probing its version): [`Stats::ready_after`] counts from here.
    pub requested: Instant,
}

/// Requests a session answered and the time spent waiting for them
/// (request sent → answer), for overhead measurements.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    pub requests: u64,
    pub waited: Duration,
    /// First needed → ready (finding and probing the binary, spawning,
    /// initializing, loading).
    pub ready_after: Option<Duration>,
}

/// A document a request is about, as the session syncs it: its canonical
/// path, language id and text.
#[derive(Clone, Copy, Debug)]
pub struct TextDoc<'a> {
    pub path: &'a Path,
    pub lang_id: &'a str,
    pub text: &'a str,
}

impl<'a> TextDoc<'a> {
    pub fn new(path: &'a Path, lang_id: &'a str, text: &'a str) -> TextDoc<'a> {
        TextDoc {
            path,
            lang_id,
            text,
        }
    }
}

struct Doc {
    version: i32,
    text: Arc<Text>,
    used: u64,
}

/// A file read from disk to convert the positions a server answered in it,
/// kept while its size and modification time stay the same.
struct DiskText {
    stamp: (u64, Option<std::time::SystemTime>),
    text: Arc<Text>,
}

#[derive(Default)]
struct Docs {
    open: HashMap<Url, Doc>,
    tick: u64,
}

/// A request's answer, still to come.
type Reply<T> = futures::future::BoxFuture<'static, Result<T, async_lsp::Error>>;

/// Where a session's requests go out. async-lsp numbers outgoing requests 0,
/// 1, 2, … in the order they reach its main loop, and does not tell the
/// caller which number a request got; sending every request of a session
/// through here, one at a time, keeps a count in step with it, so a request
/// given up on can be cancelled by its id.
#[derive(Clone)]
struct Outgoing {
    socket: ServerSocket,
    next_id: Arc<Mutex<i32>>,
}

impl Outgoing {
    /// Queue a request on the main loop; its id and its answer.
    fn send<R>(&self, params: R::Params) -> (i32, Reply<R::Result>)
    where
        R: lr::Request,
    {
        let socket = self.socket.clone();
        let mut fut: Reply<R::Result> = Box::pin(async move { socket.request::<R>(params).await });
        let mut next = self.next_id.lock().unwrap();
        let id = *next;
        // The first poll puts the request on the main loop's queue (the rest
        // waits for the answer): done under the lock, so ids follow the queue.
        let first = fut.as_mut().poll(&mut std::task::Context::from_waker(
            futures::task::noop_waker_ref(),
        ));
        *next += 1;
        drop(next);
        match first {
            std::task::Poll::Pending => (id, fut),
            std::task::Poll::Ready(r) => (id, Box::pin(std::future::ready(r))),
        }
    }
}

/// Sends `$/cancelRequest` for a request when dropped armed: the request
/// timed out, or the caller stopped waiting for it.
struct CancelOnDrop<'a> {
    socket: &'a ServerSocket,
    /// Requests in flight, this one included until it is dropped.
    in_flight: &'a AtomicUsize,
    id: i32,
    method: &'static str,
    server: &'a str,
    armed: bool,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        self.in_flight.fetch_sub(1, Ordering::Relaxed);
        if self.armed {
            tracing::debug!(server = %self.server, id = self.id, method = self.method, "cancelling a request given up on");
            let _ = self.socket.notify::<ln::Cancel>(lt::CancelParams {
                id: lt::NumberOrString::Number(self.id),
            });
        }
    }
}

pub struct Session {
    pub name: String,
    socket: ServerSocket,
    shared: Arc<Shared>,
    ready_rx: watch::Receiver<bool>,
    /// `Some(reason)` once the main loop has stopped.
    dead_rx: watch::Receiver<Option<String>>,
    caps: lt::ServerCapabilities,
    pub encoding: Encoding,
    docs: tokio::sync::Mutex<Docs>,
    disk: Mutex<HashMap<PathBuf, DiskText>>,
    child: Mutex<Option<tokio::process::Child>>,
    mainloop: Mutex<Option<tokio::task::JoinHandle<()>>>,
    stderr_tail: Arc<Mutex<std::collections::VecDeque<String>>>,
    stderr_done: Mutex<Option<tokio::task::JoinHandle<()>>>,
    started: Instant,
    requested: Instant,
    startup_timeout: Duration,
    request_timeout: Duration,
    /// For whole-workspace searches (references, incoming calls).
    search_timeout: Duration,
    hung_after: u32,
    /// The spec's `source_definition_command`.
    source_definition_command: Option<String>,
    timeouts_in_a_row: AtomicU32,
    /// When the server last answered a request: nanoseconds after `started`, 0 for never.
    last_answer_nanos: AtomicU64,
    /// Every request goes out through here (see [`Outgoing`]).
    outgoing: Outgoing,
    /// Requests sent and not answered or given up on yet.
    in_flight: AtomicUsize,
    hung: AtomicBool,
    /// The session answered at least one request.
    pub answered: AtomicBool,
    requests: AtomicU64,
    waited_nanos: AtomicU64,
    ready_after: Mutex<Option<Duration>>,
}

fn hash_text(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// `rustup default`'s toolchain, asked from `cwd` (outside any repository, so no
/// `rust-toolchain.toml` override applies).
fn rustup_default(cwd: &Path) -> Option<String> {
    let _ = std::fs::create_dir_all(cwd);
    let out = std::process::Command::new("rustup")
        .arg("default")
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let name = text.split_whitespace().next()?.to_string();
    tracing::debug!(toolchain = %name, "pinning RUSTUP_TOOLCHAIN for an untrusted workspace");
    Some(name)
}

pub fn file_url(path: &Path) -> Result<Url, LspError> {
    Url::from_file_path(path).map_err(|()| LspError::Path {
        path: path.to_path_buf(),
        reason: "not an absolute file path".into(),
    })
}

impl Session {
    /// Spawn the server, run initialize/initialized. Readiness is awaited
    /// separately ([`Session::wait_ready`]) since some servers only start after a
    /// didOpen.
    pub async fn start(cfg: SessionConfig) -> Result<Session, LspError> {
        let spec = cfg.spec.clone();
        let name = spec.name.clone();
        let started = Instant::now();
        let root_url = file_url(&cfg.root)?;
        let root_hash = format!("{:016x}", hash_text(&cfg.root.display().to_string()));
        let vars = spec::Vars {
            cache: cfg.cache_dir.display().to_string(),
            root_hash,
        };
        let mut settings = spec.effective_settings(cfg.trust, &vars);
        if let Some(path) = spec.import_roots_setting.as_deref() {
            spec::add_paths(&mut settings, path, &cfg.import_roots);
        }
        let init_options = spec.effective_init_options(cfg.trust, &vars);
        let folders = vec![lt::WorkspaceFolder {
            uri: root_url.clone(),
            name: cfg
                .root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "root".into()),
        }];
        let env = spec.effective_env(cfg.trust, &vars, || rustup_default(&cfg.cache_dir));
        let command = format!("{} {}", cfg.program.display(), spec.args.join(" "));
        let proc =
            process::spawn(&name, &cfg.program, &spec.args, &cfg.root, &env).map_err(|e| {
                LspError::StartFailed {
                    server: name.clone(),
                    reason: format!("`{command}` could not start: {e}"),
                }
            })?;

        let (ready_tx, ready_rx) = watch::channel(false);
        // A declared project reports no loading progress: its readiness is the
        // first diagnostics of a file we opened, after the project is open.
        let readiness = match &cfg.fallback {
            Some(_) => Readiness::Diagnostics { log_contains: None },
            None => spec.readiness.clone(),
        };
        let shared = Arc::new(Shared {
            readiness,
            track: Mutex::new(Track::default()),
            ready_tx,
            server: name.clone(),
        });
        let (mainloop, socket) = {
            let shared = shared.clone();
            let settings = settings.clone();
            let folders = folders.clone();
            MainLoop::new_client(move |socket| {
                ServiceBuilder::new()
                    .layer(async_lsp::tracing::TracingLayer::default())
                    .layer(async_lsp::panic::CatchUnwindLayer::default())
                    .layer(async_lsp::concurrency::ConcurrencyLayer::default())
                    .service(build_router(socket, shared, settings, folders))
            })
        };
        let (dead_tx, dead_rx) = watch::channel(None);
        let process::Process {
            child,
            stdin,
            stdout,
            stderr_tail,
            stderr_done,
        } = proc;
        let mainloop = {
            let name = name.clone();
            tokio::spawn(async move {
                let ret = mainloop
                    .run_buffered(stdout.compat(), stdin.compat_write())
                    .await;
                let reason = match ret {
                    Ok(()) => "stopped".to_string(),
                    Err(async_lsp::Error::Eof) => "the server closed its output (exited?)".into(),
                    Err(e) => e.to_string(),
                };
                tracing::info!(server = %name, "main loop ended: {reason}");
                let _ = dead_tx.send(Some(reason));
            })
        };

        let mut session = Session {
            name: name.clone(),
            socket: socket.clone(),
            shared,
            ready_rx,
            dead_rx,
            caps: lt::ServerCapabilities::default(),
            encoding: Encoding::Utf16,
            docs: tokio::sync::Mutex::new(Docs::default()),
            disk: Mutex::new(HashMap::new()),
            child: Mutex::new(Some(child)),
            mainloop: Mutex::new(Some(mainloop)),
            stderr_tail,
            stderr_done: Mutex::new(Some(stderr_done)),
            started,
            requested: cfg.requested.min(started),
            startup_timeout: spec.startup_timeout(),
            request_timeout: spec.request_timeout(),
            search_timeout: spec.search_timeout(),
            hung_after: spec.hung_after_timeouts.max(1),
            source_definition_command: spec.source_definition_command.clone(),
            timeouts_in_a_row: AtomicU32::new(0),
            last_answer_nanos: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            outgoing: Outgoing {
                socket: socket.clone(),
                next_id: Arc::new(Mutex::new(0)),
            },
            hung: AtomicBool::new(false),
            answered: AtomicBool::new(false),
            requests: AtomicU64::new(0),
            waited_nanos: AtomicU64::new(0),
            ready_after: Mutex::new(None),
        };

        #[allow(deprecated)] // root_uri/root_path: older servers still read them
        let params = lt::InitializeParams {
            process_id: Some(std::process::id()),
            root_path: Some(cfg.root.display().to_string()),
            root_uri: Some(root_url),
            initialization_options: (!init_options.as_object().is_some_and(|o| o.is_empty()))
                .then_some(init_options),
            capabilities: capabilities(),
            workspace_folders: Some(folders),
            client_info: Some(lt::ClientInfo {
                name: "refgraph".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            ..Default::default()
        };
        let remaining = session.startup_timeout.saturating_sub(started.elapsed());
        let init = match tokio::time::timeout(
            remaining,
            session.outgoing.send::<lr::Initialize>(params).1,
        )
        .await
        {
            Ok(Ok(init)) => init,
            Ok(Err(e)) => {
                return Err(LspError::StartFailed {
                    server: name,
                    reason: format!(
                        "initialize failed: {}{}",
                        session.describe_exit(&e),
                        session.stderr_suffix()
                    ),
                })
            }
            Err(_) => {
                return Err(LspError::StartTimeout {
                    server: name,
                    secs: session.startup_timeout.as_secs_f64(),
                    waiting_for: "the initialize response".into(),
                })
            }
        };
        session.encoding = Encoding::negotiated(init.capabilities.position_encoding.as_ref());
        session.caps = init.capabilities;
        tracing::info!(
            server = %name,
            version = ?init.server_info.as_ref().and_then(|i| i.version.clone()),
            encoding = ?session.encoding,
            "initialized"
        );
        let _ = session
            .socket
            .notify::<ln::Initialized>(lt::InitializedParams {});
        let _ = session
            .socket
            .notify::<ln::DidChangeConfiguration>(lt::DidChangeConfigurationParams { settings });
        if let Some(fallback) = &cfg.fallback {
            session.open_fallback_project(&cfg.root, fallback).await?;
        }
        session.shared.update(|_| {});
        Ok(session)
    }

    /// Declare every matching file under `root` as one project (tsserver's
    /// `openExternalProject`), so references reach files nobody opened.
    async fn open_fallback_project(
        &self,
        root: &Path,
        fallback: &spec::ProjectFallback,
    ) -> Result<(), LspError> {
        let files = project_files(root, fallback);
        tracing::info!(
            server = %self.name,
            root = %root.display(),
            files = files.len(),
            "no project file at the root: declaring an external project"
        );
        let mut options = spec::toml_to_json(&fallback.compiler_options);
        let conditions = std::fs::read_to_string(root.join("package.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .map(|v| source_conditions(&v))
            .unwrap_or_default();
        if !conditions.is_empty() {
            tracing::info!(server = %self.name, ?conditions, "the package's own source conditions resolve its self-imports");
            if let Some(o) = options.as_object_mut() {
                let mut all: Vec<serde_json::Value> = o
                    .get("customConditions")
                    .and_then(|c| c.as_array())
                    .cloned()
                    .unwrap_or_default();
                all.extend(conditions.into_iter().map(serde_json::Value::String));
                o.insert("customConditions".into(), serde_json::Value::Array(all));
            }
        }
        let project = serde_json::json!({
            "projectFileName": root.join("refgraph-external-project").display().to_string(),
            "rootFiles": files
                .iter()
                .map(|f| serde_json::json!({ "fileName": f.display().to_string() }))
                .collect::<Vec<_>>(),
            "options": options,
        });
        let params = lt::ExecuteCommandParams {
            command: "typescript.tsserverRequest".into(),
            arguments: vec!["openExternalProject".into(), project],
            work_done_progress_params: Default::default(),
        };
        let remaining = self.startup_timeout.saturating_sub(self.started.elapsed());
        match tokio::time::timeout(
            remaining,
            self.outgoing.send::<lr::ExecuteCommand>(params).1,
        )
        .await
        {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(LspError::StartFailed {
                server: self.name.clone(),
                reason: format!(
                    "declaring a project for {} (no tsconfig.json) failed: {}",
                    root.display(),
                    self.describe_exit(&e)
                ),
            }),
            Err(_) => Err(LspError::StartTimeout {
                server: self.name.clone(),
                secs: self.startup_timeout.as_secs_f64(),
                waiting_for: "the external project to open".into(),
            }),
        }
    }

    /// Requests answered, time spent waiting for them, time to readiness.
    pub fn stats(&self) -> Stats {
        Stats {
            requests: self.requests.load(Ordering::Relaxed),
            waited: Duration::from_nanos(self.waited_nanos.load(Ordering::Relaxed)),
            ready_after: *self.ready_after.lock().unwrap(),
        }
    }

    /// Wait for the server's readiness signal until the startup deadline.
    pub async fn wait_ready(&self) -> Result<(), LspError> {
        let deadline = self.started + self.startup_timeout;
        let mut ready = self.ready_rx.clone();
        let mut dead = self.dead_rx.clone();
        let wait = async {
            tokio::select! {
                r = ready.wait_for(|r| *r) => r.map(|_| ()).map_err(|_| ()),
                _ = dead.wait_for(|d| d.is_some()) => Err(()),
            }
        };
        match tokio::time::timeout_at(deadline.into(), wait).await {
            Ok(Ok(())) => {
                *self.ready_after.lock().unwrap() = Some(self.requested.elapsed());
                Ok(())
            }
            Ok(Err(())) => {
                self.drain_stderr().await;
                Err(self.exited("waiting for readiness"))
            }
            Err(_) => Err(LspError::StartTimeout {
                server: self.name.clone(),
                secs: self.startup_timeout.as_secs_f64(),
                waiting_for: self.waiting_for(),
            }),
        }
    }

    fn waiting_for(&self) -> String {
        let t = self.shared.track.lock().unwrap();
        match &self.shared.readiness {
            Readiness::Initialized => "initialization".into(),
            Readiness::Diagnostics { log_contains } => format!(
                "readiness (diagnostics seen: {}, log {:?} seen: {})",
                t.diagnostics,
                log_contains.as_deref().unwrap_or(""),
                t.log_seen
            ),
            Readiness::Progress { progress_title } => {
                format!("the end of progress {progress_title:?}")
            }
            Readiness::ServerStatus => format!(
                "experimental/serverStatus quiescent (quiescent: {}, open progress: {})",
                t.quiescent,
                t.progress.len()
            ),
        }
    }

    pub fn is_alive(&self) -> bool {
        self.dead_rx.borrow().is_none() && !self.hung.load(Ordering::Relaxed)
    }

    /// Resolves when the main loop stops (holds no reference to the session).
    pub fn dead(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut d = self.dead_rx.clone();
        async move {
            let _ = d.wait_for(|d| d.is_some()).await;
        }
    }

    /// Give the stderr reader a moment to collect a dying server's last words.
    async fn drain_stderr(&self) {
        let handle = self.stderr_done.lock().unwrap().take();
        if let Some(h) = handle {
            let _ = tokio::time::timeout(Duration::from_millis(500), h).await;
        }
    }

    fn stderr_suffix(&self) -> String {
        let t = process::tail_text(&self.stderr_tail);
        if t.is_empty() {
            String::new()
        } else {
            format!("; stderr: {t}")
        }
    }

    fn describe_exit(&self, e: &async_lsp::Error) -> String {
        match (e, self.dead_rx.borrow().as_ref()) {
            (async_lsp::Error::ServiceStopped, Some(reason)) => reason.clone(),
            _ => e.to_string(),
        }
    }

    fn exited(&self, during: &str) -> LspError {
        let reason = self
            .dead_rx
            .borrow()
            .clone()
            .unwrap_or_else(|| "the connection stopped".into());
        LspError::ServerExited {
            server: self.name.clone(),
            during: during.into(),
            reason: format!("{reason}{}", self.stderr_suffix()),
        }
    }

    /// Kill the process; the main loop then sees EOF and every pending request fails.
    pub fn kill(&self) {
        self.hung.store(true, Ordering::Relaxed);
        if let Some(child) = self.child.lock().unwrap().as_mut() {
            let _ = child.start_kill();
        }
    }

    /// Open `path` with `text`, or send the new text if it changed since;
    /// returns the document's text with its line index.
    pub async fn sync_doc(&self, doc: TextDoc<'_>) -> Result<Arc<Text>, LspError> {
        let TextDoc {
            path,
            lang_id,
            text,
        } = doc;
        let uri = file_url(path)?;
        let mut docs = self.docs.lock().await;
        docs.tick += 1;
        let tick = docs.tick;
        let (sent, doc_text) = match docs.open.get_mut(&uri) {
            // Compared, not hashed: every request syncs its file, and a memcmp
            // of an unchanged text is far cheaper than hashing it.
            Some(doc) if doc.text.as_str() == text => {
                doc.used = tick;
                (Ok(()), doc.text.clone())
            }
            Some(doc) => {
                doc.version += 1;
                doc.text = Arc::new(Text::new(text));
                doc.used = tick;
                let doc_text = doc.text.clone();
                let sent = self.socket.notify::<ln::DidChangeTextDocument>(
                    lt::DidChangeTextDocumentParams {
                        text_document: lt::VersionedTextDocumentIdentifier {
                            uri: uri.clone(),
                            version: doc.version,
                        },
                        content_changes: vec![lt::TextDocumentContentChangeEvent {
                            range: None,
                            range_length: None,
                            text: text.into(),
                        }],
                    },
                );
                (sent, doc_text)
            }
            None => {
                if docs.open.len() >= MAX_OPEN_DOCS {
                    if let Some(oldest) = docs
                        .open
                        .iter()
                        .min_by_key(|(_, d)| d.used)
                        .map(|(u, _)| u.clone())
                    {
                        docs.open.remove(&oldest);
                        let _ = self.socket.notify::<ln::DidCloseTextDocument>(
                            lt::DidCloseTextDocumentParams {
                                text_document: lt::TextDocumentIdentifier { uri: oldest },
                            },
                        );
                    }
                }
                let doc_text = Arc::new(Text::new(text));
                docs.open.insert(
                    uri.clone(),
                    Doc {
                        version: 1,
                        text: doc_text.clone(),
                        used: tick,
                    },
                );
                // Opened before the notification leaves: a fast server's
                // diagnostics for it can reach the router before this task
                // runs again, and diagnostics before any open are ignored.
                self.shared.update(|t| t.opened = true);
                let r =
                    self.socket
                        .notify::<ln::DidOpenTextDocument>(lt::DidOpenTextDocumentParams {
                            text_document: lt::TextDocumentItem {
                                uri,
                                language_id: lang_id.into(),
                                version: 1,
                                text: text.into(),
                            },
                        });
                (r, doc_text)
            }
        };
        sent.map_err(|_| self.exited("sending a document"))?;
        Ok(doc_text)
    }

    /// When the server last answered a request (any request; errors count).
    fn last_answer(&self) -> Option<Instant> {
        match self.last_answer_nanos.load(Ordering::Relaxed) {
            0 => None,
            n => Some(self.started + Duration::from_nanos(n)),
        }
    }

    fn note_answer(&self) {
        let n = (self.started.elapsed().as_nanos() as u64).max(1);
        self.last_answer_nanos.fetch_max(n, Ordering::Relaxed);
    }

    /// One request with the session's timeout, retrying `ContentModified`.
    ///
    /// The timeout runs from when the request was sent or from the server's
    /// last answer to anything, whichever is later: with several requests in
    /// flight on a server that answers one at a time (pyright), the last ones
    /// wait behind the others, and a server that keeps answering is not hung.
    /// A request queued behind n others still gives up after n + 1 timeouts
    /// in all. A request given up on (timed out, or its future dropped at a
    /// caller's deadline) is cancelled with `$/cancelRequest`, so the server
    /// does not keep working on it.
    async fn call<R>(&self, params: R::Params) -> Result<R::Result, LspError>
    where
        R: lr::Request,
        R::Params: Clone,
    {
        // Searches of the whole workspace: the first one makes a server read
        // every file (pyright on Django: longer than the definition timeout,
        // and a server killed as hung loses all it had read).
        let limit = match R::METHOD {
            "textDocument/references"
            | "callHierarchy/incomingCalls"
            | "textDocument/implementation" => self.search_timeout,
            _ => self.request_timeout,
        };
        let mut attempt = 0;
        loop {
            let (id, mut fut) = self.outgoing.send::<R>(params.clone());
            let ahead = self.in_flight.fetch_add(1, Ordering::Relaxed);
            let mut pending = CancelOnDrop {
                socket: &self.socket,
                in_flight: &self.in_flight,
                id,
                method: R::METHOD,
                server: &self.name,
                armed: true,
            };
            let sent = Instant::now();
            let cap = sent + limit * (ahead as u32).saturating_add(1);
            let res = loop {
                let since = self.last_answer().map_or(sent, |a| a.max(sent));
                let until = (since + limit).min(cap);
                match tokio::time::timeout_at(until.into(), &mut fut).await {
                    Ok(r) => break Some(r),
                    // Another answer came meanwhile: the server is working through its queue.
                    Err(_) if until < cap && self.last_answer().is_some_and(|a| a > since) => {
                        continue
                    }
                    Err(_) => break None,
                }
            };
            self.requests.fetch_add(1, Ordering::Relaxed);
            self.waited_nanos
                .fetch_add(sent.elapsed().as_nanos() as u64, Ordering::Relaxed);
            let Some(res) = res else {
                // `pending` cancels the request as it goes out of scope.
                let n = self.timeouts_in_a_row.fetch_add(1, Ordering::Relaxed) + 1;
                if n >= self.hung_after {
                    tracing::warn!(server = %self.name, "{n} request timeouts in a row: killing the server");
                    self.kill();
                }
                return Err(LspError::Timeout {
                    server: self.name.clone(),
                    method: R::METHOD.into(),
                    secs: limit.as_secs_f64(),
                });
            };
            pending.armed = false;
            if matches!(
                res,
                Ok(_) | Err(async_lsp::Error::Response(_) | async_lsp::Error::Deserialize(_))
            ) {
                self.note_answer();
            }
            match res {
                Ok(v) => {
                    self.timeouts_in_a_row.store(0, Ordering::Relaxed);
                    self.answered.store(true, Ordering::Relaxed);
                    return Ok(v);
                }
                Err(async_lsp::Error::Response(e))
                    if e.code == ErrorCode::CONTENT_MODIFIED
                        && attempt < CONTENT_MODIFIED_RETRIES =>
                {
                    attempt += 1;
                    tracing::debug!(server = %self.name, method = R::METHOD, attempt, "content modified: retrying");
                    tokio::time::sleep(Duration::from_millis(50 * u64::from(attempt))).await;
                }
                Err(e) => {
                    self.timeouts_in_a_row.store(0, Ordering::Relaxed);
                    return Err(self.map_error(R::METHOD, e));
                }
            }
        }
    }

    fn map_error(&self, method: &str, e: async_lsp::Error) -> LspError {
        match e {
            async_lsp::Error::Response(r) if r.code == ErrorCode::METHOD_NOT_FOUND => {
                LspError::Unsupported {
                    server: self.name.clone(),
                    method: method.into(),
                }
            }
            async_lsp::Error::Response(r) => LspError::ServerError {
                server: self.name.clone(),
                method: method.into(),
                code: r.code.0,
                message: r.message,
            },
            async_lsp::Error::Deserialize(e) => LspError::BadResponse {
                server: self.name.clone(),
                method: method.into(),
                reason: e.to_string(),
            },
            _ => self.exited(method),
        }
    }

    async fn position_params(
        &self,
        doc: TextDoc<'_>,
        pos: Pos,
    ) -> Result<lt::TextDocumentPositionParams, LspError> {
        let text = self.sync_doc(doc).await?;
        let position = convert::to_lsp(&text, pos, self.encoding).ok_or(LspError::Position {
            path: doc.path.to_path_buf(),
            line: pos.line,
            column: pos.column,
        })?;
        Ok(lt::TextDocumentPositionParams {
            text_document: lt::TextDocumentIdentifier {
                uri: file_url(doc.path)?,
            },
            position,
        })
    }

    /// `Unsupported` for `method` unless the server declared it.
    fn require(&self, declared: bool, method: &str) -> Result<(), LspError> {
        match declared {
            true => Ok(()),
            false => Err(LspError::Unsupported {
                server: self.name.clone(),
                method: method.into(),
            }),
        }
    }

    /// `textDocument/definition` or `textDocument/implementation` (the same
    /// parameters and answer).
    async fn goto<R>(&self, doc: TextDoc<'_>, pos: Pos) -> Found
    where
        R: lr::Request<
            Params = lt::GotoDefinitionParams,
            Result = Option<lt::GotoDefinitionResponse>,
        >,
    {
        let tdp = self.position_params(doc, pos).await?;
        let resp = self
            .call::<R>(lt::GotoDefinitionParams {
                text_document_position_params: tdp,
                work_done_progress_params: Default::default(),
                partial_result_params: Default::default(),
            })
            .await?;
        Ok(self.convert_goto(resp).await)
    }

    pub async fn definition(&self, doc: TextDoc<'_>, pos: Pos) -> Found {
        self.goto::<lr::GotoDefinition>(doc, pos).await
    }

    pub async fn implementation(&self, doc: TextDoc<'_>, pos: Pos) -> Found {
        let declared = !matches!(
            self.caps.implementation_provider,
            None | Some(lt::ImplementationProviderCapability::Simple(false))
        );
        self.require(declared, "textDocument/implementation")?;
        self.goto::<lr::GotoImplementation>(doc, pos).await
    }

    /// The implementation behind the declaration named at `pos` (the spec's
    /// `source_definition_command`); `Unsupported` without one.
    pub async fn source_definition(&self, doc: TextDoc<'_>, pos: Pos) -> Found {
        let command = self.source_definition_command.clone();
        self.require(command.is_some(), "source definition")?;
        let command = command.unwrap_or_default();
        let tdp = self.position_params(doc, pos).await?;
        let arguments = vec![
            serde_json::Value::String(tdp.text_document.uri.to_string()),
            serde_json::to_value(tdp.position).expect("a position serializes"),
        ];
        let resp = self
            .call::<lr::ExecuteCommand>(lt::ExecuteCommandParams {
                command: command.clone(),
                arguments,
                work_done_progress_params: Default::default(),
            })
            .await?;
        let locs: Vec<lt::Location> = match resp {
            None | Some(serde_json::Value::Null) => Vec::new(),
            Some(v) => serde_json::from_value(v).map_err(|e| LspError::BadResponse {
                server: self.name.clone(),
                method: command,
                reason: e.to_string(),
            })?,
        };
        Ok(self
            .convert_locations(locs.into_iter().map(|l| (l.uri, l.range)).collect())
            .await)
    }

    pub async fn references(&self, doc: TextDoc<'_>, pos: Pos, include_declaration: bool) -> Found {
        let tdp = self.position_params(doc, pos).await?;
        let resp = self
            .call::<lr::References>(lt::ReferenceParams {
                text_document_position: tdp,
                work_done_progress_params: Default::default(),
                partial_result_params: Default::default(),
                context: lt::ReferenceContext {
                    include_declaration,
                },
            })
            .await?;
        let locs = resp
            .unwrap_or_default()
            .into_iter()
            .map(|l| (l.uri, l.range))
            .collect();
        Ok(self.convert_locations(locs).await)
    }

    pub async fn incoming_calls(&self, doc: TextDoc<'_>, pos: Pos) -> Found<IncomingCall> {
        let declared = !matches!(
            self.caps.call_hierarchy_provider,
            None | Some(lt::CallHierarchyServerCapability::Simple(false))
        );
        self.require(declared, "textDocument/prepareCallHierarchy")?;
        let tdp = self.position_params(doc, pos).await?;
        let items = self
            .call::<lr::CallHierarchyPrepare>(lt::CallHierarchyPrepareParams {
                text_document_position_params: tdp,
                work_done_progress_params: Default::default(),
            })
            .await?
            .unwrap_or_default();
        let mut out = Vec::new();
        for item in items {
            let calls = self
                .call::<lr::CallHierarchyIncomingCalls>(lt::CallHierarchyIncomingCallsParams {
                    item,
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                })
                .await?
                .unwrap_or_default();
            for call in calls {
                let uri = call.from.uri.clone();
                let mut locs = vec![(uri.clone(), call.from.selection_range)];
                locs.extend(call.from_ranges.iter().map(|r| (uri.clone(), *r)));
                // Converted one by one: the caller's range must stay apart from its sites.
                let caller = self.convert_locations(locs.drain(..1).collect()).await;
                let Some(caller) = caller.into_iter().next() else {
                    continue;
                };
                out.push(IncomingCall {
                    name: call.from.name,
                    caller,
                    sites: self.convert_locations(locs).await,
                });
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    async fn convert_goto(&self, resp: Option<lt::GotoDefinitionResponse>) -> Vec<Location> {
        let locs = match resp {
            None => vec![],
            Some(lt::GotoDefinitionResponse::Scalar(l)) => vec![(l.uri, l.range)],
            Some(lt::GotoDefinitionResponse::Array(ls)) => {
                ls.into_iter().map(|l| (l.uri, l.range)).collect()
            }
            Some(lt::GotoDefinitionResponse::Link(ls)) => ls
                .into_iter()
                .map(|l| (l.target_uri, l.target_selection_range))
                .collect(),
        };
        self.convert_locations(locs).await
    }

    /// LSP ranges to refgraph locations, reading each file's text (open document
    /// first, then disk) once; sorted and deduplicated.
    async fn convert_locations(&self, locs: Vec<(Url, lt::Range)>) -> Vec<Location> {
        let mut texts: HashMap<Url, Option<Arc<Text>>> = HashMap::new();
        let mut out = Vec::with_capacity(locs.len());
        for (uri, range) in locs {
            let Ok(path) = uri.to_file_path() else {
                tracing::debug!(server = %self.name, %uri, "skipping a non-file location");
                continue;
            };
            if !texts.contains_key(&uri) {
                let open = self
                    .docs
                    .lock()
                    .await
                    .open
                    .get(&uri)
                    .map(|d| d.text.clone());
                let text = match open {
                    Some(t) => Some(t),
                    None if self.encoding == Encoding::Utf8 => None,
                    None => self.disk_text(&path),
                };
                texts.insert(uri.clone(), text);
            }
            let conv = |p: lt::Position| match &texts[&uri] {
                Some(t) => convert::from_lsp(t, p, self.encoding),
                // UTF-8 offsets are byte columns already; no text needed.
                None => Pos {
                    line: p.line + 1,
                    column: p.character + 1,
                },
            };
            out.push(Location {
                path,
                pos: conv(range.start),
                end: conv(range.end),
            });
        }
        out.sort();
        out.dedup();
        out
    }

    /// The text of a file on disk, read again only when its size or
    /// modification time changed. Read in place, not on tokio's blocking pool:
    /// these are source files, and the hop to another thread and back cost
    /// more than the read at one request in flight.
    fn disk_text(&self, path: &Path) -> Option<Arc<Text>> {
        let meta = std::fs::metadata(path).ok()?;
        let stamp = (meta.len(), meta.modified().ok());
        if let Some(d) = self.disk.lock().unwrap().get(path) {
            if d.stamp == stamp {
                return Some(d.text.clone());
            }
        }
        let bytes = std::fs::read(path).ok()?;
        let text = Arc::new(Text::new(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }));
        let mut disk = self.disk.lock().unwrap();
        if disk.len() >= MAX_DISK_TEXTS {
            disk.clear();
        }
        disk.insert(
            path.to_path_buf(),
            DiskText {
                stamp,
                text: text.clone(),
            },
        );
        Some(text)
    }

    /// shutdown → exit, then wait for the process (killing it after `grace`).
    pub async fn close(&self, grace: Duration) {
        let child = self.child.lock().unwrap().take();
        let mainloop = self.mainloop.lock().unwrap().take();
        close_parts(self.outgoing.clone(), child, mainloop, grace).await;
    }
}

/// The package's own source conditions (one rule for the bridge and the
/// static resolver).
pub use crate::resolve::typescript::source_conditions;

/// Files under `root` with one of the fallback's extensions, sorted, skipping
/// dependency and build folders and what `.gitignore` excludes.
fn project_files(root: &Path, fallback: &spec::ProjectFallback) -> Vec<PathBuf> {
    let markers = fallback.unless_present.clone();
    let mut files: Vec<PathBuf> = ignore::WalkBuilder::new(root)
        .follow_links(false)
        .hidden(false)
        .require_git(false)
        .filter_entry(move |e| {
            let sub_dir = e.depth() > 0 && e.file_type().is_some_and(|t| t.is_dir());
            // Dependencies and build output; folders with their own project file
            // are their own roots.
            !(sub_dir
                && (e
                    .file_name()
                    .to_str()
                    .is_some_and(|n| crate::walk::SKIP_DIRS.contains(&n))
                    || markers.iter().any(|m| e.path().join(m).exists())))
        })
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(ignore::DirEntry::into_path)
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| fallback.extensions.iter().any(|x| x == e))
        })
        .collect();
    files.sort();
    if files.len() > fallback.max_files {
        tracing::warn!(
            root = %root.display(),
            files = files.len(),
            max = fallback.max_files,
            "too many files for the declared project: keeping the first"
        );
        files.truncate(fallback.max_files);
    }
    files
}

async fn close_parts(
    outgoing: Outgoing,
    child: Option<tokio::process::Child>,
    mainloop: Option<tokio::task::JoinHandle<()>>,
    grace: Duration,
) {
    let socket = outgoing.socket.clone();
    let _ = tokio::time::timeout(grace, outgoing.send::<lr::Shutdown>(()).1).await;
    let _ = socket.notify::<ln::Exit>(());
    let _ = socket.emit(Stop);
    if let Some(child) = child {
        process::reap(child, grace).await;
    }
    // The loop ends on Stop or EOF; a descendant holding the pipe open must not
    // keep it running.
    if let Some(mut h) = mainloop {
        if tokio::time::timeout(grace, &mut h).await.is_err() {
            tracing::debug!("main loop still running after close: aborting it");
            h.abort();
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let child = self.child.lock().unwrap().take();
        let mainloop = self.mainloop.lock().unwrap().take();
        let Some(child) = child else { return };
        match tokio::runtime::Handle::try_current() {
            Ok(h) => {
                let outgoing = self.outgoing.clone();
                h.spawn(
                    close_parts(outgoing, Some(child), mainloop, Duration::from_secs(2))
                        .map(|_| ()),
                );
            }
            // No runtime: dropping the child kills it (kill_on_drop).
            Err(_) => drop(child),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::source_conditions;

    #[test]
    fn source_conditions_are_those_pointing_at_typescript_sources() {
        // zod 4's shape: a custom condition first, shipped files after.
        let zod = serde_json::json!({
            "types": "./index.d.cts",
            "exports": {
                "./package.json": "./package.json",
                ".": {
                    "@zod/source": "./src/index.ts",
                    "types": "./index.d.cts",
                    "import": "./index.js",
                    "require": "./index.cjs"
                },
                "./v4/core": {
                    "@zod/source": "./src/v4/core/index.ts",
                    "import": { "types": "./v4/core/index.d.ts", "default": "./v4/core/index.js" }
                },
                "./next": { "development": "./src/next.tsx", "default": "./next.js" },
                "./shipped": { "types": "./shipped.d.mts", "source": "./shipped.d.ts" }
            }
        });
        assert_eq!(source_conditions(&zod), ["@zod/source", "development"]);
        // Standard conditions are applied anyway; no exports, no conditions.
        let plain = serde_json::json!({"exports": {".": {"import": "./src/index.ts"}}});
        assert!(source_conditions(&plain).is_empty());
        assert!(source_conditions(&serde_json::json!({"main": "src/index.ts"})).is_empty());
    }
}
