//! `.refgraph/config.toml`: per-repository settings.
//!
//! ```toml
//! trust = false                 # let rust-analyzer run build scripts and proc-macros
//!
//! [index]
//! max_file_size = 1048576       # bytes; larger source files are skipped
//!
//! [[policy]]                    # stricter thresholds for sensitive paths
//! paths = ["**/auth/**", "**/payments/**"]
//! min_confidence = 0.95
//!
//! [servers.pyright]             # overrides of servers/pyright.toml
//! command = "/opt/pyright/bin/pyright-langserver"
//! ```

use std::path::Path;

use serde::Deserialize;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(default)]
    pub trust: bool,
    #[serde(default)]
    pub index: IndexSection,
    #[serde(default)]
    pub policy: Vec<Policy>,
    /// Per-server overrides, read by the language-server layer.
    #[serde(default)]
    pub servers: toml::Table,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexSection {
    pub max_file_size: Option<u64>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    pub paths: Vec<String>,
    pub min_confidence: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid {path}: {message}")]
    Invalid { path: String, message: String },
}

pub const CONFIG_FILE: &str = "config.toml";

/// Load `<root>/.refgraph/config.toml`; a missing file is the default.
pub fn load(root: &Path) -> Result<Config, ConfigError> {
    let path = root.join(crate::index::DB_DIR).join(CONFIG_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(source) => {
            return Err(ConfigError::Io {
                path: path.display().to_string(),
                source,
            })
        }
    };
    parse(&text).map_err(|message| ConfigError::Invalid {
        path: path.display().to_string(),
        message,
    })
}

pub fn parse(text: &str) -> Result<Config, String> {
    let cfg: Config = toml::from_str(text).map_err(|e| e.to_string())?;
    for p in &cfg.policy {
        if !(0.0..=1.0).contains(&p.min_confidence) {
            return Err(format!(
                "policy min_confidence {} is not between 0 and 1",
                p.min_confidence
            ));
        }
        for g in &p.paths {
            globset::Glob::new(g).map_err(|e| format!("policy path glob `{g}`: {e}"))?;
        }
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_example() {
        let cfg = parse(
            "trust = true\n[index]\nmax_file_size = 10\n[[policy]]\npaths = [\"**/auth/**\"]\nmin_confidence = 0.95\n[servers.pyright]\ncommand = \"x\"\n",
        )
        .unwrap();
        assert!(cfg.trust);
        assert_eq!(cfg.index.max_file_size, Some(10));
        assert_eq!(cfg.policy[0].min_confidence, 0.95);
        assert!(cfg.servers.contains_key("pyright"));
    }

    #[test]
    fn bad_values_are_named() {
        let e = parse("[[policy]]\npaths = [\"a/**\"]\nmin_confidence = 2.0\n").unwrap_err();
        assert!(e.contains("min_confidence 2"), "{e}");
        let e = parse("colour = 1\n").unwrap_err();
        assert!(e.contains("colour"), "{e}");
    }
}
