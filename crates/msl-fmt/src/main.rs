//! `msl-fmt [--check] [--diff] [--config FILE] [--stdin-filename NAME] [PATH|-]...`
//!
//! Formats Metal files in place (or standard input to standard output). Directories are
//! searched for `.metal` files, honouring `.gitignore`. `--check` changes nothing and
//! exits 1 when a file would change; `--diff` prints what would change as a unified diff.
//! Exit 2 for bad usage or input that cannot be read.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::Parser;
use msl_fmt::Options;

#[derive(Parser, Debug)]
#[command(name = "msl-fmt", version, about = "Format Metal Shading Language sources (layout only)")]
struct Args {
    /// Change nothing; exit 1 when a file is not formatted.
    #[arg(long)]
    check: bool,
    /// Print a unified diff of what formatting would change; change nothing.
    #[arg(long)]
    diff: bool,
    /// A `msl.toml` whose `[format]` table sets the options (by default, each file's
    /// nearest `msl.toml` with a `[format]` table, else its nearest `.clang-format`).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The name to report for standard input.
    #[arg(long, value_name = "NAME")]
    stdin_filename: Option<PathBuf>,
    /// Files or directories (`-` for standard input); the current directory by default.
    paths: Vec<PathBuf>,
}

fn options_from(path: &Path) -> Result<Options, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    match msl_fmt::config::format_table(&text).map_err(|e| format!("{}: {e}", path.display()))? {
        Some(f) => f.options().map_err(|e| format!("{}: {e}", path.display())),
        None => Ok(Options::default()),
    }
}

enum Input {
    File(PathBuf),
    Stdin { name: PathBuf, text: String },
}

impl Input {
    fn name(&self) -> &Path {
        match self {
            Input::File(p) => p,
            Input::Stdin { name, .. } => name,
        }
    }
}

fn collect(args: &Args) -> Result<Vec<Input>, String> {
    let mut out = Vec::new();
    let roots: Vec<PathBuf> = if args.paths.is_empty() { vec![PathBuf::from(".")] } else { args.paths.clone() };
    for root in roots {
        if root.as_os_str() == "-" {
            let mut bytes = Vec::new();
            std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("cannot read standard input: {e}"))?;
            let text = String::from_utf8(bytes).map_err(|_| "standard input is not UTF-8 text".to_string())?;
            let name = args.stdin_filename.clone().unwrap_or_else(|| PathBuf::from("<stdin>"));
            out.push(Input::Stdin { name, text });
            continue;
        }
        let meta = std::fs::metadata(&root).map_err(|e| format!("{}: {e}", root.display()))?;
        if !meta.is_dir() {
            out.push(Input::File(root));
            continue;
        }
        let mut found = Vec::new();
        for entry in ignore::WalkBuilder::new(&root).hidden(true).require_git(false).build() {
            let entry = entry.map_err(|e| format!("{}: {e}", root.display()))?;
            let p = entry.path();
            if entry.file_type().is_some_and(|t| t.is_file()) && p.extension().is_some_and(|e| e == "metal") {
                found.push(p.to_path_buf());
            }
        }
        found.sort();
        out.extend(found.into_iter().map(Input::File));
    }
    Ok(out)
}

/// What became of one input.
enum Outcome {
    Unchanged,
    Changed {
        before: String,
        after: String,
    },
    /// Left as it is: why.
    Kept(String),
    /// Could not be read.
    Unreadable(String),
}

