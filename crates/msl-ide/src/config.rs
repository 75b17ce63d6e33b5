//! `msl.toml`: per-project settings, found by walking up from each checked file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use msl_syntax::{Platform, PpConfig, config::parse_std};
use rustc_hash::FxHashMap;
use serde::Deserialize;

use crate::rules::{Level, RuleLevels};
use crate::xcode::XcodeSettings;

pub const FILE_NAME: &str = "msl.toml";

/// The keys of `msl.toml` (all optional).
#[derive(Debug, Default, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Metal version: `metal3.2`, `macos-metal2.4`, `ios-metal2.4`.
    pub std: Option<String>,
    /// `macos`, `ios`, `tvos` or `visionos`.
    pub platform: Option<String>,
    /// Include directories, relative to the directory of `msl.toml`.
    #[serde(default)]
    pub include: Vec<String>,
    /// Macros: `NAME` or `NAME=VALUE`.
    #[serde(default)]
    pub defines: Vec<String>,
    #[serde(default)]
    pub undefines: Vec<String>,
    /// Whether `__FAST_MATH__` is defined (default true, as with Apple's compiler).
    pub fast_math: Option<bool>,
    /// Whether quoted includes found nowhere else are looked for in the folders above
    /// their includer (default true; see N0034).
    pub infer_includes: Option<bool>,
    /// Extra file extensions searched in directories, besides `metal`.
    #[serde(default)]
    pub extensions: Vec<String>,
    /// Rule levels by code: `"error"`, `"warning"` or `"off"`.
    #[serde(default)]
    pub rules: BTreeMap<String, String>,
    /// Never accepted: a project's files may not choose the executable we run. Read only
    /// to say so clearly.
    pub compiler: Option<toml::Value>,
    /// The formatter's options (see `msl_fmt::FormatConfig`).
    pub format: Option<msl_fmt::FormatConfig>,
}

/// A loaded `msl.toml`.
#[derive(Debug, Clone)]
pub struct Config {
    pub path: PathBuf,
    pub file: ConfigFile,
}

impl Config {
    pub fn load(path: &Path) -> Result<Config, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file: ConfigFile = toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))?;
        let cfg = Config { path: path.to_path_buf(), file };
        cfg.validate()?;
        Ok(cfg)
    }

    fn validate(&self) -> Result<(), String> {
        let where_ = self.path.display();
        if self.file.compiler.is_some() {
            return Err(format!(
                "{where_}: `compiler` cannot be set in msl.toml: a project's files may not choose the program \
                 msl runs. Set the compiler in your editor's user settings, with `--compiler`, or with $MSL_COMPILER"
            ));
        }
        if let Some(s) = &self.file.std {
            parse_std(s).ok_or_else(|| format!("{where_}: unknown `std` value `{s}` (expected e.g. \"metal3.2\")"))?;
        }
        if let Some(p) = &self.file.platform {
            Platform::parse(p)
                .ok_or_else(|| format!("{where_}: unknown `platform` `{p}` (macos, ios, tvos, visionos)"))?;
        }
        if let Some(f) = &self.file.format {
            f.options().map_err(|e| format!("{where_}: {e}"))?;
        }
        for (code, level) in &self.file.rules {
            Level::parse(level).ok_or_else(|| {
                format!("{where_}: rule `{code}` has level `{level}`; use \"error\", \"warning\" or \"off\"")
            })?;
        }
        Ok(())
    }

    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// Applies this file's settings to a preprocessor configuration.
    pub fn apply(&self, pp: &mut PpConfig, rules: &mut RuleLevels) {
        if let Some((v, p)) = self.file.std.as_deref().and_then(parse_std) {
            pp.version = v;
            if let Some(p) = p {
                pp.platform = p;
            }
        }
        if let Some(p) = self.file.platform.as_deref().and_then(Platform::parse) {
            pp.platform = p;
        }
        for inc in &self.file.include {
            pp.include_dirs.push(self.dir().join(inc));
        }
        for d in &self.file.defines {
            pp.define(d);
        }
        pp.undefines.extend(self.file.undefines.iter().cloned());
        if let Some(f) = self.file.fast_math {
            pp.fast_math = f;
        }
        if let Some(i) = self.file.infer_includes {
            pp.infer_includes = i;
        }
        for (code, level) in &self.file.rules {
            if let Some(l) = Level::parse(level) {
                rules.set(code, l);
            }
        }
    }
}

/// Finds and caches the `msl.toml` that governs each directory, and the Xcode project
/// whose settings apply there.
#[derive(Default)]
pub struct ConfigFinder {
    cache: Mutex<FxHashMap<PathBuf, Option<Config>>>,
    xcode: Mutex<FxHashMap<PathBuf, Option<std::sync::Arc<XcodeSettings>>>>,
}

impl ConfigFinder {
    /// The Metal settings of the Xcode project that holds `dir` (the nearest `.xcodeproj`
    /// at or above it), if there is one and it can be read; a project file that cannot be
    /// read gives none.
    pub fn xcode(&self, dir: &Path) -> Option<std::sync::Arc<XcodeSettings>> {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        if let Ok(cache) = self.xcode.lock()
            && let Some(found) = cache.get(&dir)
        {
            return found.clone();
        }
        let found = crate::xcode::project_for(&dir).and_then(|p| XcodeSettings::load(&p).ok()).map(std::sync::Arc::new);
        if let Ok(mut cache) = self.xcode.lock() {
            cache.insert(dir, found.clone());
        }
        found
    }

    /// The nearest `msl.toml` in `dir` or its ancestors.
    pub fn find(&self, dir: &Path) -> Result<Option<Config>, String> {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        if let Ok(cache) = self.cache.lock()
            && let Some(found) = cache.get(&dir)
        {
            return Ok(found.clone());
        }
        let candidate = dir.join(FILE_NAME);
        let found = if candidate.is_file() {
            Some(Config::load(&candidate)?)
        } else {
            match dir.parent() {
                Some(parent) if parent != dir => self.find(parent)?,
                _ => None,
            }
        };
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(dir, found.clone());
        }
        Ok(found)
    }
}
