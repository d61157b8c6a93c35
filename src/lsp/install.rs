//! Finding and installing servers: `which` first, then refgraph's own prefix
//! (`$REFGRAPH_HOME/servers`); versions are probed by running the server, since a
//! binary on PATH may be a broken shim (rustup's `rust-analyzer` proxy with no
//! component behind it).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::spec::{Install, ServerSpec};
use super::LspConfig;

/// What `refgraph servers` shows for one server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerStatus {
    pub name: String,
    pub languages: Vec<String>,
    pub found: bool,
    pub path: Option<PathBuf>,
    /// The version the binary reports (or the pinned one for refgraph's own install).
    pub version: Option<String>,
    pub pinned_version: Option<String>,
    /// Why a candidate was rejected (e.g. a shim that fails to run), if any.
    pub note: Option<String>,
    /// How to install the pinned version.
    pub install_hint: String,
}

impl ServerStatus {
    pub fn at_pinned_version(&self) -> bool {
        self.found && self.version.is_some() && self.version == self.pinned_version
    }
}

/// One step of [`install`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstallEvent {
    /// Already installed at the pinned version.
    Skipped {
        server: String,
        version: String,
        path: PathBuf,
    },
    Running {
        server: String,
        command: String,
    },
    Installed {
        server: String,
        version: String,
        path: PathBuf,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("unknown server `{0}` (known: {1})")]
    Unknown(String, String),
    #[error("{server}: `{server}` cannot be installed by refgraph; put it on PATH")]
    NotInstallable { server: String },
    #[error("{server}: `{command}` could not start: {source}")]
    Spawn {
        server: String,
        command: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{server}: `{command}` failed ({status}): {stderr_tail}")]
    Failed {
        server: String,
        command: String,
        status: String,
        stderr_tail: String,
    },
    #[error("{server}: `{command}` succeeded but the server is still not found at {expected}")]
    Missing {
        server: String,
        command: String,
        expected: String,
    },
}

/// refgraph's install prefix: `$REFGRAPH_HOME/servers`, default
/// `~/.local/share/refgraph/servers`.
pub fn default_prefix() -> PathBuf {
    home_dir().join("servers")
}

/// refgraph's data home: `$REFGRAPH_HOME`, default `~/.local/share/refgraph`.
pub fn home_dir() -> PathBuf {
    if let Some(h) = std::env::var_os("REFGRAPH_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h);
    }
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("refgraph")
}

/// Where refgraph's own install of `spec` puts its binary.
pub fn prefix_binary(spec: &ServerSpec, prefix: &Path) -> Option<PathBuf> {
    match &spec.install {
        Install::Npm { .. } => Some(prefix.join("npm/node_modules/.bin").join(&spec.command)),
        Install::Cargo { root, .. } => Some(prefix.join(root).join("bin").join(&spec.command)),
        Install::None { .. } => None,
    }
}

/// The exact command that installs the pinned version.
pub fn install_command(spec: &ServerSpec, prefix: &Path) -> Option<Vec<String>> {
    match &spec.install {
        Install::Npm { packages, .. } => {
            let mut c = vec![
                "npm".to_string(),
                "install".into(),
                "--prefix".into(),
                prefix.join("npm").display().to_string(),
            ];
            c.extend(packages.iter().cloned());
            Some(c)
        }
        Install::Cargo {
            version,
            krate,
            root,
        } => Some(vec![
            "cargo".into(),
            "install".into(),
            "--locked".into(),
            format!("{krate}@{version}"),
            "--root".into(),
            prefix.join(root).display().to_string(),
        ]),
        Install::None { .. } => None,
    }
}

fn hint(spec: &ServerSpec, prefix: &Path) -> String {
    match install_command(spec, prefix) {
        Some(_) => format!(
            "run `refgraph servers install {}` ({})",
            spec.name,
            install_command(spec, prefix).unwrap().join(" ")
        ),
        None => format!("put `{}` on PATH", spec.command),
    }
}

