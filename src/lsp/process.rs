//! The server process: spawned with piped stdio and `kill_on_drop(true)`; its
//! stderr goes to the log (tracing) and a short tail is kept for error messages.

use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

const STDERR_TAIL: usize = 8;

pub struct Process {
    pub child: Child,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// Ends when stderr closes (the process exited).
    pub stderr_done: tokio::task::JoinHandle<()>,
}

pub fn spawn(
    server: &str,
    program: &Path,
    args: &[String],
    cwd: &Path,
    env: &[(String, String)],
) -> std::io::Result<Process> {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    crate::memory::restore_in_child(cmd.as_std_mut());
    let mut child = cmd.spawn()?;
    let stdin = child.stdin.take().expect("piped stdin");
    let stdout = child.stdout.take().expect("piped stdout");
    let stderr = child.stderr.take().expect("piped stderr");
    let tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL)));
    let server = server.to_string();
    let t = tail.clone();
    let stderr_done = tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            tracing::debug!(target: "refgraph::lsp::stderr", server = %server, "{line}");
            let mut t = t.lock().unwrap();
            if t.len() == STDERR_TAIL {
                t.pop_front();
            }
            t.push_back(line);
        }
    });
    Ok(Process {
        child,
        stdin,
        stdout,
        stderr_tail: tail,
        stderr_done,
    })
}

/// The last stderr lines, joined for an error message.
pub fn tail_text(tail: &Mutex<VecDeque<String>>) -> String {
    let t = tail.lock().unwrap();
    t.iter().cloned().collect::<Vec<_>>().join(" | ")
}

/// Wait up to `grace` for the child to exit, then kill it.
pub async fn reap(mut child: Child, grace: Duration) {
    match tokio::time::timeout(grace, child.wait()).await {
        Ok(_) => {}
        Err(_) => {
            let _ = child.kill().await;
        }
    }
}
