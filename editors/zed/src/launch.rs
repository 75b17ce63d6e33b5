//! Which program Zed starts as the Metal language server, with which arguments and
//! environment. Plain data in and out, so the decisions are tested on the host.

use std::collections::BTreeMap;

/// The server's name: the key under `lsp` in Zed's settings, the entry in
/// `extension.toml`, and the executable looked up on `PATH`.
pub const SERVER: &str = "msl-lsp";

/// `lsp.msl-lsp.binary` from Zed's settings (every key optional).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BinarySetting {
    pub path: Option<String>,
    pub arguments: Option<Vec<String>>,
    pub env: Option<BTreeMap<String, String>>,
}

/// A process to start.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub command: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Picks the server: the configured `binary.path` if there is one, else `msl-lsp` as
/// found on the worktree's `PATH` (`which`). The configured arguments and environment
/// apply to either. With neither a path nor a match on `PATH`, the error tells the user
/// how to install the server or where to point Zed at it.
pub fn choose_binary(setting: Option<BinarySetting>, which: Option<String>) -> Result<Launch, String> {
    let setting = setting.unwrap_or_default();
    let configured = setting.path.filter(|p| !p.trim().is_empty());
    let command = match configured.or_else(|| which.filter(|p| !p.is_empty())) {
        Some(command) => command,
        None => return Err(not_found()),
    };
    Ok(Launch {
        command,
        args: setting.arguments.unwrap_or_default(),
        env: setting.env.map(|env| env.into_iter().collect()).unwrap_or_default(),
    })
}

/// The message shown in Zed when no server can be found.
fn not_found() -> String {
    format!(
        "{SERVER} was not found on PATH. Install it from the msl repository with \
         `cargo install --path crates/msl-lsp` (it lands in ~/.cargo/bin), or set \
         `lsp.{SERVER}.binary.path` in your Zed settings to the executable."
    )
}

/// `base` (the worktree's shell environment) with `overrides` applied on top: a variable
/// in both takes the value from `overrides`; order is kept, each name appears once.
pub fn merge_env(base: Vec<(String, String)>, overrides: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut merged: Vec<(String, String)> = Vec::with_capacity(base.len() + overrides.len());
    for (name, value) in base.into_iter().chain(overrides) {
        match merged.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => merged.push((name, value)),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(path: Option<&str>, args: Option<&[&str]>, env: &[(&str, &str)]) -> BinarySetting {
        BinarySetting {
            path: path.map(str::to_string),
            arguments: args.map(|a| a.iter().map(|s| s.to_string()).collect()),
            env: (!env.is_empty()).then(|| env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()),
        }
    }

    #[test]
    fn configured_path_wins_over_path_lookup() {
        let launch = choose_binary(
            Some(setting(Some("/opt/msl/bin/msl-lsp"), Some(&["--log-file", "/tmp/msl.log"]), &[])),
            Some("/usr/local/bin/msl-lsp".into()),
        )
        .unwrap();
        assert_eq!(launch.command, "/opt/msl/bin/msl-lsp");
        assert_eq!(launch.args, ["--log-file", "/tmp/msl.log"]);
        assert!(launch.env.is_empty());
    }

    #[test]
    fn path_lookup_is_used_without_a_configured_path() {
        let launch = choose_binary(None, Some("/home/me/.cargo/bin/msl-lsp".into())).unwrap();
        assert_eq!(launch, Launch { command: "/home/me/.cargo/bin/msl-lsp".into(), args: vec![], env: vec![] });
    }

    #[test]
    fn arguments_and_env_apply_to_the_binary_found_on_path() {
        let launch = choose_binary(
            Some(setting(None, Some(&["--log-file", "/tmp/a.log"]), &[("RUST_BACKTRACE", "1")])),
            Some("/usr/bin/msl-lsp".into()),
        )
        .unwrap();
        assert_eq!(launch.command, "/usr/bin/msl-lsp");
        assert_eq!(launch.args, ["--log-file", "/tmp/a.log"]);
        assert_eq!(launch.env, [("RUST_BACKTRACE".to_string(), "1".to_string())]);
    }

    #[test]
    fn a_blank_configured_path_counts_as_unset() {
        let launch = choose_binary(Some(setting(Some("  "), None, &[])), Some("/usr/bin/msl-lsp".into())).unwrap();
        assert_eq!(launch.command, "/usr/bin/msl-lsp");
    }

    #[test]
    fn nothing_found_explains_how_to_install() {
        for which in [None, Some(String::new())] {
            let err = choose_binary(Some(setting(None, Some(&["--stdio"]), &[])), which).unwrap_err();
            assert!(err.contains("cargo install --path crates/msl-lsp"), "{err}");
            assert!(err.contains("lsp.msl-lsp.binary.path"), "{err}");
        }
    }

    #[test]
    fn env_overrides_replace_shell_values_in_place() {
        let base = vec![("PATH".to_string(), "/usr/bin".to_string()), ("HOME".to_string(), "/home/me".to_string())];
        let overrides =
            vec![("RUST_LOG".to_string(), "debug".to_string()), ("PATH".to_string(), "/opt/bin".to_string())];
        assert_eq!(
            merge_env(base, overrides),
            [
                ("PATH".to_string(), "/opt/bin".to_string()),
                ("HOME".to_string(), "/home/me".to_string()),
                ("RUST_LOG".to_string(), "debug".to_string()),
            ]
        );
    }
}