/// Find one server: `which`, then the prefix; the first candidate whose version
/// probe exits successfully wins.
pub fn find(spec: &ServerSpec, prefix: &Path) -> ServerStatus {
    let mut status = ServerStatus {
        name: spec.name.clone(),
        languages: spec.languages.clone(),
        found: false,
        path: None,
        version: None,
        pinned_version: spec.install.pinned_version().map(str::to_string),
        note: None,
        install_hint: hint(spec, prefix),
    };
    let own = prefix_binary(spec, prefix);
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(p) = which::which(&spec.command) {
        candidates.push(p);
    }
    if let Some(p) = own.clone().filter(|p| p.is_file()) {
        if !candidates.contains(&p) {
            candidates.push(p);
        }
    }
    let mut notes = Vec::new();
    for cand in candidates {
        match probe_version(spec, &cand) {
            Ok(v) => {
                let in_own_root = own.as_deref() == Some(cand.as_path());
                // Our own cargo install root is named by its version; the binary
                // itself may report a different (0.0.0) version string.
                let version = match (&spec.install, in_own_root) {
                    (Install::Cargo { version, .. }, true) => Some(version.clone()),
                    _ => v,
                };
                status.found = true;
                status.path = Some(cand);
                status.version = version;
                break;
            }
            Err(e) => notes.push(format!("{}: {e}", cand.display())),
        }
    }
    if !notes.is_empty() {
        status.note = Some(notes.join("; "));
    }
    status
}

/// Run the version command (looked up next to `bin` first) and pull a dotted
/// version number out of its output.
fn probe_version(spec: &ServerSpec, bin: &Path) -> Result<Option<String>, String> {
    let (prog, args): (PathBuf, Vec<String>) = match spec.version_command.split_first() {
        Some((p, rest)) => {
            let sibling = bin.parent().map(|d| d.join(p));
            let prog = if Path::new(p).is_absolute() {
                PathBuf::from(p)
            } else if p == &spec.command {
                bin.to_path_buf()
            } else if let Some(s) = sibling.filter(|s| s.is_file()) {
                s
            } else {
                PathBuf::from(p)
            };
            (prog, rest.to_vec())
        }
        None => (bin.to_path_buf(), vec!["--version".into()]),
    };
    let out = run_with_timeout(&prog, &args, Duration::from_secs(20))?;
    Ok(parse_version(&out))
}

fn run_with_timeout(prog: &Path, args: &[String], timeout: Duration) -> Result<String, String> {
    let mut cmd = Command::new(prog);
    crate::memory::restore_in_child(&mut cmd);
    let mut child = cmd
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "`{} {}` could not start: {e}",
                prog.display(),
                args.join(" ")
            )
        })?;
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "`{} {}` did not exit within {}s",
                    prog.display(),
                    args.join(" "),
                    timeout.as_secs()
                ));
            }
        }
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "`{} {}` failed ({}): {}",
            prog.display(),
            args.join(" "),
            out.status,
            err.lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or("")
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn tail(s: &str, lines: usize) -> String {
    let v: Vec<&str> = s.lines().filter(|l| !l.trim().is_empty()).collect();
    v[v.len().saturating_sub(lines)..].join(" | ")
}

/// The first `N.N[.N…]` token in `out`.
pub fn parse_version(out: &str) -> Option<String> {
    out.split(|c: char| c.is_whitespace() || c == '@' || c == '(' || c == ')')
        .map(|t| t.trim_start_matches('v'))
        .find(|t| {
            let parts: Vec<&str> = t.split('.').collect();
            parts.len() >= 2
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        })
        .map(str::to_string)
}

/// Every configured server's status, sorted by name.
pub fn status(cfg: &LspConfig) -> Vec<ServerStatus> {
    cfg.specs.values().map(|s| find(s, &cfg.prefix)).collect()
}

