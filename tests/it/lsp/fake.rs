//! Faults real servers will not produce on demand, scripted with a fake server
//! (`fake_server.py`, run with python3): never ready, hangs, crashes mid-request,
//! closes its output, malformed frames, slow answers, ContentModified.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use refgraph::extract::Lang;
use refgraph::graph::Pos;
use refgraph::lsp::{spec, LspConfig, LspError, Pool, ServerState};

use super::doc;

const SCRIPT: &str = include_str!("fake_server.py");

struct Fake {
    dir: tempfile::TempDir,
    pool: Pool,
}

impl Fake {
    fn root(&self) -> PathBuf {
        self.dir.path().join("proj")
    }
    fn file(&self) -> PathBuf {
        self.root().join("main.py")
    }
    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("log")).unwrap_or_default()
    }
    fn count(&self, method: &str) -> usize {
        self.log().lines().filter(|l| *l == method).count()
    }
    async fn definition(&self) -> Result<Vec<refgraph::lsp::Location>, LspError> {
        bounded(self.pool.definition(
            doc(Lang::Python, &self.root(), &self.file(), TEXT),
            Pos { line: 1, column: 5 },
        ))
        .await
    }
}

const TEXT: &str = "def target():\n    pass\n";

/// Every wait in these tests is bounded: a hang fails the test instead of CI.
async fn bounded<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(30), f)
        .await
        .expect("the pool did not return within 30s")
}

fn fake(mode: &str, request_timeout: f64, hung_after: u32) -> Fake {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("fake_server.py");
    std::fs::write(&script, SCRIPT).unwrap();
    std::fs::create_dir_all(dir.path().join("proj")).unwrap();
    std::fs::write(dir.path().join("proj/main.py"), TEXT).unwrap();
    let spec_toml = format!(
        r#"
        name = "fake"
        command = "python3"
        args = [{script:?}, "{mode}", {log:?}]
        languages = ["python"]
        version_command = ["python3", "--version"]
        startup_timeout_secs = 3
        request_timeout_secs = {request_timeout}
        hung_after_timeouts = {hung_after}
        [readiness]
        kind = "diagnostics"
        [install]
        kind = "none"
        [settings.python.analysis]
        autoSearchPaths = true
        "#,
        script = script.display().to_string(),
        log = dir.path().join("log").display().to_string(),
    );
    let spec: spec::ServerSpec = toml::from_str(&spec_toml).unwrap();
    let cfg = LspConfig {
        specs: [("fake".to_string(), spec)].into_iter().collect(),
        prefix: dir.path().join("prefix"),
        cache_dir: dir.path().join("cache"),
        trust: false,
        max_restarts: 2,
        backoff_base: Duration::from_millis(50),
        backoff_max: Duration::from_millis(200),
        shutdown_grace: Duration::from_secs(1),
        import_roots: Vec::new(),
    };
    Fake {
        pool: Pool::new(cfg),
        dir,
    }
}

fn root_of(f: &Fake) -> PathBuf {
    std::fs::canonicalize(f.root()).unwrap()
}

#[tokio::test]
async fn healthy_fake_answers_and_configuration_is_answered() {
    let f = fake("ok", 5.0, 3);
    assert_eq!(
        f.pool.state(Lang::Python, &f.root()),
        ServerState::NotStarted
    );
    let locs = f.definition().await.unwrap();
    assert_eq!(locs.len(), 1);
    assert_eq!(locs[0].path, root_of(&f).join("main.py"));
    assert_eq!(locs[0].pos, Pos { line: 1, column: 5 });
    assert_eq!(
        locs[0].end,
        Pos {
            line: 1,
            column: 11
        }
    );
    assert_eq!(f.pool.state(Lang::Python, &f.root()), ServerState::Ready);
    assert!(f
        .pool
        .server_id(Lang::Python)
        .unwrap()
        .starts_with("fake@3."));
    // workspace/configuration got one value per item; window/workDoneProgress/create null.
    let log = f.log();
    assert!(
        log.contains(r#"response [{"autoSearchPaths": true}, null]"#),
        "{log}"
    );
    assert!(log.contains("response null"), "{log}");
    // The unknown notification did not stop the main loop: a second request works.
    f.definition().await.unwrap();
    assert_eq!(
        f.count("textDocument/didOpen"),
        1,
        "opened once per version"
    );
    let Fake { dir, pool } = f;
    bounded(pool.shutdown()).await;
    let log = std::fs::read_to_string(dir.path().join("log")).unwrap();
    assert!(log.contains("shutdown\nexit\n"), "{log}");
}

#[tokio::test]
async fn never_ready_times_out_at_startup_and_gives_up() {
    let f = fake("never-ready", 5.0, 3);
    let t = Instant::now();
    let err = f.definition().await.unwrap_err();
    assert!(matches!(err, LspError::StartTimeout { .. }), "{err}");
    assert!(err.to_string().contains("fake"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(matches!(
        f.pool.state(Lang::Python, &f.root()),
        ServerState::Crashed { .. }
    ));
    // Restarts with backoff, then gives up: Unavailable without starting again.
    for _ in 0..2 {
        let e = f.definition().await.unwrap_err();
        assert!(matches!(e, LspError::StartTimeout { .. }), "{e}");
    }
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::Unavailable { .. }), "{e}");
    assert!(e.is_unavailable());
    assert_eq!(f.count("initialize"), 3);
    assert!(matches!(
        f.pool.state(Lang::Python, &f.root()),
        ServerState::Unavailable { .. }
    ));
    // Until reset.
    f.pool.reset(Lang::Python, &f.root());
    assert_eq!(
        f.pool.state(Lang::Python, &f.root()),
        ServerState::NotStarted
    );
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::StartTimeout { .. }), "{e}");
    assert_eq!(f.count("initialize"), 4);
}

