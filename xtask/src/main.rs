//! Project tasks: `cargo xtask test`, `corpus`, `bench`, `lsp-bench`, `dist`.

mod analysis_stats;
mod bench;
mod binfmt;
mod corpus;
mod dist;
mod editors;
mod format_corpus;
mod licenses;
mod lsp_bench;
mod mutate;
mod pgo;
mod style_survey;
mod test;
mod wheel;
mod zero_config;

#[global_allocator]
static GLOBAL: msl_memory::MiMalloc = msl_memory::MiMalloc;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (cmd, rest) = match args.split_first() {
        Some((c, r)) => (c.as_str(), r),
        None => ("help", &[][..]),
    };
    let result = match cmd {
        "corpus" => corpus::run(rest),
        "bench" => bench::run(rest),
        "lsp-bench" => lsp_bench::run(rest),
        "test" => test::run(rest),
        "dist" if rest.iter().any(|a| a == "--cross-check") => dist::cross_check().map(|()| 0),
        "dist" if rest.iter().any(|a| a == "--wheel-check") => wheel::test().map(|()| 0),
        "dist" if rest.iter().any(|a| a == "--target" || a == "--all") => dist::run(rest),
        "dist" => editors::dist(rest),
        "zero-config" => zero_config::run(rest),
        "analysis-stats" => analysis_stats::run(rest),
        "style-survey" => style_survey::run(&corpus_dir()),
        pgo::TRAIN => pgo::train(rest),
        _ => {
            eprintln!(
                "usage: cargo xtask <command>\n\n\
                 commands:\n  \
                 test [--no-editors | --editors-only]            formatting, clippy, all tests, the corpus, the editors (what CI runs)\n  \
                 dist [--no-pgo]                                 the VS Code extension (.vsix) with the release msl-lsp inside\n  \
                 dist --target TRIPLE... | --all                 msl-check, msl-fmt and msl-lsp built for other platforms: archives, .vsix and wheels in target/dist\n  \
                 dist --cross-check                              the checker built for Windows, aarch64 Linux and macOS, run under Wine and qemu like this machine's (part of test)\n  \
                 dist --wheel-check                              this machine's wheel: installed with pip and uvx, the python pre-commit hooks without Rust (part of test)\n  \
                 corpus [--filter TEXT] [--jobs N] [--verbose]   check every unit of the corpus; one summary line\n  \
                 \x20      [--semantic | --cli] [--warnings]        with the checker / through msl-check; list warnings\n  \
                 \x20      [--typos]                                inject typos into names; count those reported\n  \
                 \x20      [--mutate]                               inject certain mistakes of several kinds; count those reported\n  \
                 \x20      [--format]                               format every unit; check only whitespace changed, idempotence, diagnostics\n  \
                 bench  [--iterations N] [--pgo] [--checker]      parser throughput and the ggml timing (--pgo: of a profile-guided build; --checker: the checker on ggml alone)\n  \
                 \x20      [--format]                               the formatter on ggml and on the corpus\n  \
                 lsp-bench [--no-clangd]                         an editing session against msl-lsp (and clangd-19)\n  \
                 lsp-bench --workspace                           indexing and navigation over a workspace of 1,200 units\n  \
                 zero-config [--msl-check PATH]                  msl-check --no-config in every corpus source folder: files with errors\n  \
                 analysis-stats [--root DIR] [--files TSV]       how much of the corpus the semantic model types and resolves\n  \
                 style-survey                                    how the corpus's hand-written code is laid out, per project\n\n\
                 The corpus is read from $MSL_CORPUS or ../shared/corpus."
            );
            return ExitCode::from(if cmd == "help" || cmd == "--help" { 0 } else { 2 });
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("xtask {cmd}: {e}");
            ExitCode::from(2)
        }
    }
}

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The cargo that runs this task.
pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// Python 3 as the OS names it: `python` on Windows, where `python3` may be the Store's
/// stand-in.
pub fn python() -> &'static str {
    if cfg!(windows) { "python" } else { "python3" }
}

/// Reads `member` of the zip archive `zip` (a wheel, a `.vsix`) through Python's zipfile.
pub fn zip_read(zip: &std::path::Path, member: &str) -> Result<Vec<u8>, String> {
    let out = std::process::Command::new(python())
        .args(["-c", "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))"])
        .arg(zip)
        .arg(member)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python()))?;
    if !out.status.success() {
        return Err(format!("{}: cannot read {member}: {}", zip.display(), String::from_utf8_lossy(&out.stderr)));
    }
    Ok(out.stdout)
}

/// The names of the members of the zip archive `zip`.
pub fn zip_names(zip: &std::path::Path) -> Result<Vec<String>, String> {
    let out = std::process::Command::new(python())
        .args(["-c", "import sys, zipfile; sys.stdout.buffer.write('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()).encode())"])
        .arg(zip)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python()))?;
    if !out.status.success() {
        return Err(format!("{}: not a zip archive: {}", zip.display(), String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect())
}

/// `name` as an executable's file name on this OS.
pub fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

/// The first `name` on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.is_file())
}

/// Runs a step, printing it and how long it took.
pub fn step(name: &str, cmd: &mut std::process::Command) -> Result<(), String> {
    println!("== {name}");
    let started = std::time::Instant::now();
    let status = cmd.status().map_err(|e| format!("{name}: cannot start {:?}: {e}", cmd.get_program()))?;
    println!("   ({name}: {:.1} s)", started.elapsed().as_secs_f64());
    if status.success() { Ok(()) } else { Err(format!("step `{name}` failed ({status})")) }
}

/// The corpus directory.
pub fn corpus_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("MSL_CORPUS") {
        return PathBuf::from(d);
    }
    root().join("../shared/corpus")
}
