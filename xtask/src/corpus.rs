//! Runs the syntax layer over every translation unit of the corpus with its flags.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use msl_syntax::{LineIndex, PpConfig, Severity, SyntaxKind, Vfs, config, parse_file};

/// One row of FILES.tsv.
#[derive(Debug, Clone)]
pub struct Unit {
    pub path: String,
    pub role: String,
    pub config: PpConfig,
}

pub fn load_units(root: &Path) -> Result<Vec<Unit>, String> {
    let tsv = std::fs::read_to_string(root.join("FILES.tsv"))
        .map_err(|e| format!("cannot read {}: {e}", root.join("FILES.tsv").display()))?;
    let mut units = Vec::new();
    for line in tsv.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 8 {
            continue;
        }
        let mut cfg = PpConfig::default();
        if let Some((v, p)) = config::parse_std(f[5]) {
            cfg.version = v;
            if let Some(p) = p {
                cfg.platform = p;
            }
        }
        let inc: Vec<&str> = f[6].split_whitespace().collect();
        let mut i = 0;
        while i < inc.len() {
            if inc[i] == "-I" {
                if let Some(d) = inc.get(i + 1) {
                    cfg.include_dirs.push(root.join(d));
                }
                i += 2;
            } else {
                cfg.include_dirs.push(root.join(inc[i].trim_start_matches("-I")));
                i += 1;
            }
        }
        for d in f[7].split_whitespace() {
            cfg.define(d.trim_start_matches("-D"));
        }
        units.push(Unit { path: f[1].to_string(), role: f[2].to_string(), config: cfg });
    }
    Ok(units)
}

struct Outcome {
    path: String,
    counted: bool,
    errors: Vec<String>,
    warnings: usize,
    bytes: usize,
}

pub fn run(args: &[String]) -> Result<u8, String> {
    let mut filter = String::new();
    let mut jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut verbose = false;
    let mut cli = false;
    let mut semantic = false;
    let mut show_warnings = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--filter" => filter = it.next().cloned().unwrap_or_default(),
            "--jobs" => jobs = it.next().and_then(|j| j.parse().ok()).unwrap_or(jobs),
            "--verbose" | "-v" => verbose = true,
            "--cli" => cli = true,
            "--semantic" => semantic = true,
            "--warnings" => show_warnings = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let root = crate::corpus_dir();
    if !root.join("FILES.tsv").exists() {
        println!("corpus: not found at {} (set MSL_CORPUS); skipped", root.display());
        return Ok(0);
    }
    let units: Vec<Unit> = load_units(&root)?
        .into_iter()
        .filter(|u| matches!(u.role.as_str(), "tu" | "unvalidated") && u.path.contains(&filter))
        .collect();
    if cli {
        return run_cli(&root, &units);
    }
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let outcomes: Vec<Outcome> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs.max(1))
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(u) = units.get(i) else { break };
                        out.push(if semantic {
                            check_unit_semantic(&root, u, show_warnings)
                        } else {
                            check_unit(&root, u)
                        });
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    let elapsed = start.elapsed();
    let counted: Vec<&Outcome> = outcomes.iter().filter(|o| o.counted).collect();
    let failing: Vec<&&Outcome> = counted.iter().filter(|o| !o.errors.is_empty()).collect();
    let total_errors: usize = counted.iter().map(|o| o.errors.len()).sum();
    let warnings: usize = counted.iter().map(|o| o.warnings).sum();
    let bytes: usize = outcomes.iter().map(|o| o.bytes).sum();
    let mut failing_sorted = failing.clone();
    failing_sorted.sort_by(|a, b| a.path.cmp(&b.path));
    for o in failing_sorted.iter().take(if verbose { usize::MAX } else { 50 }) {
        println!("FAIL {}", o.path);
        for e in o.errors.iter().take(if verbose { usize::MAX } else { 3 }) {
            println!("    {e}");
        }
    }
    if failing.len() > 50 && !verbose {
        println!("... and {} more failing units (use --verbose)", failing.len() - 50);
    }
    println!(
        "corpus ({}): {} units, {} with errors, {} errors, {} warnings, {:.1} MB in {:.2} s",
        if semantic { "checker" } else { "syntax" },
        counted.len(),
        failing.len(),
        total_errors,
        warnings,
        bytes as f64 / 1e6,
        elapsed.as_secs_f64()
    );
    Ok(if failing.is_empty() { 0 } else { 1 })
}