#[tokio::test]
async fn hung_server_times_out_then_is_killed_and_restarted() {
    let f = fake("hang", 0.5, 2);
    for _ in 0..2 {
        let t = Instant::now();
        let e = f.definition().await.unwrap_err();
        assert!(matches!(e, LspError::Timeout { .. }), "{e}");
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    }
    // Two timeouts in a row: killed; the next request starts a new process.
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::Timeout { .. }), "{e}");
    assert_eq!(f.count("initialize"), 2, "{}", f.log());
}

#[tokio::test]
async fn crash_mid_request_fails_every_pending_request_at_once() {
    // A long request timeout: the failures must come from the crash, not timers.
    let f = fake("crash", 20.0, 3);
    let t = Instant::now();
    let results = bounded(futures::future::join_all((0..5).map(|_| f.definition()))).await;
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    for r in &results {
        let e = r.as_ref().unwrap_err();
        assert!(matches!(e, LspError::ServerExited { .. }), "{e}");
        assert!(e.is_unavailable());
    }
    // State shows the crash; the next request restarts the server.
    bounded(async {
        while !matches!(
            f.pool.state(Lang::Python, &f.root()),
            ServerState::Crashed { .. }
        ) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let before = f.count("initialize");
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::ServerExited { .. }), "{e}");
    assert_eq!(f.count("initialize"), before + 1);
}

#[tokio::test]
async fn closed_stream_is_a_typed_error_not_a_hang() {
    let f = fake("close", 20.0, 3);
    let t = Instant::now();
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::ServerExited { .. }), "{e}");
    assert!(t.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn malformed_frame_is_a_typed_error() {
    let f = fake("malformed", 20.0, 3);
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::ServerExited { .. }), "{e}");
    assert!(e.to_string().contains("deserialization"), "{e}");
}

#[tokio::test]
async fn unreadable_result_fails_only_that_request() {
    let f = fake("bad-result", 5.0, 3);
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::BadResponse { .. }), "{e}");
    assert!(!e.is_unavailable());
    assert_eq!(f.pool.state(Lang::Python, &f.root()), ServerState::Ready);
}

#[tokio::test]
async fn slow_answers_are_pipelined() {
    let f = fake("slow", 5.0, 3);
    f.definition().await.unwrap(); // start + first answer
    let t = Instant::now();
    let results = bounded(futures::future::join_all((0..10).map(|_| f.definition()))).await;
    let elapsed = t.elapsed();
    assert!(results
        .iter()
        .all(|r| r.as_ref().is_ok_and(|l| l.len() == 1)));
    // Ten 0.3 s answers one at a time would take 3 s.
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
}

#[tokio::test]
async fn slower_than_the_timeout_is_a_timeout() {
    let f = fake("slow", 0.1, 100);
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::Timeout { .. }), "{e}");
}

#[tokio::test]
async fn content_modified_is_retried() {
    let f = fake("content-modified", 5.0, 3);
    let locs = f.definition().await.unwrap();
    assert_eq!(locs.len(), 1);
    assert_eq!(f.count("textDocument/definition"), 3);
}

#[tokio::test]
async fn content_modified_forever_is_a_server_error() {
    let f = fake("cm-forever", 5.0, 3);
    let e = f.definition().await.unwrap_err();
    assert!(
        matches!(e, LspError::ServerError { code: -32801, .. }),
        "{e}"
    );
    assert_eq!(f.count("textDocument/definition"), 4);
}

