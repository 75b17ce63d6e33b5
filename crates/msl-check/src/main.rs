//! `msl-check`: checks Metal Shading Language files and reports problems.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::Parser;
use msl_syntax::{Diagnostic, LineIndex, Parse, PpConfig, Severity, Vfs, config, line_index::char_col, parse_file};

#[derive(Parser, Debug)]
#[command(name = "msl-check", version, about = "Check Metal Shading Language files for errors")]
struct Args {
    /// Files or directories to check (directories are searched for `.metal` files).
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Add a directory to the include search path.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Define a macro: `NAME` or `NAME=VALUE`.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// Undefine a macro.
    #[arg(short = 'U', value_name = "NAME")]
    undefine: Vec<String>,
    /// Metal version: `metal3.2`, `macos-metal2.4`, `ios-metal2.4` (also `-std=...`).
    #[arg(long = "std", value_name = "VERSION")]
    std: Option<String>,
    /// Target platform: macos, ios, tvos, visionos.
    #[arg(long, value_name = "PLATFORM")]
    platform: Option<String>,
    /// Only preprocess and parse (report preprocessor and syntax errors).
    #[arg(long)]
    syntax_only: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Do not print the summary line.
    #[arg(short, long)]
    quiet: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Human,
    Json,
}

fn main() -> ExitCode {
    // accept clang's `-std=metal3.2` spelling
    let argv: Vec<String> = std::env::args()
        .map(|a| if let Some(v) = a.strip_prefix("-std=") { format!("--std={v}") } else { a })
        .collect();
    let args = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(&args) {
        Ok(code) => ExitCode::from(code),
        Err(msg) => {
            eprintln!("msl-check: {msg}");
            ExitCode::from(2)
        }
    }
}

fn build_config(args: &Args) -> Result<PpConfig, String> {
    let mut cfg = PpConfig::default();
    if let Some(std) = &args.std {
        let (v, p) = config::parse_std(std)
            .ok_or_else(|| format!("unknown Metal version `{std}` (expected e.g. `metal3.2` or `macos-metal2.4`)"))?;
        cfg.version = v;
        if let Some(p) = p {
            cfg.platform = p;
        }
    }
    if let Some(p) = &args.platform {
        cfg.platform = msl_syntax::Platform::parse(p)
            .ok_or_else(|| format!("unknown platform `{p}` (expected macos, ios, tvos or visionos)"))?;
    }
    for d in &args.define {
        cfg.define(d);
    }
    cfg.undefines.extend(args.undefine.iter().cloned());
    cfg.include_dirs.extend(args.include.iter().cloned());
    Ok(cfg)
}

/// Expands the command-line paths into the files to check.
fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    let roots: Vec<PathBuf> = if paths.is_empty() { vec![PathBuf::from(".")] } else { paths.to_vec() };
    for root in roots {
        let meta = std::fs::metadata(&root).map_err(|e| format!("{}: {e}", root.display()))?;
        if meta.is_dir() {
            walk(&root, &mut files).map_err(|e| format!("{}: {e}", root.display()))?;
        } else {
            // a file named explicitly is checked whatever its extension
            files.push(root);
        }
    }
    Ok(files)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let name = e.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let ft = e.file_type()?;
        if ft.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|x| x == "metal") {
            out.push(path);
        }
    }
    Ok(())
}

struct FileResult {
    path: PathBuf,
    outcome: Result<Parse, String>,
}

