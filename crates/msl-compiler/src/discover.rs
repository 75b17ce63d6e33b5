//! Finding Apple's `metal` compiler.
//!
//! In order: an explicit path from the user's settings; the `MSL_COMPILER` environment
//! variable; `xcrun --sdk <sdk> --find metal`; `metal` on `PATH`; the default install
//! location of the Metal Developer Tools on Windows. An explicit path that does not work
//! is reported and nothing else is tried: the user asked for that compiler.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use msl_syntax::Platform;

use crate::run::{RunFailure, run};

/// The environment variable that names the compiler to use.
pub const ENV_VAR: &str = "MSL_COMPILER";

/// Where a compiler was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The user's settings (`compiler.path`, `--compiler PATH`).
    Setting,
    /// The `MSL_COMPILER` environment variable.
    Environment,
    /// `xcrun --sdk SDK --find metal`.
    Xcrun { sdk: &'static str },
    /// A `metal` executable on `PATH`.
    Path,
    /// The Metal Developer Tools' default location on Windows.
    WindowsDefault,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Setting => write!(f, "from the settings"),
            Origin::Environment => write!(f, "from ${ENV_VAR}"),
            Origin::Xcrun { sdk } => write!(f, "from `xcrun --sdk {sdk} --find metal`"),
            Origin::Path => write!(f, "on PATH"),
            Origin::WindowsDefault => write!(f, "in the Metal Developer Tools' default location"),
        }
    }
}

/// A compiler that was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiler {
    pub path: PathBuf,
    pub origin: Origin,
    /// The first line of `metal --version`, when it answered.
    pub version: Option<String>,
}

impl Compiler {
    /// A compiler at a known path, without asking it anything.
    pub fn at(path: impl Into<PathBuf>, origin: Origin) -> Compiler {
        Compiler { path: path.into(), origin, version: None }
    }

    /// One line for logs: path, origin and version.
    pub fn describe(&self) -> String {
        match &self.version {
            Some(v) => format!("{} ({}; {v})", self.path.display(), self.origin),
            None => format!("{} ({})", self.path.display(), self.origin),
        }
    }
}

/// What discovery looks at. [`Discover::from_env`] fills it from the process environment;
/// tests fill it by hand.
#[derive(Debug, Clone)]
pub struct Discover {
    /// An explicit path from the user's settings.
    pub setting: Option<PathBuf>,
    /// The value of `MSL_COMPILER`.
    pub env_var: Option<OsString>,
    /// The value of `PATH`.
    pub path_var: Option<OsString>,
    /// `%ProgramFiles%` (looked at on Windows only by [`Discover::from_env`]).
    pub program_files: Option<PathBuf>,
    pub platform: Platform,
    /// How long `xcrun` and `--version` may take.
    pub probe_timeout: Duration,
}

/// The result of discovery, with what was tried (for logs and `--version --verbose`).
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    pub compiler: Option<Compiler>,
    pub tried: Vec<String>,
    /// A problem worth telling the user (an explicit path that does not work, a missing
    /// Metal Toolchain).
    pub problem: Option<String>,
}

impl Discover {
    pub fn from_env(setting: Option<PathBuf>, platform: Platform) -> Discover {
        Discover {
            setting,
            env_var: std::env::var_os(ENV_VAR).filter(|v| !v.is_empty()),
            path_var: std::env::var_os("PATH"),
            program_files: if cfg!(windows) { std::env::var_os("ProgramFiles").map(PathBuf::from) } else { None },
            platform,
            probe_timeout: Duration::from_secs(10),
        }
    }