#[tokio::test]
async fn missing_server_is_not_installed_with_a_hint() {
    let mut f = fake("ok", 5.0, 3);
    let mut cfg = f.pool.config().clone();
    let s = cfg.specs.get_mut("fake").unwrap();
    s.command = "/nonexistent/refgraph-fake-server".into();
    s.version_command = vec![];
    f.pool = Pool::new(cfg);
    assert!(matches!(
        f.pool.state(Lang::Python, &f.root()),
        ServerState::NotInstalled { .. }
    ));
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::NotInstalled { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("put `/nonexistent/refgraph-fake-server` on PATH"),
        "{e}"
    );
    assert_eq!(f.pool.server_id(Lang::Python), None);
    let e = bounded(f.pool.definition(
        doc(Lang::Rust, &f.root(), Path::new("x.rs"), ""),
        Pos { line: 1, column: 1 },
    ))
    .await
    .unwrap_err();
    assert!(matches!(e, LspError::NoServer { .. }), "{e}");
}

#[tokio::test]
async fn changed_text_is_sent_as_a_new_version() {
    let f = fake("ok", 5.0, 3);
    f.definition().await.unwrap();
    let text2 = "def target():\n    return 1\n";
    bounded(f.pool.definition(
        doc(Lang::Python, &f.root(), &f.file(), text2),
        Pos { line: 1, column: 5 },
    ))
    .await
    .unwrap();
    f.definition().await.unwrap();
    assert_eq!(f.count("textDocument/didOpen"), 1);
    assert_eq!(f.count("textDocument/didChange"), 2);
}

#[tokio::test]
async fn position_outside_the_text_is_rejected() {
    let f = fake("ok", 5.0, 3);
    let e = bounded(f.pool.definition(
        doc(Lang::Python, &f.root(), &f.file(), TEXT),
        Pos {
            line: 40,
            column: 1,
        },
    ))
    .await
    .unwrap_err();
    assert!(matches!(e, LspError::Position { line: 40, .. }), "{e}");
}

#[tokio::test]
async fn restarted_server_answers_again() {
    let f = fake("crash-once", 20.0, 3);
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::ServerExited { .. }), "{e}");
    let locs = f.definition().await.unwrap();
    assert_eq!(locs.len(), 1);
    assert_eq!(f.count("initialize"), 2);
    assert_eq!(f.pool.state(Lang::Python, &f.root()), ServerState::Ready);
    // The new process got the document again.
    assert_eq!(f.count("textDocument/didOpen"), 2);
}

#[tokio::test]
async fn one_session_per_root() {
    let f = fake("ok", 5.0, 3);
    let other = f.dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("main.py"), TEXT).unwrap();
    f.definition().await.unwrap();
    bounded(f.pool.definition(
        doc(Lang::Python, &other, &other.join("main.py"), TEXT),
        Pos { line: 1, column: 5 },
    ))
    .await
    .unwrap();
    f.definition().await.unwrap();
    assert_eq!(f.count("initialize"), 2);
    assert_eq!(f.pool.state(Lang::Python, &other), ServerState::Ready);
}

#[tokio::test]
async fn server_dying_at_start_reports_its_stderr() {
    let f = fake("die", 5.0, 3);
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::StartFailed { .. }), "{e}");
    let msg = e.to_string();
    assert!(msg.starts_with("fake failed to start"), "{msg}");
    assert!(msg.contains("fatal: bad configuration"), "{msg}");
}

