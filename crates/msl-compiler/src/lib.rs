//! Apple's Metal compiler as a second opinion: find it, run it on a file (saved or not)
//! with the same settings as our own checker, read its diagnostics, and return the AIR
//! (LLVM IR) it emits.
//!
//! Plain data in and out: paths, byte-column positions and strings. The language server
//! and the command-line checker turn them into their own shapes.

pub mod diag;
pub mod discover;
pub mod run;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use msl_syntax::vfs::normalize;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use msl_syntax::{MetalVersion, Platform, PpConfig};

pub use diag::{Diagnostic, FixIt, LineCol, Note, NoteKind, Output, Severity, Span, ToolMessage};
pub use discover::{Compiler, Discover, Discovery, ENV_VAR, Origin};
pub use run::Exit;

/// How long a run may take unless the caller says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// One file to compile, with the editor's unsaved buffers.
#[derive(Debug, Clone)]
pub struct Job<'a> {
    /// The file, as the user knows it.
    pub main: &'a Path,
    /// Its text when it differs from the disk (or it has never been saved).
    pub main_text: Option<&'a str>,
    /// Other unsaved buffers (headers the file may include).
    pub unsaved: &'a [(PathBuf, String)],
    /// Version, platform, defines and include directories: the same as our checker's.
    pub config: &'a PpConfig,
    pub timeout: Duration,
    /// Set to stop the run (a newer edit arrived).
    pub cancel: Option<&'a AtomicBool>,
    /// Where the run's temporary directory is made (default: the system's).
    pub temp_dir: Option<&'a Path>,
}

/// A finished check.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Diagnostics with paths mapped back to the user's files.
    pub diagnostics: Vec<Diagnostic>,
    /// Messages of the driver without a source location.
    pub tool_messages: Vec<ToolMessage>,
    pub exit: Exit,
    /// The argument vector that was run (for logs).
    pub command: Vec<String>,
    pub elapsed: Duration,
    /// Output beyond the limit was dropped.
    pub truncated: bool,
}

/// The AIR of a file, or the diagnostics explaining why there is none.
#[derive(Debug, Clone)]
pub struct Air {
    /// The LLVM IR text, with paths mapped back; `None` when compilation failed.
    pub text: Option<String>,
    pub checked: Checked,
}

/// Why a run produced no verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// The executable could not be started.
    Spawn {
        path: PathBuf,
        message: String,
    },
    TimedOut(Duration),
    Cancelled,
    /// The Metal Toolchain component is not installed: run `command`.
    MissingToolchain {
        command: String,
    },
    /// The compiler crashed.
    Crashed {
        summary: String,
        exit: String,
    },
    /// It failed and said nothing we could attach to the file.
    Failed {
        exit: String,
        message: String,
    },
    /// The temporary directory could not be prepared.
    Io(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Spawn { path, message } => {
                write!(f, "could not run the Metal compiler {}: {message}", path.display())
            }
            RunError::TimedOut(t) => {
                write!(f, "the Metal compiler took longer than {} s and was stopped", t.as_secs_f32())
            }
            RunError::Cancelled => write!(f, "the Metal compiler run was cancelled"),
            RunError::MissingToolchain { command } => write!(f, "{}", missing_toolchain_message(command)),
            RunError::Crashed { summary, exit } => write!(f, "the Metal compiler crashed ({exit}): {summary}"),
            RunError::Failed { exit, message } => write!(f, "the Metal compiler failed ({exit}): {message}"),
            RunError::Io(m) => write!(f, "could not prepare the Metal compiler's files: {m}"),
        }
    }
}

impl std::error::Error for RunError {}

pub(crate) fn missing_toolchain_message(command: &str) -> String {
    format!(
        "the Metal Toolchain is not installed (Xcode 16 and later download it separately); install it with `{command}`"
    )
}

/// The `-std=` value for a version and platform (2.x names the platform).
pub fn std_flag(v: MetalVersion, p: Platform) -> String {
    if v.major >= 3 {
        format!("-std=metal{v}")
    } else {
        let plat = if matches!(p, Platform::MacOS) { "macos" } else { "ios" };
        format!("-std={plat}-metal{v}")
    }
}

/// Checks a file: `-fsyntax-only`.
pub fn check(compiler: &Compiler, job: &Job<'_>) -> Result<Checked, RunError> {
    let work = Workspace::prepare(job)?;
    let mut args = common_args(job.config);
    args.push("-fsyntax-only".into());
    work.finish_args(&mut args);
    execute(compiler, job, &work, args)
}