fn check_unit(root: &Path, u: &Unit) -> Outcome {
    let vfs = Vfs::with_disk();
    let path: PathBuf = root.join(&u.path);
    let counted = u.role == "tu";
    let id = match vfs.load(&path) {
        Ok(id) => id,
        Err(e) => {
            return Outcome {
                path: u.path.clone(),
                counted,
                errors: vec![format!("cannot read: {e}")],
                warnings: 0,
                bytes: 0,
            };
        }
    };
    let parse = parse_file(id, &vfs, &u.config);
    let mut errors = Vec::new();
    let mut warnings = 0;
    for d in parse.diagnostics() {
        if d.severity != Severity::Error {
            warnings += 1;
            continue;
        }
        let f = &parse.files()[d.file as usize];
        let lc = LineIndex::new(&f.text).line_col(d.range.start());
        errors.push(format!("{}:{}:{}: {} [{}]", f.path.display(), lc.line + 1, lc.col + 1, d.message, d.code));
    }
    // structural invariants of the tree
    if parse.main_file_text_from_tree() != *parse.files()[0].text {
        errors.push("tree is not lossless for the main file".into());
    }
    if parse.syntax().descendants().any(|n| n.kind() == SyntaxKind::ERROR) && errors.is_empty() {
        errors.push("tree has an ERROR node but no error was reported".into());
    }
    let bytes = parse.files().iter().filter(|f| !f.is_virtual).map(|f| f.text.len()).sum();
    Outcome { path: u.path.clone(), counted, errors, warnings, bytes }
}

/// Checks the corpus through the `msl-check` binary, one invocation per set of flags.
fn run_cli(root: &Path, units: &[Unit]) -> Result<u8, String> {
    use std::collections::BTreeMap;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?.with_file_name("msl-check");
    if !exe.exists() {
        return Err(format!("{} not found: build it with `cargo build --release -p msl-check`", exe.display()));
    }
    let tus: Vec<&Unit> = units.iter().filter(|u| u.role == "tu").collect();
    let mut groups: BTreeMap<Vec<String>, Vec<&Unit>> = BTreeMap::new();
    for u in &tus {
        let c = &u.config;
        let mut flags = vec![format!("--std=metal{}", c.version), format!("--platform={}", c.platform.name())];
        for d in &c.include_dirs {
            flags.push(format!("-I{}", d.display()));
        }
        for (n, v) in &c.defines {
            flags.push(match v {
                Some(v) => format!("-D{n}={v}"),
                None => format!("-D{n}"),
            });
        }
        groups.entry(flags).or_default().push(u);
    }
    let start = Instant::now();
    let (mut errors, mut failing_units) = (0usize, std::collections::BTreeSet::new());
    let mut invocations = 0;
    for (flags, members) in &groups {
        for chunk in members.chunks(2000) {
            invocations += 1;
            let out = std::process::Command::new(&exe)
                .args(flags)
                .args(["--format", "json", "-q", "--no-config"])
                .args(chunk.iter().map(|u| root.join(&u.path)))
                .output()
                .map_err(|e| format!("cannot run msl-check: {e}"))?;
            if out.status.code() == Some(2) {
                return Err(format!("msl-check failed: {}", String::from_utf8_lossy(&out.stderr)));
            }
            let text = String::from_utf8_lossy(&out.stdout);
            for line in text.split("{\"path\":").skip(1) {
                if line.contains("\"severity\":\"error\"") {
                    errors += 1;
                    failing_units.insert(line.split('"').nth(1).unwrap_or("").to_string());
                    println!("ERROR {}", line.chars().take(200).collect::<String>());
                }
            }
        }
    }
    println!(
        "corpus (msl-check): {} units in {} invocations, {} with errors, {} errors, in {:.2} s",
        tus.len(),
        invocations,
        failing_units.len(),
        errors,
        start.elapsed().as_secs_f64()
    );
    Ok(if errors == 0 { 0 } else { 1 })
}

/// The full analysis (preprocessor, parser and checker) of one unit.
fn check_unit_semantic(root: &Path, u: &Unit, show_warnings: bool) -> Outcome {
    let counted = u.role == "tu";
    let path: PathBuf = root.join(&u.path);
    let text = match std::fs::read(&path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            return Outcome {
                path: u.path.clone(),
                counted,
                errors: vec![format!("cannot read: {e}")],
                warnings: 0,
                bytes: 0,
            };
        }
    };
    let mut analysis = msl_hir::Analysis::with_disk();
    let main = analysis.set_file(&path, text.into());
    let unit = analysis.unit(main, u.config.clone());
    let parse = analysis.parse(unit);
    let mut errors = Vec::new();
    let mut warnings = 0;
    for d in analysis.diagnostics(unit, false) {
        let d = d.diagnostic;
        let f = &parse.files()[d.file as usize];
        let lc = LineIndex::new(&f.text).line_col(d.range.start());
        let line = format!("{}:{}:{}: {} [{}]", f.path.display(), lc.line + 1, lc.col + 1, d.message, d.code);
        if d.severity != Severity::Error {
            warnings += 1;
            if show_warnings {
                println!("warning: {line}");
            }
            continue;
        }
        errors.push(line);
    }
    let bytes = parse.files().iter().filter(|f| !f.is_virtual).map(|f| f.text.len()).sum();
    Outcome { path: u.path.clone(), counted, errors, warnings, bytes }
}