/// Install the named servers (all when `names` is empty) at their pinned versions
/// into the prefix, skipping those already there. Stops at the first failure.
pub fn install(
    names: &[String],
    cfg: &LspConfig,
    progress: &mut dyn FnMut(&InstallEvent),
) -> Result<Vec<InstallEvent>, InstallError> {
    let specs: Vec<&ServerSpec> = if names.is_empty() {
        cfg.specs.values().collect()
    } else {
        names
            .iter()
            .map(|n| {
                cfg.specs.get(n).ok_or_else(|| {
                    InstallError::Unknown(
                        n.clone(),
                        cfg.specs.keys().cloned().collect::<Vec<_>>().join(", "),
                    )
                })
            })
            .collect::<Result<_, _>>()?
    };
    let mut done = Vec::new();
    for spec in specs {
        let before = find(spec, &cfg.prefix);
        if before.at_pinned_version() {
            let ev = InstallEvent::Skipped {
                server: spec.name.clone(),
                version: before.version.clone().unwrap_or_default(),
                path: before.path.clone().unwrap_or_default(),
            };
            progress(&ev);
            done.push(ev);
            continue;
        }
        let Some(cmd) = install_command(spec, &cfg.prefix) else {
            return Err(InstallError::NotInstallable {
                server: spec.name.clone(),
            });
        };
        let shown = cmd.join(" ");
        let ev = InstallEvent::Running {
            server: spec.name.clone(),
            command: shown.clone(),
        };
        progress(&ev);
        if let Some(parent) = prefix_binary(spec, &cfg.prefix)
            .and_then(|p| p.parent().and_then(|p| p.parent()).map(Path::to_path_buf))
        {
            let _ = std::fs::create_dir_all(parent);
        }
        let mut command = Command::new(&cmd[0]);
        crate::memory::restore_in_child(&mut command);
        let out = command
            .args(&cmd[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(|source| InstallError::Spawn {
                server: spec.name.clone(),
                command: shown.clone(),
                source,
            })?;
        if !out.status.success() {
            return Err(InstallError::Failed {
                server: spec.name.clone(),
                command: shown,
                status: out.status.to_string(),
                stderr_tail: tail(&String::from_utf8_lossy(&out.stderr), 5),
            });
        }
        let after = find(spec, &cfg.prefix);
        let expected = prefix_binary(spec, &cfg.prefix).unwrap_or_default();
        if !after.found {
            return Err(InstallError::Missing {
                server: spec.name.clone(),
                command: shown,
                expected: expected.display().to_string(),
            });
        }
        let ev = InstallEvent::Installed {
            server: spec.name.clone(),
            version: after.version.unwrap_or_default(),
            path: after.path.unwrap_or(expected),
        };
        progress(&ev);
        done.push(ev);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_from_real_outputs() {
        assert_eq!(
            parse_version("pyright 1.1.414\n").as_deref(),
            Some("1.1.414")
        );
        assert_eq!(parse_version("5.3.0\n").as_deref(), Some("5.3.0"));
        assert_eq!(
            parse_version("rust-analyzer 0.0.0 (abc123 2025-01-01)").as_deref(),
            Some("0.0.0")
        );
        assert_eq!(parse_version("v20.1.0").as_deref(), Some("20.1.0"));
        assert_eq!(parse_version("no version here"), None);
    }

    #[test]
    fn install_commands_are_pinned() {
        let specs = super::super::spec::defaults();
        let p = Path::new("/p");
        assert_eq!(
            install_command(&specs["pyright"], p).unwrap().join(" "),
            "npm install --prefix /p/npm pyright@1.1.414"
        );
        assert_eq!(
            install_command(&specs["rust-analyzer"], p)
                .unwrap()
                .join(" "),
            "cargo install --locked ra_ap_rust-analyzer@0.0.330 --root /p/rust-analyzer-0.0.330"
        );
        assert_eq!(
            prefix_binary(&specs["rust-analyzer"], p).unwrap(),
            Path::new("/p/rust-analyzer-0.0.330/bin/rust-analyzer")
        );
    }

    #[test]
    fn a_failing_shim_is_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let shim = dir.path().join("broken-server");
        std::fs::write(&shim, "#!/bin/sh\necho 'error: no component' >&2\nexit 1\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut spec = super::super::spec::defaults()["rust-analyzer"].clone();
        spec.command = shim.display().to_string();
        spec.version_command = vec![];
        let st = find(&spec, dir.path());
        assert!(!st.found);
        assert!(st.note.unwrap().contains("no component"));
        assert!(st.install_hint.contains("cargo install --locked"));
    }
}