/// Compiles a file to AIR text (`-S -emit-llvm`, with line tables so that instructions
/// can be traced back to source lines).
pub fn emit_air(compiler: &Compiler, job: &Job<'_>) -> Result<Air, RunError> {
    let work = Workspace::prepare(job)?;
    let out = work.dir.path().join("out.ll");
    let mut args = common_args(job.config);
    args.extend(["-S", "-emit-llvm", "-gline-tables-only"].map(OsString::from));
    args.push("-o".into());
    args.push(out.clone().into_os_string());
    work.finish_args(&mut args);
    let checked = execute(compiler, job, &work, args)?;
    let has_errors = checked.diagnostics.iter().any(|d| d.severity == Severity::Error);
    let text = if checked.exit.success() && !has_errors {
        match std::fs::read(&out) {
            Ok(bytes) => Some(work.map.map_ir(&String::from_utf8_lossy(&bytes))),
            Err(e) => {
                return Err(RunError::Failed {
                    exit: checked.exit.to_string(),
                    message: format!("it reported success but wrote no output ({e})"),
                });
            }
        }
    } else {
        None
    };
    Ok(Air { text, checked })
}

fn common_args(config: &PpConfig) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec!["-x".into(), "metal".into(), std_flag(config.version, config.platform).into()];
    a.extend(
        [
            "-fno-color-diagnostics",
            "-fdiagnostics-parseable-fixits",
            "-fdiagnostics-print-source-range-info",
            "-fdiagnostics-absolute-paths",
            "-ferror-limit=200",
        ]
        .map(OsString::from),
    );
    if !config.fast_math {
        a.push("-fno-fast-math".into());
    }
    for (name, value) in &config.defines {
        a.push(match value {
            Some(v) => format!("-D{name}={v}").into(),
            None => format!("-D{name}").into(),
        });
    }
    for name in &config.undefines {
        a.push(format!("-U{name}").into());
    }
    for dir in &config.include_dirs {
        a.push("-I".into());
        a.push(dir.clone().into_os_string());
    }
    a
}

fn execute(compiler: &Compiler, job: &Job<'_>, work: &Workspace, args: Vec<OsString>) -> Result<Checked, RunError> {
    let command: Vec<String> = std::iter::once(compiler.path.display().to_string())
        .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
        .collect();
    let ran = run::run(&compiler.path, &args, work.dir.path(), job.timeout, job.cancel).map_err(|e| match e {
        run::RunFailure::Spawn(err) => RunError::Spawn { path: compiler.path.clone(), message: err.to_string() },
        run::RunFailure::TimedOut(t) => RunError::TimedOut(t),
        run::RunFailure::Cancelled => RunError::Cancelled,
    })?;
    let mut text = String::from_utf8_lossy(&ran.stderr).into_owned();
    if !ran.stdout.is_empty() && !ran.exit.success() {
        text.push('\n');
        text.push_str(&String::from_utf8_lossy(&ran.stdout));
    }
    let mut parsed = diag::parse_output(&text);
    if let Some(command) = parsed.missing_toolchain.take() {
        return Err(RunError::MissingToolchain { command });
    }
    if ran.exit.signal.is_some() || parsed.crash.is_some() {
        let summary = parsed.crash.clone().unwrap_or_else(|| "it was ended by a signal".to_string());
        return Err(RunError::Crashed { summary, exit: ran.exit.to_string() });
    }
    for d in &mut parsed.diagnostics {
        work.map.map_diagnostic(d);
    }
    if !ran.exit.success() && !parsed.diagnostics.iter().any(|d| d.severity == Severity::Error) {
        let message = if parsed.tool_messages.is_empty() {
            let tail: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).take(5).collect();
            if tail.is_empty() { "it printed nothing".to_string() } else { tail.join(" | ") }
        } else {
            parsed.tool_messages.iter().map(|t| t.message.as_str()).collect::<Vec<_>>().join("; ")
        };
        return Err(RunError::Failed { exit: ran.exit.to_string(), message: work.map.map_text(&message) });
    }
    Ok(Checked {
        diagnostics: parsed.diagnostics,
        tool_messages: parsed.tool_messages,
        exit: ran.exit,
        command,
        elapsed: ran.elapsed,
        truncated: ran.truncated,
    })
}

