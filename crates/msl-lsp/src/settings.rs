//! The server's settings: from the client (`initializationOptions`,
//! `workspace/configuration`) and from the `msl.toml` nearest to each file.

use std::path::{Path, PathBuf};

use msl_ide::FileSettings;
use msl_ide::config::ConfigFinder;
use msl_ide::rules::{Level, RuleLevels};
use msl_syntax::config::parse_std;
use msl_syntax::{MetalVersion, Platform, PpConfig};
use serde_json::Value;

/// What the client configured (every key optional).
#[derive(Debug, Clone, PartialEq)]
pub struct ClientSettings {
    pub std: Option<(MetalVersion, Option<Platform>)>,
    pub platform: Option<Platform>,
    pub include_paths: Vec<String>,
    pub defines: Vec<String>,
    pub rules: Vec<(String, Level)>,
    pub inlay_auto_types: bool,
    pub inlay_parameter_names: bool,
    pub compiler: CompilerSettings,
}

/// When Apple's compiler runs beside our checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompilerMode {
    /// After a file (or a header it includes) is saved.
    OnSave,
    /// Also when typing pauses.
    OnIdle,
    Off,
}

/// The `compiler` settings. Only the client (the user's settings) can name the
/// executable; `msl.toml` cannot.
#[derive(Debug, Clone, PartialEq)]
pub struct CompilerSettings {
    pub path: Option<PathBuf>,
    pub mode: CompilerMode,
    pub timeout: std::time::Duration,
}

impl Default for CompilerSettings {
    fn default() -> Self {
        CompilerSettings { path: None, mode: CompilerMode::OnSave, timeout: msl_compiler::DEFAULT_TIMEOUT }
    }
}

impl Default for ClientSettings {
    fn default() -> Self {
        ClientSettings {
            std: None,
            platform: None,
            include_paths: Vec::new(),
            defines: Vec::new(),
            rules: Vec::new(),
            inlay_auto_types: true,
            inlay_parameter_names: true,
            compiler: CompilerSettings::default(),
        }
    }
}

impl ClientSettings {
    /// Reads settings from a JSON object; the keys may also sit under an `msl` key.
    /// Unknown keys are ignored; values of the wrong shape are reported and skipped.
    pub fn from_json(value: &Value, problems: &mut Vec<String>) -> ClientSettings {
        let v = value.get("msl").unwrap_or(value);
        let mut s = ClientSettings::default();
        let text = |key: &str| v.get(key).and_then(|x| x.as_str()).map(str::to_string);
        let std = text("std")
            .or_else(|| text("metalVersion"))
            .or_else(|| v.pointer("/metal/version").and_then(|x| x.as_str()).map(str::to_string));
        if let Some(std) = std {
            let spelled =
                if std.starts_with(|c: char| c.is_ascii_digit()) { format!("metal{std}") } else { std.clone() };
            match parse_std(&spelled) {
                Some(p) => s.std = Some(p),
                None => problems.push(format!("unknown Metal version `{std}` (expected e.g. \"metal3.2\" or \"3.2\")")),
            }
        }
        if let Some(p) =
            text("platform").or_else(|| v.pointer("/metal/platform").and_then(|x| x.as_str()).map(str::to_string))
        {
            match Platform::parse(&p) {
                Some(p) => s.platform = Some(p),
                None => problems.push(format!("unknown platform `{p}` (macos, ios, tvos, visionos)")),
            }
        }
        let list = |key: &str| -> Vec<String> {
            v.get(key)
                .and_then(|x| x.as_array())
                .map(|a| a.iter().filter_map(|i| i.as_str().map(str::to_string)).collect())
                .unwrap_or_default()
        };
        s.include_paths = list("includePaths");
        s.defines = list("defines");
        if let Some(rules) = v.get("rules").and_then(|r| r.as_object()) {
            for (code, level) in rules {
                match level.as_str().and_then(Level::parse) {
                    Some(l) => s.rules.push((code.clone(), l)),
                    None => problems.push(format!("rule `{code}`: use \"error\", \"warning\" or \"off\"")),
                }
            }
        }
        match v.get("inlayHints") {
            Some(Value::Bool(b)) => {
                s.inlay_auto_types = *b;
                s.inlay_parameter_names = *b;
            }
            Some(Value::Object(o)) => {
                if let Some(b) = o.get("autoTypes").and_then(|b| b.as_bool()) {
                    s.inlay_auto_types = b;
                }
                if let Some(b) = o.get("parameterNames").and_then(|b| b.as_bool()) {
                    s.inlay_parameter_names = b;
                }
                if let Some(false) = o.get("enabled").and_then(|b| b.as_bool()) {
                    s.inlay_auto_types = false;
                    s.inlay_parameter_names = false;
                }
            }
            _ => {}
        }
        if let Some(c) = v.get("compiler") {
            if let Some(p) = c.get("path").and_then(|p| p.as_str()) {
                s.compiler.path = msl_compiler::discover::path_setting(p);
            }
            match c.get("mode").and_then(|m| m.as_str()) {
                Some("onSave") | None => {}
                Some("onIdle") => s.compiler.mode = CompilerMode::OnIdle,
                Some("off") => s.compiler.mode = CompilerMode::Off,
                Some(other) => problems.push(format!("compiler mode `{other}`: use \"onSave\", \"onIdle\" or \"off\"")),
            }
            if let Some(t) = c.get("timeoutSeconds").and_then(|t| t.as_f64()) {
                if t > 0.0 && t.is_finite() {
                    s.compiler.timeout = std::time::Duration::from_secs_f64(t.min(3600.0));
                } else {
                    problems.push(format!("compiler timeoutSeconds `{t}` must be positive"));
                }
            }
        }
        s
    }

