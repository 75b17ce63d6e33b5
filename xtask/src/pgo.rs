//! Profile-guided builds: `cargo xtask bench --pgo` and `cargo xtask dist` build the
//! binaries twice, first instrumented, then, after a training run over the repository's
//! own fixtures, optimised with the counts it wrote.
//!
//! The training parses and checks every `.metal` file under `fixtures/` (no corpus file:
//! the corpus is what the bench measures on). The binaries are built together, in one
//! cargo invocation, so that the libraries the training ran (`msl-syntax`, `msl-hir`) are
//! the very ones linked into each of them and their profile applies to all.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The packages a profile-guided build makes: the bench (in `xtask`) and what ships.
const PACKAGES: [&str; 3] = ["xtask", "msl-lsp", "msl-check"];

/// The internal command that runs the training workload (see [`train`]).
pub const TRAIN: &str = "pgo-train";

/// Why there is no profile-guided build.
pub enum Error {
    /// The toolchain has no `llvm-profdata` (and rustup could not add it).
    NoProfdata(String),
    /// A build or the training failed.
    Failed(String),
}

impl From<String> for Error {
    fn from(e: String) -> Error {
        Error::Failed(e)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NoProfdata(e) | Error::Failed(e) => f.write_str(e),
        }
    }
}

/// The directory of the binaries of a profile-guided release build for the host, made
/// now.
pub fn build() -> Result<PathBuf, Error> {
    let started = Instant::now();
    let host = host_triple()?;
    let profdata = llvm_profdata(&host).map_err(Error::NoProfdata)?;
    let dir = crate::root().join("target/pgo");
    let raw = dir.join("raw");
    let merged = dir.join("msl.profdata");

    // 1. instrumented
    let generate = format!("-Cprofile-generate={}", raw.display());
    cargo_build(&host, &dir.join("generate"), &generate, "instrumented build")?;
    // the counts of an earlier training must not be merged with this one's (and the
    // build's own build scripts, not built for `--target`, wrote none)
    let _ = std::fs::remove_dir_all(&raw);

    // 2. training
    let trainer = dir.join("generate").join(&host).join("release").join(crate::exe("xtask"));
    crate::step("training: parse and check fixtures/", Command::new(&trainer).arg(TRAIN))?;
    crate::step("merge the training's counts", Command::new(&profdata).arg("merge").arg("-o").arg(&merged).arg(&raw))?;

    // 3. optimised with the counts
    let target = dir.join("use");
    let use_flag = format!("-Cprofile-use={}", merged.display());
    cargo_build(&host, &target, &use_flag, "profile-guided build")?;
    println!("   (instrumented build, training and optimised build: {:.0} s in all)", started.elapsed().as_secs_f64());
    Ok(target.join(&host).join("release"))
}

/// A release build of [`PACKAGES`] for `host` into `target_dir`, with `flag` added to the
/// compiler's flags. `--target` keeps the flag off build scripts and procedural macros,
/// which run on the host during the build.
fn cargo_build(host: &str, target_dir: &Path, flag: &str, what: &str) -> Result<(), String> {
    let flags = encoded_rustflags(
        std::env::var("CARGO_ENCODED_RUSTFLAGS").ok().as_deref(),
        std::env::var("RUSTFLAGS").ok().as_deref(),
        flag,
    );
    let mut cmd = Command::new(crate::cargo());
    cmd.args(["build", "--release", "--quiet", "--target", host]).arg("--target-dir").arg(target_dir);
    for p in PACKAGES {
        cmd.args(["-p", p]);
    }
    cmd.env("CARGO_ENCODED_RUSTFLAGS", flags).env_remove("RUSTFLAGS").current_dir(crate::root());
    crate::step(what, &mut cmd)
}

/// The compiler flags of the environment (`CARGO_ENCODED_RUSTFLAGS`, which cargo prefers,
/// else `RUSTFLAGS`) with `flag` added, in cargo's encoded form: flags separated by
/// 0x1f, so that a path with spaces in `flag` stays one flag.
fn encoded_rustflags(encoded: Option<&str>, plain: Option<&str>, flag: &str) -> String {
    let mut flags: Vec<&str> = match (encoded, plain) {
        (Some(e), _) => e.split('\x1f').filter(|f| !f.is_empty()).collect(),
        (None, Some(p)) => p.split_whitespace().collect(),
        (None, None) => Vec::new(),
    };
    flags.push(flag);
    flags.join("\x1f")
}