fn format_one(input: &Input, given: Option<&Options>, finder: &msl_fmt::OptionsFinder) -> Outcome {
    // the options: given on the command line, or those of the file's directory
    let found;
    let options = match given {
        Some(o) => o,
        None => {
            let dir = match input {
                Input::File(p) => p.parent().map(Path::to_path_buf).unwrap_or_default(),
                Input::Stdin { name, .. } => name.parent().map(Path::to_path_buf).unwrap_or_default(),
            };
            let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
            match finder.for_dir(&dir) {
                Ok((o, _)) => {
                    found = o;
                    &found
                }
                Err(e) => return Outcome::Unreadable(e),
            }
        }
    };
    let text = match input {
        Input::Stdin { text, .. } => text.clone(),
        Input::File(p) => match std::fs::read(p) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(_) => return Outcome::Kept("the file is not UTF-8 text".into()),
            },
            Err(e) => return Outcome::Unreadable(e.to_string()),
        },
    };
    let parsed = match input {
        Input::File(p) => {
            let vfs = msl_syntax::Vfs::with_disk();
            match vfs.load(p) {
                Ok(id) => msl_syntax::parse_file(id, &vfs, &msl_syntax::PpConfig::default()),
                Err(e) => return Outcome::Unreadable(e.to_string()),
            }
        }
        Input::Stdin { text, .. } => msl_syntax::parse_text(text, &msl_syntax::PpConfig::default()),
    };
    match msl_fmt::format_parse(&parsed, &text, options) {
        Ok(after) if after == text => Outcome::Unchanged,
        Ok(after) => Outcome::Changed { before: text, after },
        Err(e) => {
            let (line, col) = line_col(&text, e.offset);
            Outcome::Kept(format!("{line}:{col}: {}", e.message))
        }
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(before.len(), |n| before.len() - n - 1) + 1;
    (line, col)
}

fn main() -> ExitCode {
    let args = Args::parse();
    let options = match &args.config {
        Some(p) => match options_from(p) {
            Ok(o) => Some(o),
            Err(e) => {
                eprintln!("msl-fmt: {e}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let finder = msl_fmt::OptionsFinder::default();
    let inputs = match collect(&args) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("msl-fmt: {e}");
            return ExitCode::from(2);
        }
    };
    // in parallel, each result in its input's place
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(inputs.len()).max(1);
    let mut results: Vec<Option<Outcome>> = (0..inputs.len()).map(|_| None).collect();
    let done: Vec<Vec<(usize, Outcome)>> = std::thread::scope(|s| {
        let work = || {
            let mut out = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(input) = inputs.get(i) else { break };
                out.push((i, format_one(input, options.as_ref(), &finder)));
            }
            out
        };
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    for (i, r) in done.into_iter().flatten() {
        results[i] = Some(r);
    }
    let mut code = 0u8;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for (input, result) in inputs.iter().zip(results) {
        let name = input.name().display();
        match result {
            None => {
                eprintln!("msl-fmt: {name}: not formatted (the formatter stopped)");
                code = 2;
            }
            Some(Outcome::Unreadable(e)) => {
                eprintln!("msl-fmt: {name}: {e}");
                code = 2;
            }
            Some(Outcome::Kept(why)) => {
                eprintln!("msl-fmt: {name}:{why}");
                if let Input::Stdin { text, .. } = input
                    && !args.check
                    && !args.diff
                {
                    let _ = out.write_all(text.as_bytes());
                }
            }
            Some(Outcome::Unchanged) => {
                if let Input::Stdin { text, .. } = input
                    && !args.check
                    && !args.diff
                {
                    let _ = out.write_all(text.as_bytes());
                }
            }
            Some(Outcome::Changed { before, after }) => {
                if args.diff {
                    let diff = similar::TextDiff::from_lines(&before, &after);
                    let _ = write!(
                        out,
                        "{}",
                        diff.unified_diff().context_radius(3).header(&name.to_string(), &name.to_string())
                    );
                }
                if args.check || args.diff {
                    if args.check && !args.diff {
                        eprintln!("msl-fmt: {name}: would be reformatted");
                    }
                    code = code.max(1);
                    continue;
                }
                match input {
                    Input::Stdin { .. } => {
                        let _ = out.write_all(after.as_bytes());
                    }
                    Input::File(p) => {
                        if let Err(e) = std::fs::write(p, after) {
                            eprintln!("msl-fmt: {name}: cannot write: {e}");
                            code = 2;
                        }
                    }
                }
            }
        }
    }
    ExitCode::from(code)
}
