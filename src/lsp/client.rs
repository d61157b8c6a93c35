//! The client side of a connection: the capabilities refgraph declares, its
//! answers to server requests (`workspace/configuration`,
//! `client/registerCapability`, `window/workDoneProgress/create`, …), and the
//! readiness evidence gathered from notifications (`$/progress` per token,
//! `publishDiagnostics`, `window/logMessage`, rust-analyzer's
//! `experimental/serverStatus`).

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};

use async_lsp::lsp_types::{
    self as lt, notification as ln, request as lr, NumberOrString, ProgressParamsValue,
    WorkDoneProgress,
};
use async_lsp::router::Router;
use async_lsp::{ResponseError, ServerSocket};
use serde_json::Value;
use tokio::sync::watch;

use super::convert::Encoding;
use super::spec::{self, Readiness};

/// Readiness evidence, updated by notification handlers.
#[derive(Default)]
pub struct Track {
    pub opened: bool,
    pub diagnostics: bool,
    pub log_seen: bool,
    pub quiescent: bool,
    pub progress_done: bool,
    /// Open `$/progress` tokens and their titles.
    pub progress: HashMap<String, String>,
}

pub struct Shared {
    pub readiness: Readiness,
    pub track: Mutex<Track>,
    pub ready_tx: watch::Sender<bool>,
    pub server: String,
}

impl Shared {
    pub fn update(&self, f: impl FnOnce(&mut Track)) {
        let mut t = self.track.lock().unwrap();
        f(&mut t);
        let ready = match &self.readiness {
            Readiness::Initialized => true,
            Readiness::Diagnostics { log_contains } => {
                t.opened && t.diagnostics && (log_contains.is_none() || t.log_seen)
            }
            Readiness::Progress { .. } => t.opened && t.progress_done,
            Readiness::ServerStatus => t.quiescent && t.progress.is_empty(),
        };
        if ready && !*self.ready_tx.borrow() {
            tracing::info!(server = %self.server, "server ready");
            let _ = self.ready_tx.send(true);
        }
    }
}

/// The router's state: readiness evidence and the answers to server requests.
pub struct ClientState {
    shared: Arc<Shared>,
    settings: Value,
    folders: Vec<lt::WorkspaceFolder>,
    /// Keeps the main loop's channel open while the loop runs (async-lsp panics
    /// with "Sender is alive" if every socket is dropped first).
    _socket: ServerSocket,
}

pub struct Stop;

fn token_key(t: &NumberOrString) -> String {
    match t {
        NumberOrString::Number(n) => n.to_string(),
        NumberOrString::String(s) => s.clone(),
    }
}

pub fn capabilities() -> lt::ClientCapabilities {
    // What refgraph really does with the answers; built as JSON to stay readable.
    serde_json::from_value(serde_json::json!({
        "general": { "positionEncodings": Encoding::offered() },
        "window": { "workDoneProgress": true },
        "workspace": {
            "configuration": true,
            "workspaceFolders": true,
            "didChangeConfiguration": { "dynamicRegistration": false }
        },
        "textDocument": {
            "synchronization": { "dynamicRegistration": false, "didSave": false },
            "definition": { "dynamicRegistration": false, "linkSupport": true },
            "references": { "dynamicRegistration": false },
            "implementation": { "dynamicRegistration": false, "linkSupport": true },
            "callHierarchy": { "dynamicRegistration": false },
            "publishDiagnostics": { "relatedInformation": false }
        },
        "experimental": { "serverStatusNotification": true }
    }))
    .expect("client capabilities are valid")
}