    /// The settings of one file: the client's, then its `msl.toml`.
    pub fn for_file(&self, path: &Path, roots: &[PathBuf], finder: &ConfigFinder) -> (FileSettings, Option<String>) {
        let mut config = PpConfig::default();
        let mut rules = RuleLevels::default();
        // the Xcode project's Metal settings come first; the editor's and msl.toml's win
        if let Some(x) = path.parent().and_then(|dir| finder.xcode(dir)) {
            x.apply_to(&mut config);
        }
        if let Some((v, p)) = self.std {
            config.version = v;
            if let Some(p) = p {
                config.platform = p;
            }
        }
        if let Some(p) = self.platform {
            config.platform = p;
        }
        let base = roots
            .iter()
            .find(|r| path.starts_with(r))
            .cloned()
            .or_else(|| path.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        for inc in &self.include_paths {
            let p = PathBuf::from(inc);
            config.include_dirs.push(if p.is_absolute() { p } else { base.join(p) });
        }
        for d in &self.defines {
            config.define(d);
        }
        // quoted includes found nowhere else are also looked for in the workspace folders
        config.search_roots = roots.to_vec();
        for (code, level) in &self.rules {
            rules.set(code, *level);
        }
        let mut problem = None;
        match finder.find(path.parent().unwrap_or(Path::new("."))) {
            Ok(Some(file)) => file.apply(&mut config, &mut rules),
            Ok(None) => {}
            Err(e) => problem = Some(e),
        }
        (FileSettings { config, rules }, problem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn client_settings_from_json() {
        let mut problems = Vec::new();
        let s = ClientSettings::from_json(
            &json!({"msl": {"std": "3.1", "platform": "ios", "defines": ["A=1"], "rules": {"W1101": "off", "E1": "loud"}, "inlayHints": {"parameterNames": false}}}),
            &mut problems,
        );
        assert_eq!(s.std, Some((MetalVersion::V3_1, None)));
        assert_eq!(s.platform, Some(Platform::IOS));
        assert_eq!(s.defines, vec!["A=1".to_string()]);
        assert_eq!(s.rules, vec![("W1101".to_string(), Level::Off)]);
        assert!(s.inlay_auto_types && !s.inlay_parameter_names);
        assert_eq!(problems.len(), 1, "{problems:?}");
        let mut problems = Vec::new();
        let s = ClientSettings::from_json(&json!({"std": "metal9"}), &mut problems);
        assert_eq!(s.std, None);
        assert_eq!(problems.len(), 1);
        let mut problems = Vec::new();
        let s = ClientSettings::from_json(
            &json!({"compiler": {"path": "/opt/metal", "mode": "onIdle", "timeoutSeconds": 5}}),
            &mut problems,
        );
        assert_eq!(s.compiler.path, Some(PathBuf::from("/opt/metal")));
        assert_eq!(s.compiler.mode, CompilerMode::OnIdle);
        assert_eq!(s.compiler.timeout, std::time::Duration::from_secs(5));
        let s = ClientSettings::from_json(&json!({"compiler": {"path": "", "mode": "sometimes"}}), &mut problems);
        assert_eq!(s.compiler.path, None);
        assert_eq!(s.compiler.mode, CompilerMode::OnSave);
        assert_eq!(problems.len(), 1, "{problems:?}");
    }
}