#[tokio::test]
async fn dropping_the_pool_shuts_servers_down() {
    let f = fake("ok", 5.0, 3);
    f.definition().await.unwrap();
    let Fake { dir, pool } = f;
    drop(pool);
    // The session's drop sends shutdown/exit in the background (then kills).
    let log = dir.path().join("log");
    bounded(async {
        loop {
            let l = std::fs::read_to_string(&log).unwrap();
            if l.contains("exit\n") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}

/// The session cap holds across calls: starting a session for another root
/// shuts down the least recently used one.
#[tokio::test]
async fn sessions_beyond_the_cap_evict_the_least_recently_used() {
    let mut f = fake("ok", 5.0, 3);
    let mut cfg = f.pool.config().clone();
    cfg.specs.get_mut("fake").unwrap().max_sessions = 2;
    f.pool = Pool::new(cfg);
    let roots: Vec<PathBuf> = ["r1", "r2", "r3"]
        .iter()
        .map(|n| {
            let d = f.dir.path().join(n);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("main.py"), TEXT).unwrap();
            std::fs::canonicalize(d).unwrap()
        })
        .collect();
    let ask = |r: &PathBuf| {
        let (pool, r) = (&f.pool, r.clone());
        async move {
            pool.definition(
                doc(Lang::Python, &r, &r.join("main.py"), TEXT),
                Pos { line: 1, column: 5 },
            )
            .await
        }
    };
    bounded(ask(&roots[0])).await.unwrap();
    bounded(ask(&roots[1])).await.unwrap();
    bounded(ask(&roots[0])).await.unwrap(); // r1 is now the most recently used
    bounded(ask(&roots[2])).await.unwrap();
    assert_eq!(
        f.pool.live_roots(Lang::Python),
        [roots[0].clone(), roots[2].clone()]
    );
    assert_eq!(
        f.pool.state(Lang::Python, &roots[1]),
        ServerState::NotStarted
    );
    assert_eq!(f.count("initialize"), 3);
    // The evicted server was shut down, not left running.
    bounded(async {
        while f.count("exit") < 1 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    // Asking it again restarts it (and evicts r1 now).
    bounded(ask(&roots[1])).await.unwrap();
    assert_eq!(
        f.pool.live_roots(Lang::Python),
        [roots[1].clone(), roots[2].clone()]
    );
}

/// A start abandoned at a caller's deadline leaves no "starting" state behind.
#[tokio::test]
async fn abandoned_start_is_not_left_starting() {
    let f = fake("never-ready", 5.0, 3);
    let r = tokio::time::timeout(Duration::from_millis(500), f.definition()).await;
    assert!(r.is_err(), "should still be starting");
    assert_eq!(
        f.pool.state(Lang::Python, &f.root()),
        ServerState::NotStarted
    );
    assert!(f.pool.live_roots(Lang::Python).is_empty());
}

/// Waits until the fake server's log has `line` `n` times (at most 10 s).
async fn logged(f: &Fake, line: &str, n: usize) {
    let t = Instant::now();
    while f.count(line) < n {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "{line:?} not logged {n} times:\n{}",
            f.log()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A timed-out request is cancelled (`$/cancelRequest` with its own id),
/// so the server stops working on it.
#[tokio::test]
async fn timed_out_request_is_cancelled() {
    let f = fake("hang", 0.3, 100);
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::Timeout { .. }), "{e}");
    // The fake names the request a cancel's id points at: the definition,
    // not another request (initialize) nor an unknown id.
    logged(&f, "cancelled textDocument/definition", 1).await;
    assert_eq!(f.count("cancelled unknown"), 0, "{}", f.log());
    // Ids stay in step: the next timed-out request is cancelled too.
    let e = f.definition().await.unwrap_err();
    assert!(matches!(e, LspError::Timeout { .. }), "{e}");
    logged(&f, "cancelled textDocument/definition", 2).await;
    assert_eq!(f.count("cancelled unknown"), 0, "{}", f.log());
}

/// A request abandoned by its caller (a budget deadline drops the future) is
/// cancelled; an answered one is not.
#[tokio::test]
async fn abandoned_request_is_cancelled() {
    let f = fake("sleepy", 30.0, 3);
    // Started and answered (in 5 s), so the next request goes out at once.
    f.definition().await.unwrap();
    let r = tokio::time::timeout(Duration::from_secs(1), f.definition()).await;
    assert!(r.is_err(), "the sleepy fake answered early");
    logged(&f, "cancelled textDocument/definition", 1).await;
    assert_eq!(f.count("cancelled unknown"), 0, "{}", f.log());

    let ok = fake("slow", 5.0, 3);
    ok.definition().await.unwrap();
    ok.definition().await.unwrap();
    assert_eq!(ok.count("textDocument/definition"), 2);
    assert!(!ok.log().contains("cancelled"), "{}", ok.log());
}

/// Regression: with several requests queued on a server that answers one at
/// a time (pyright), the last ones waited longer than the request timeout
/// only because of the queue, timed out, and three in a row killed a server
/// that was answering all along. The timeout now runs from the server's last
/// answer.
#[tokio::test]
async fn serial_server_answering_its_queue_is_not_hung() {
    // 0.3 s per answer, 0.5 s timeout, 2 timeouts in a row kill.
    let f = fake("serial", 0.5, 2);
    f.definition().await.unwrap();
    let t = Instant::now();
    let results = bounded(futures::future::join_all((0..8).map(|_| f.definition()))).await;
    let elapsed = t.elapsed();
    for r in &results {
        assert!(r.as_ref().is_ok_and(|l| l.len() == 1), "{r:?}");
    }
    // The queue took far longer than one request timeout.
    assert!(elapsed > Duration::from_millis(2000), "{elapsed:?}");
    assert_eq!(f.count("initialize"), 1, "{}", f.log());
    assert_eq!(f.pool.state(Lang::Python, &f.root()), ServerState::Ready);
    assert!(!f.log().contains("cancelled"), "{}", f.log());
}