// ---- the temporary directory and path mapping ------------------------------------------

/// A directory removed when dropped.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    fn new(base: Option<&Path>) -> std::io::Result<TempDir> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let base = base.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        for _ in 0..100 {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let p = base.join(format!("msl-compiler-{}-{n}-{nanos:x}", std::process::id()));
            match std::fs::create_dir(&p) {
                Ok(()) => return Ok(TempDir(p)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other("no free temporary directory name"))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Where the compiler reads the source from: the user's file in place, or (when the
/// editor holds unsaved text) a copy in the temporary directory whose paths are mapped
/// back in everything the compiler says.
struct Workspace {
    dir: TempDir,
    input: PathBuf,
    /// `-iquote` directories so that quoted includes of a copied file still find their
    /// neighbours on disk.
    iquote: Vec<PathBuf>,
    map: PathMap,
}

impl Workspace {
    fn prepare(job: &Job<'_>) -> Result<Workspace, RunError> {
        let dir = TempDir::new(job.temp_dir).map_err(|e| RunError::Io(e.to_string()))?;
        let main = normalize(job.main);
        let main_dir = main.parent().map(Path::to_path_buf).unwrap_or_default();
        let dirty = |path: &Path, text: &str| std::fs::read(path).map_or(true, |disk| disk != text.as_bytes());
        let main_dirty = job.main_text.is_some_and(|t| dirty(&main, t)) || !main.is_file();
        // unsaved headers next to (or below) the file are copied beside the copy
        let headers: Vec<(PathBuf, &str)> = job
            .unsaved
            .iter()
            .map(|(p, t)| (normalize(p), t.as_str()))
            .filter(|(p, t)| *p != main && p.starts_with(&main_dir) && dirty(p, t))
            .collect();
        if !main_dirty && headers.is_empty() {
            return Ok(Workspace { dir, input: main, iquote: Vec::new(), map: PathMap::default() });
        }
        let src = dir.path().join("src");
        let file_name = main.file_name().map(PathBuf::from).unwrap_or_else(|| PathBuf::from("input.metal"));
        let input = src.join(&file_name);
        let write = |to: &Path, text: &[u8]| -> Result<(), RunError> {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| RunError::Io(e.to_string()))?;
            }
            std::fs::write(to, text).map_err(|e| RunError::Io(format!("{}: {e}", to.display())))
        };
        let main_bytes: Vec<u8> = match job.main_text {
            Some(t) => t.as_bytes().to_vec(),
            None => std::fs::read(&main).map_err(|e| RunError::Io(format!("{}: {e}", main.display())))?,
        };
        write(&input, &main_bytes)?;
        let mut iquote = vec![main_dir.clone()];
        for (p, text) in &headers {
            let Ok(rel) = p.strip_prefix(&main_dir) else { continue };
            write(&src.join(rel), text.as_bytes())?;
            if let Some(parent) = p.parent()
                && !iquote.iter().any(|q| q == parent)
            {
                iquote.push(parent.to_path_buf());
            }
        }
        Ok(Workspace { dir, input, iquote, map: PathMap { from: src, to: main_dir } })
    }

    fn finish_args(&self, args: &mut Vec<OsString>) {
        for q in &self.iquote {
            args.push("-iquote".into());
            args.push(q.clone().into_os_string());
        }
        args.push(self.input.clone().into_os_string());
    }
}

/// Rewrites paths under the copy's directory to the user's directory.
#[derive(Debug, Default)]
struct PathMap {
    from: PathBuf,
    to: PathBuf,
}

impl PathMap {
    fn active(&self) -> bool {
        !self.from.as_os_str().is_empty()
    }

    fn map_path(&self, p: &mut PathBuf) {
        if !self.active() {
            return;
        }
        let n = normalize(p);
        if let Ok(rel) = n.strip_prefix(&self.from) {
            *p = self.to.join(rel);
        }
    }

    fn map_span(&self, s: &mut Span) {
        self.map_path(&mut s.path);
    }

    fn map_diagnostic(&self, d: &mut Diagnostic) {
        self.map_path(&mut d.path);
        if let Some(r) = &mut d.range {
            self.map_span(r);
        }
        for r in &mut d.other_ranges {
            self.map_span(r);
        }
        for (p, _) in &mut d.include_stack {
            self.map_path(p);
        }
        for f in &mut d.fixits {
            self.map_span(&mut f.span);
        }
        for n in &mut d.notes {
            self.map_path(&mut n.path);
            if let Some(r) = &mut n.range {
                self.map_span(r);
            }
            for (p, _) in &mut n.include_stack {
                self.map_path(p);
            }
            for f in &mut n.fixits {
                self.map_span(&mut f.span);
            }
        }
        d.message = self.map_text(&d.message);
    }