/// The host's target triple, as rustc names it.
pub fn host_triple() -> Result<String, String> {
    let out = Command::new(rustc()).arg("-vV").output().map_err(|e| format!("cannot run rustc: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .ok_or_else(|| "rustc -vV names no host".to_string())
}

fn rustc() -> String {
    std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into())
}

/// The `llvm-profdata` of the toolchain's own LLVM (its profile format must match the
/// compiler's): rustup's `llvm-tools` component, installed if it is missing.
fn llvm_profdata(host: &str) -> Result<PathBuf, String> {
    let out =
        Command::new(rustc()).args(["--print", "sysroot"]).output().map_err(|e| format!("cannot run rustc: {e}"))?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let tool = sysroot.join("lib/rustlib").join(host).join("bin").join(crate::exe("llvm-profdata"));
    if tool.is_file() {
        return Ok(tool);
    }
    println!("== rustup component add llvm-tools (for llvm-profdata)");
    let added = Command::new("rustup").args(["component", "add", "llvm-tools"]).status();
    if tool.is_file() {
        return Ok(tool);
    }
    Err(format!(
        "a profile-guided build needs llvm-profdata from the toolchain's `llvm-tools` component, \
         which is not installed ({}); install it with `rustup component add llvm-tools`",
        match added {
            Ok(s) => format!("rustup: {s}"),
            Err(e) => format!("cannot run rustup: {e}"),
        }
    ))
}

/// The training workload, run by the instrumented build: every fixture parsed (on one
/// thread, and as a long file is, on two) and checked, as the language server and
/// `msl-check` do, several times over so that the counts are well above noise.
pub fn train(_args: &[String]) -> Result<u8, String> {
    use msl_syntax::{FileResolver, PpConfig, Vfs, parse_file, parse_file_ahead};

    let mut files = Vec::new();
    metal_files(&crate::root().join("fixtures"), &mut files);
    files.sort();
    if files.is_empty() {
        return Err("no .metal files under fixtures/".into());
    }
    let cfg = PpConfig::default();
    let vfs = Vfs::with_disk();
    let ids = files
        .iter()
        .map(|f| vfs.load(f).map_err(|e| format!("{}: {e}", f.display())))
        .collect::<Result<Vec<_>, _>>()?;
    let mut diagnostics = 0usize;
    for _ in 0..20 {
        for &id in &ids {
            for two_threads in [false, true] {
                msl_syntax::parse_on_two_threads(two_threads);
                diagnostics += parse_file(id, &vfs, &cfg).diagnostics().len();
            }
            diagnostics += parse_file_ahead(id, &vfs, &cfg).diagnostics().len();
        }
    }
    for _ in 0..3 {
        for (f, &id) in files.iter().zip(&ids) {
            let mut a = msl_hir::Analysis::with_disk();
            let main = a.set_file(f, vfs.text(id));
            let unit = a.unit(main, cfg.clone());
            diagnostics += a.diagnostics(unit, false).len();
        }
    }
    println!("   ({} files parsed and checked; {diagnostics} diagnostics)", files.len());
    Ok(0)
}

fn metal_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            metal_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "metal") {
            out.push(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::encoded_rustflags;

    #[test]
    fn the_profile_flag_is_added_to_the_environment_s_flags_as_one_flag() {
        let flag = "-Cprofile-use=/home/a user/msl/target/pgo/msl.profdata";
        assert_eq!(encoded_rustflags(None, None, flag), flag);
        assert_eq!(
            encoded_rustflags(None, Some(" -Cdebuginfo=1  -Dwarnings "), flag),
            format!("-Cdebuginfo=1\x1f-Dwarnings\x1f{flag}")
        );
        // cargo takes the encoded variable over the plain one, and so does the build
        assert_eq!(
            encoded_rustflags(Some("-Cfoo=a b\x1f-Cbar"), Some("-Cignored"), flag),
            format!("-Cfoo=a b\x1f-Cbar\x1f{flag}")
        );
        assert_eq!(encoded_rustflags(Some(""), None, flag), flag);
    }
}