fn run(args: &Args) -> Result<u8, String> {
    let cfg = build_config(args)?;
    let files = collect_files(&args.paths)?;
    if files.is_empty() {
        return Err("no `.metal` files found".into());
    }
    let results = check_all(&files, &cfg);
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut out = std::io::stdout().lock();
    let (mut errors, mut warnings, mut io_failed) = (0usize, 0usize, false);
    let mut json = Vec::new();
    for r in &results {
        let parse = match &r.outcome {
            Ok(p) => p,
            Err(msg) => {
                eprintln!("msl-check: {}: {msg}", r.path.display());
                io_failed = true;
                continue;
            }
        };
        for d in parse.diagnostics() {
            match d.severity {
                Severity::Error => errors += 1,
                Severity::Warning => warnings += 1,
                Severity::Note => {}
            }
            match args.format {
                Format::Human => print_human(&mut out, parse, d, color),
                Format::Json => json.push(json_item(parse, d)),
            }
        }
    }
    if args.format == Format::Json {
        let _ = writeln!(out, "{}", serde_json::Value::Array(json));
    }
    if !args.quiet {
        eprintln!(
            "checked {} file{}: {} error{}, {} warning{}",
            results.len(),
            plural(results.len()),
            errors,
            plural(errors),
            warnings,
            plural(warnings)
        );
    }
    Ok(if io_failed {
        2
    } else if errors > 0 {
        1
    } else {
        0
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Checks files in parallel, one thread per core.
fn check_all(files: &[PathBuf], cfg: &PpConfig) -> Vec<FileResult> {
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(files.len()).max(1);
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<FileResult>> = (0..files.len()).map(|_| None).collect();
    let chunks: Vec<Vec<(usize, FileResult)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = files.get(i) else { break };
                        let vfs = Vfs::with_disk();
                        let outcome = vfs.load(path).map(|id| parse_file(id, &vfs, cfg)).map_err(|e| e.to_string());
                        done.push((i, FileResult { path: path.clone(), outcome }));
                    }
                    done
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    for (i, r) in chunks.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots.into_iter().flatten().collect()
}

struct Location {
    path: String,
    line: u32,
    col: u32,
    end_line: u32,
    end_col: u32,
    line_text: String,
    byte_col: u32,
    byte_len: u32,
}

fn locate(parse: &Parse, d: &Diagnostic) -> Location {
    let file = &parse.files()[d.file as usize];
    let text = &file.text;
    let idx = LineIndex::new(text);
    let start = idx.line_col(d.range.start());
    let end = idx.line_col(d.range.end());
    let line_text = text[idx.line_range(start.line, text)].to_string();
    let end_line_text = &text[idx.line_range(end.line, text)];
    let byte_len = if end.line == start.line { end.col.saturating_sub(start.col) } else { 0 };
    Location {
        path: file.path.display().to_string(),
        line: start.line + 1,
        col: char_col(&line_text, start.col) + 1,
        end_line: end.line + 1,
        end_col: char_col(end_line_text, end.col) + 1,
        byte_col: start.col,
        byte_len,
        line_text,
    }
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

fn print_human(out: &mut impl Write, parse: &Parse, d: &Diagnostic, color: bool) {
    let loc = locate(parse, d);
    let (sev_color, bold, reset, blue) = if color {
        (if d.severity == Severity::Error { "\x1b[1;31m" } else { "\x1b[1;33m" }, "\x1b[1m", "\x1b[0m", "\x1b[1;34m")
    } else {
        ("", "", "", "")
    };
    let _ = writeln!(
        out,
        "{bold}{}:{}:{}:{reset} {sev_color}{}[{}]{reset}{bold}: {}{reset}",
        loc.path,
        loc.line,
        loc.col,
        severity_name(d.severity),
        d.code,
        d.message
    );
    let gutter = loc.line.to_string().len();
    let shown: String = loc.line_text.chars().map(|c| if c == '\t' { ' ' } else { c }).collect();
    let _ = writeln!(out, "{blue}{:>gutter$} |{reset}", "");
    let _ = writeln!(out, "{blue}{} |{reset} {}", loc.line, shown);
    let pad = char_col(&loc.line_text, loc.byte_col) as usize;
    let width = loc
        .line_text
        .get(loc.byte_col as usize..(loc.byte_col + loc.byte_len) as usize)
        .map(|s| s.chars().count())
        .unwrap_or(0)
        .max(1);
    let _ = writeln!(out, "{blue}{:>gutter$} |{reset} {}{sev_color}{}{reset}", "", " ".repeat(pad), "^".repeat(width));
}

fn json_item(parse: &Parse, d: &Diagnostic) -> serde_json::Value {
    let loc = locate(parse, d);
    serde_json::json!({
        "path": loc.path,
        "line": loc.line,
        "column": loc.col,
        "end_line": loc.end_line,
        "end_column": loc.end_col,
        "severity": severity_name(d.severity),
        "code": d.code,
        "message": d.message,
    })
}