    pub fn run(&self) -> Discovery {
        let mut d = Discovery::default();
        let explicit =
            [(self.setting.clone(), Origin::Setting), (self.env_var.clone().map(PathBuf::from), Origin::Environment)];
        for (path, origin) in explicit {
            let Some(path) = path else { continue };
            d.tried.push(format!("{} {origin}", path.display()));
            if let Some(found) = executable(&path) {
                d.compiler = Some(self.probe(Compiler::at(found, origin), &mut d));
            } else {
                d.problem = Some(format!(
                    "the Metal compiler {} ({origin}) does not exist or is not an executable file",
                    path.display()
                ));
            }
            return d;
        }
        let sdk = sdk_of(self.platform);
        if let Some(xcrun) = self.which("xcrun") {
            d.tried.push(format!("xcrun --sdk {sdk} --find metal"));
            let args: Vec<OsString> = ["--sdk", sdk, "--find", "metal"].iter().map(OsString::from).collect();
            let cwd = std::env::temp_dir();
            match run(&xcrun, &args, &cwd, self.probe_timeout, None) {
                Ok(r) if r.exit.success() => {
                    let out = String::from_utf8_lossy(&r.stdout);
                    if let Some(p) = out.lines().map(str::trim).find(|l| !l.is_empty())
                        && let Some(found) = executable(Path::new(p))
                    {
                        d.compiler = Some(self.probe(Compiler::at(found, Origin::Xcrun { sdk }), &mut d));
                        return d;
                    }
                }
                Ok(r) => {
                    let err = String::from_utf8_lossy(&r.stderr);
                    if let Some(line) = err.lines().find(|l| !l.trim().is_empty()) {
                        d.tried.push(format!("  xcrun: {}", line.trim()));
                    }
                }
                Err(e) => d.tried.push(format!("  xcrun: {}", failure_text(&e))),
            }
        }
        d.tried.push("metal on PATH".to_string());
        if let Some(found) = self.which("metal") {
            d.compiler = Some(self.probe(Compiler::at(found, Origin::Path), &mut d));
            return d;
        }
        if let Some(pf) = &self.program_files {
            let sub = if matches!(self.platform, Platform::MacOS) { "macos" } else { "ios" };
            let path = pf.join("Metal Developer Tools").join(sub).join("bin").join("metal.exe");
            d.tried.push(path.display().to_string());
            if let Some(found) = executable(&path) {
                d.compiler = Some(self.probe(Compiler::at(found, Origin::WindowsDefault), &mut d));
                return d;
            }
        }
        d
    }

    /// Asks the compiler for its version; notices a missing Metal Toolchain.
    fn probe(&self, mut c: Compiler, d: &mut Discovery) -> Compiler {
        let cwd = std::env::temp_dir();
        match run(&c.path, &[OsString::from("--version")], &cwd, self.probe_timeout, None) {
            Ok(r) => {
                let text = format!("{}{}", String::from_utf8_lossy(&r.stdout), String::from_utf8_lossy(&r.stderr));
                let parsed = crate::diag::parse_output(&text);
                if let Some(cmd) = parsed.missing_toolchain {
                    d.problem = Some(crate::missing_toolchain_message(&cmd));
                } else if r.exit.success() {
                    c.version = text.lines().map(str::trim).find(|l| !l.is_empty()).map(str::to_string);
                } else {
                    d.problem = Some(format!("`{} --version` failed ({})", c.path.display(), r.exit));
                }
            }
            Err(e) => d.problem = Some(format!("`{} --version`: {}", c.path.display(), failure_text(&e))),
        }
        c
    }

    fn which(&self, name: &str) -> Option<PathBuf> {
        let path_var = self.path_var.as_deref()?;
        for dir in std::env::split_paths(path_var) {
            if dir.as_os_str().is_empty() {
                continue;
            }
            for candidate in candidates(&dir, name) {
                if let Some(found) = executable(&candidate) {
                    return Some(found);
                }
            }
        }
        None
    }
}

fn candidates(dir: &Path, name: &str) -> Vec<PathBuf> {
    if cfg!(windows) { vec![dir.join(format!("{name}.exe")), dir.join(name)] } else { vec![dir.join(name)] }
}

/// The SDK `xcrun` is asked about for a platform.
pub fn sdk_of(p: Platform) -> &'static str {
    match p {
        Platform::MacOS => "macosx",
        Platform::IOS => "iphoneos",
        Platform::TvOS => "appletvos",
        Platform::VisionOS => "xros",
    }
}

/// The path if it names an executable file.
fn executable(path: &Path) -> Option<PathBuf> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return None;
        }
    }
    Some(path.to_path_buf())
}

pub(crate) fn failure_text(e: &RunFailure) -> String {
    match e {
        RunFailure::Spawn(e) => format!("could not start: {e}"),
        RunFailure::TimedOut(t) => format!("gave no answer within {} s and was stopped", t.as_secs_f32()),
        RunFailure::Cancelled => "cancelled".to_string(),
    }
}

/// `OsStr` helper for callers that build settings from strings.
pub fn path_setting(s: &str) -> Option<PathBuf> {
    let s = s.trim();
    (!s.is_empty()).then(|| PathBuf::from(OsStr::new(s)))
}