pub fn build_router(
    socket: ServerSocket,
    shared: Arc<Shared>,
    settings: Value,
    folders: Vec<lt::WorkspaceFolder>,
) -> Router<ClientState> {
    let mut router = Router::new(ClientState {
        shared,
        settings,
        folders,
        _socket: socket,
    });
    router
        .request::<lr::WorkDoneProgressCreate, _>(|_, _| std::future::ready(Ok(())))
        .request::<lr::RegisterCapability, _>(|_, _| std::future::ready(Ok(())))
        .request::<lr::UnregisterCapability, _>(|_, _| std::future::ready(Ok(())))
        .request::<lr::WorkspaceConfiguration, _>(|st, params| {
            let answers = params
                .items
                .iter()
                .map(|item| {
                    spec::lookup_section(&st.settings, item.section.as_deref().unwrap_or(""))
                        .cloned()
                        .unwrap_or(Value::Null)
                })
                .collect();
            std::future::ready(Ok(answers))
        })
        .request::<lr::WorkspaceFoldersRequest, _>(|st, _| {
            std::future::ready(Ok(Some(st.folders.clone())))
        })
        .request::<lr::ShowMessageRequest, _>(|_, _| std::future::ready(Ok(None)))
        .request::<lr::ApplyWorkspaceEdit, _>(|_, _| {
            std::future::ready(Ok(lt::ApplyWorkspaceEditResponse {
                applied: false,
                failure_reason: Some("refgraph does not edit files".into()),
                failed_change: None,
            }))
        })
        // Refresh requests and anything else: answer null, never an error (some
        // servers treat an error here as fatal).
        .unhandled_request(|_, req| {
            tracing::debug!(method = %req.method, "unhandled server request answered with null");
            std::future::ready(Ok::<_, ResponseError>(Value::Null))
        })
        .notification::<ln::Progress>(|st, p| {
            let key = token_key(&p.token);
            let ProgressParamsValue::WorkDone(wd) = p.value;
            st.shared.update(|t| match wd {
                WorkDoneProgress::Begin(b) => {
                    tracing::debug!(server = %st.shared.server, token = %key, title = %b.title, "progress begin");
                    t.progress.insert(key, b.title);
                }
                WorkDoneProgress::Report(_) => {}
                WorkDoneProgress::End(_) => {
                    let title = t.progress.remove(&key).unwrap_or_default();
                    tracing::debug!(server = %st.shared.server, token = %key, title = %title, "progress end");
                    if let Readiness::Progress { progress_title } = &st.shared.readiness {
                        if t.opened && title.contains(progress_title.as_str()) {
                            t.progress_done = true;
                        }
                    }
                }
            });
            ControlFlow::Continue(())
        })
        .notification::<ln::PublishDiagnostics>(|st, _| {
            st.shared.update(|t| {
                if t.opened {
                    t.diagnostics = true;
                }
            });
            ControlFlow::Continue(())
        })
        .notification::<ln::LogMessage>(|st, m| {
            tracing::debug!(server = %st.shared.server, "log: {}", m.message);
            st.shared.update(|t| {
                if let Readiness::Diagnostics {
                    log_contains: Some(s),
                } = &st.shared.readiness
                {
                    if m.message.contains(s.as_str()) {
                        t.log_seen = true;
                    }
                }
            });
            ControlFlow::Continue(())
        })
        .notification::<ln::ShowMessage>(|st, m| {
            tracing::info!(server = %st.shared.server, "message: {}", m.message);
            ControlFlow::Continue(())
        })
        .unhandled_notification(|st, n| {
            if n.method == "experimental/serverStatus" {
                let quiescent = n.params.get("quiescent").and_then(Value::as_bool) == Some(true);
                let health = n.params.get("health").and_then(Value::as_str).unwrap_or("ok");
                if health == "ok" {
                    tracing::debug!(server = %st.shared.server, status = %n.params, "server status");
                } else {
                    // Still "ready" when quiescent: answers may be incomplete, and say so in the log.
                    tracing::warn!(server = %st.shared.server, status = %n.params, "server status: {health}");
                }
                st.shared.update(|t| t.quiescent = quiescent);
            }
            ControlFlow::Continue(())
        })
        .event::<Stop>(|_, _| ControlFlow::Break(Ok(())));
    router
}
