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
    load_units_from(root, &root.join("FILES.tsv"))
}

/// The units a FILES.tsv lists (in the shared corpus's format), paths relative to `root`.
pub fn load_units_from(root: &Path, files: &Path) -> Result<Vec<Unit>, String> {
    let tsv = std::fs::read_to_string(files).map_err(|e| format!("cannot read {}: {e}", files.display()))?;
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

/// `f` on every unit, on `jobs` threads taking units in turn; the results of the units for
/// which it gives one, in no particular order.
pub(crate) fn map_units<T: Send>(units: &[Unit], jobs: usize, f: impl Fn(&Unit) -> Option<T> + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs.max(1))
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    while let Some(u) = units.get(next.fetch_add(1, Ordering::Relaxed)) {
                        out.extend(f(u));
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    })
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
    let mut typos = false;
    let mut mutate = false;
    let mut format = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--filter" => filter = it.next().cloned().unwrap_or_default(),
            "--jobs" => jobs = it.next().and_then(|j| j.parse().ok()).unwrap_or(jobs),
            "--verbose" | "-v" => verbose = true,
            "--cli" => cli = true,
            "--semantic" => semantic = true,
            "--warnings" => show_warnings = true,
            "--typos" => typos = true,
            "--mutate" => mutate = true,
            "--format" => format = true,
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
    if typos {
        return run_typos(&root, &units, jobs);
    }
    if mutate {
        return crate::mutate::run(&root, &units, jobs);
    }
    if format {
        return crate::format_corpus::run(&root, &units, jobs, verbose);
    }
    let start = Instant::now();
    let outcomes: Vec<Outcome> = map_units(&units, jobs, |u| {
        Some(if semantic { check_unit_semantic(&root, u, show_warnings) } else { check_unit(&root, u) })
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

/// Injects typos into names used in function bodies (one at a time) and counts how many
/// the checker reports as undeclared at the right place, and how many units it can check.
fn run_typos(root: &Path, units: &[Unit], jobs: usize) -> Result<u8, String> {
    use msl_syntax::ast::AstNode;
    const PER_UNIT: usize = 3;
    let start = Instant::now();
    // (injected, detected, units with injections, units skipped as incomplete, wrong reports)
    #[allow(clippy::type_complexity)]
    let results: Vec<(usize, usize, usize, usize, Vec<String>, usize, usize)> = map_units(units, jobs, |u| {
        if u.role != "tu" {
            return None;
        }
        let path = root.join(&u.path);
        let Ok(text) = std::fs::read_to_string(&path) else { return None };
        let mut analysis = msl_hir::Analysis::with_disk();
        let main = analysis.set_file(&path, text.as_str().into());
        let unit = analysis.unit(main, u.config.clone());
        if *msl_hir::unit_incomplete(&analysis.db, unit) {
            return Some((0, 0, 0, 1, Vec::new(), 0, 0));
        }
        let parse = analysis.parse(unit);
        // names used in bodies, spelled in the main file, that resolve
        let mut sites: Vec<(usize, String)> = parse
            .syntax()
            .descendants()
            .filter(|n| n.kind() == SyntaxKind::PATH_EXPR)
            .filter(|n| n.ancestors().any(|a| a.kind() == SyntaxKind::COMPOUND_STMT))
            .filter_map(|n| {
                let p = msl_syntax::ast::PathExpr::cast(n)?;
                if p.is_qualified() {
                    return None;
                }
                let tok = p.name()?;
                let (file, range) = parse.map_range(tok.text_range());
                let start = usize::from(range.start());
                (file == 0 && text.get(start..usize::from(range.end())) == Some(tok.text()))
                    .then(|| (start, tok.text().to_string()))
            })
            .collect();
        if sites.is_empty() {
            return None;
        }
        // spread the picks over the file, deterministically
        let step = (sites.len() / PER_UNIT).max(1);
        sites = sites.into_iter().step_by(step).take(PER_UNIT).collect();
        let (mut injected, mut detected, mut wrong) = (0, 0, Vec::new());
        for (at, name) in sites {
            let typo = format!("{name}_qz");
            let mutated = format!("{}{typo}{}", &text[..at], &text[at + name.len()..]);
            analysis.set_file(&path, mutated.into());
            injected += 1;
            let diags = analysis.diagnostics(unit, false);
            let found = diags.iter().any(|d| {
                d.diagnostic.code == "E1401" && d.diagnostic.file == 0 && usize::from(d.diagnostic.range.start()) == at
            });
            if found {
                detected += 1;
            }
            // other undeclared-name reports would be false ones
            for d in diags.iter().filter(|d| d.diagnostic.code == "E1401") {
                if d.diagnostic.file != 0 || usize::from(d.diagnostic.range.start()) != at {
                    wrong.push(format!("{}: {}", u.path, d.diagnostic.message));
                }
            }
        }
        // vector declarations initialized by a constructor of the same type:
        // change the declared size, expect an invalid conversion
        let (mut vinjected, mut vdetected) = (0, 0);
        for at in vector_declarations(&text).into_iter().take(PER_UNIT) {
            let digit = text.as_bytes()[at];
            let other = match digit {
                b'2' => "3",
                b'3' => "4",
                _ => "2",
            };
            let mutated = format!("{}{other}{}", &text[..at], &text[at + 1..]);
            let line = text[..at].matches('\n').count();
            analysis.set_file(&path, mutated.as_str().into());
            vinjected += 1;
            let diags = analysis.diagnostics(unit, false);
            if diags.iter().any(|d| {
                d.diagnostic.code == "E1702"
                    && d.diagnostic.file == 0
                    && mutated[..usize::from(d.diagnostic.range.start())].matches('\n').count() == line
            }) {
                vdetected += 1;
            }
        }
        analysis.set_file(&path, text.as_str().into());
        Some((injected, detected, 1, 0, wrong, vinjected, vdetected))
    });
    let injected: usize = results.iter().map(|r| r.0).sum();
    let detected: usize = results.iter().map(|r| r.1).sum();
    let with: usize = results.iter().map(|r| r.2).sum();
    let incomplete: usize = results.iter().map(|r| r.3).sum();
    let wrong: Vec<&String> = results.iter().flat_map(|r| r.4.iter()).collect();
    let vinjected: usize = results.iter().map(|r| r.5).sum();
    let vdetected: usize = results.iter().map(|r| r.6).sum();
    // other reports come from edits that change how a declaration parses (a cascade in
    // the edited code), never from the unedited corpus (`--semantic` has zero errors)
    for w in wrong.iter().take(5) {
        println!("other E1401 (cascade of an injected typo): {w}");
    }
    println!(
        "typos: {detected} of {injected} injected typos reported as undeclared ({:.1}%) in {with} units; {incomplete} units not checked (headers missing or not modelled); {} other E1401 reports; {:.1} s",
        100.0 * detected as f64 / injected.max(1) as f64,
        wrong.len(),
        start.elapsed().as_secs_f64()
    );
    println!(
        "vector sizes: {vdetected} of {vinjected} declarations given a wrong size reported as invalid conversions ({:.1}%)",
        100.0 * vdetected as f64 / vinjected.max(1) as f64
    );
    Ok(if detected * 100 >= injected * 95 { 0 } else { 1 })
}

/// Offsets of the size digit in declarations like `float3 n = float3(`, in the text.
pub(crate) fn vector_declarations(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for ty in ["float", "half", "int", "uint"] {
        let mut from = 0;
        while let Some(i) = text[from..].find(ty) {
            let at = from + i;
            from = at + ty.len();
            let before_ok =
                at == 0 || !text.as_bytes()[at - 1].is_ascii_alphanumeric() && text.as_bytes()[at - 1] != b'_';
            let rest = &text[at + ty.len()..];
            let Some(digit) = rest.chars().next().filter(|c| matches!(c, '2' | '3' | '4')) else { continue };
            let after = &rest[1..];
            // ` name = typeN(`
            let Some(after_space) = after.strip_prefix(' ') else { continue };
            let name_len = after_space.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').count();
            if !before_ok || name_len == 0 {
                continue;
            }
            let tail = &after_space[name_len..];
            if tail.starts_with(&format!(" = {ty}{digit}(")) {
                out.push(at + ty.len());
            }
        }
    }
    out.sort_unstable();
    out
}