    /// Replaces the copy's directory in free text.
    fn map_text(&self, text: &str) -> String {
        if !self.active() {
            return text.to_string();
        }
        text.replace(&*self.from.to_string_lossy(), &self.to.to_string_lossy())
    }

    /// Replaces the copy's directory in LLVM IR, where metadata strings escape bytes
    /// outside printable ASCII as `\XX`.
    fn map_ir(&self, ir: &str) -> String {
        if !self.active() {
            return ir.to_string();
        }
        let from = self.from.to_string_lossy();
        let to = self.to.to_string_lossy();
        let out = ir.replace(&llvm_escape(&from), &llvm_escape(&to));
        out.replace(&*from, &to)
    }
}

/// How LLVM prints a string in IR metadata: printable ASCII as is, except `\` and `"`,
/// everything else as `\` and two upper-case hex digits.
pub fn llvm_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if (0x20..0x7f).contains(&b) && b != b'\\' && b != b'"' {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\{b:02X}"));
        }
    }
    out
}

/// Test support for the crates above this one: the stand-in compiler executable
/// (`standin/main.rs`), built by Cargo into the same target directory as the test
/// binaries. `near` is any executable of that directory (e.g. the crate's own binary);
/// when the stand-in is not there yet it is built.
pub fn standin_executable(near: &Path) -> Result<PathBuf, String> {
    let name = format!("msl-compiler-standin{}", std::env::consts::EXE_SUFFIX);
    let dir = near.parent().ok_or("no directory")?;
    // test binaries live in `deps/`, other binaries one level up
    let candidates = [dir.join(&name), dir.parent().map(|p| p.join(&name)).unwrap_or_default()];
    if let Some(found) = candidates.iter().find(|p| p.is_file()) {
        return Ok(found.clone());
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = std::process::Command::new(cargo)
        .args(["build", "--quiet", "-p", "msl-compiler", "--bin", "msl-compiler-standin"])
        .status()
        .map_err(|e| format!("cannot build the stand-in compiler: {e}"))?;
    if !status.success() {
        return Err("building the stand-in compiler failed".into());
    }
    candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| format!("{name} not found near {}", dir.display()))
}

/// Whether a message of ours and one of the compiler's, reported at the same place,
/// describe the same problem: they name a common identifier (ours in backticks, the
/// compiler's in single quotes), or neither names any.
pub fn same_problem(ours: &str, compilers: &str) -> bool {
    fn quoted(s: &str, q: char) -> Vec<&str> {
        s.split(q).skip(1).step_by(2).filter(|w| !w.is_empty()).collect()
    }
    let a = quoted(ours, '`');
    let b = quoted(compilers, '\'');
    if a.is_empty() || b.is_empty() {
        return a.is_empty() && b.is_empty();
    }
    a.iter().any(|x| b.iter().any(|y| x == y || y.starts_with(&format!("{x}(")) || y.ends_with(&format!("::{x}"))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_flags() {
        let v = |s| MetalVersion::parse(s).expect("version");
        assert_eq!(std_flag(v("3.2"), Platform::IOS), "-std=metal3.2");
        assert_eq!(std_flag(v("2.4"), Platform::MacOS), "-std=macos-metal2.4");
        assert_eq!(std_flag(v("2.4"), Platform::IOS), "-std=ios-metal2.4");
    }

    #[test]
    fn ir_escaping() {
        assert_eq!(llvm_escape("/tmp/dé j/\"x\""), "/tmp/d\\C3\\A9 j/\\22x\\22");
    }

    #[test]
    fn same_problems() {
        assert!(same_problem("`clamb` is not declared", "use of undeclared identifier 'clamb'; did you mean 'clamp'?"));
        assert!(!same_problem("`scale_factor` is not declared", "no viable conversion from 'float' to 'half2'"));
        assert!(same_problem("expected `;`", "expected ';' after expression"));
        assert!(!same_problem("missing semicolon", "unused variable 'x'"));
        assert!(same_problem("syntax error", "expected expression"));
    }
}
