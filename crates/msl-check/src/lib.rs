//! `msl-check`: the msl analysis as a command-line lint.

mod compiler;
pub use msl_ide::config;
pub mod output;
pub use msl_ide::rules;

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use msl_hir::codes::{all_codes, code_info};
use msl_hir::{Analysis, UnitDiagnostic};
use msl_syntax::{LineIndex, Parse, Platform, PpConfig, Severity, config::parse_std, line_index::char_col};
use rustc_hash::FxHashSet;

use config::{Config, ConfigFinder};
use msl_ide::xcode::XcodeSettings;
use output::Finding;
use rules::{Level, RuleLevels, Suppressions};

#[derive(Parser, Debug, Clone)]
#[command(
    name = "msl-check",
    about = "Check Metal Shading Language files for errors",
    max_term_width = 100,
    disable_version_flag = true
)]
pub struct Args {
    /// Files or directories to check; `-` reads standard input. Directories are searched
    /// for `.metal` files (respecting .gitignore); files named explicitly are checked
    /// whatever their extension. Default: the current directory.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Add a directory to the include search path.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a macro: `NAME` or `NAME=VALUE`.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// Undefine a macro.
    #[arg(short = 'U', value_name = "NAME")]
    pub undefine: Vec<String>,
    /// Metal version: `metal3.2`, `macos-metal2.4`, `ios-metal2.4` (also `-std=...`).
    #[arg(long = "std", value_name = "VERSION")]
    pub std: Option<String>,
    /// Target platform: macos, ios, tvos, visionos.
    #[arg(long, value_name = "PLATFORM")]
    pub platform: Option<String>,
    /// Use this configuration file instead of the `msl.toml` found upward from each file.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Ignore `msl.toml` files.
    #[arg(long)]
    pub no_config: bool,
    /// Only preprocess and parse (report preprocessor and syntax problems).
    #[arg(long)]
    pub syntax_only: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Also search directories for files with this extension (repeatable).
    #[arg(long = "include-ext", value_name = "EXT")]
    pub include_ext: Vec<String>,
    /// The file name to report for input read from `-`.
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<PathBuf>,
    /// Set a rule's level: `CODE=error|warning|off` (repeatable).
    #[arg(long = "rule", value_name = "CODE=LEVEL")]
    pub rule: Vec<String>,
    /// Treat warnings as errors (for the exit status and the report).
    #[arg(long)]
    pub warnings_as_errors: bool,
    /// Print how many times each code occurs instead of each diagnostic.
    #[arg(long)]
    pub statistics: bool,
    /// Explain a diagnostic code (`msl-check --explain E0100`) and exit.
    #[arg(long, value_name = "CODE")]
    pub explain: Option<String>,
    /// When to use colors.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// Do not print the summary line.
    #[arg(short, long)]
    pub quiet: bool,
    /// Also run Apple's Metal compiler and merge its diagnostics: `auto` (look for it:
    /// $MSL_COMPILER, xcrun, PATH), `off`, or the compiler's path.
    #[arg(long, value_name = "auto|off|PATH")]
    pub compiler: Option<String>,
    /// Compile the one FILE given with Apple's compiler and write its AIR (LLVM IR
    /// text) to OUT (`-` for standard output). Uses `--compiler` (default: auto).
    #[arg(long, value_name = "OUT")]
    pub emit_air: Option<PathBuf>,
    /// Print the version (with `--verbose`: also which Metal compiler would be used).
    #[arg(short = 'V', long)]
    pub version: bool,
    /// (Set by the run, not the command line) the folders the check runs in.
    #[arg(skip)]
    pub search_roots: Vec<PathBuf>,
    /// More detail: notes on how files were set up (headers found in a folder above their
    /// includer, N0034); with `--version`, which Metal compiler would be used.
    #[arg(short, long)]
    pub verbose: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Github,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Runs the command line; returns the exit status.
pub fn run(argv: Vec<String>) -> u8 {
    // accept clang's `-std=metal3.2` spelling
    let argv: Vec<String> = argv
        .into_iter()
        .map(|a| if let Some(v) = a.strip_prefix("-std=") { format!("--std={v}") } else { a })
        .collect();
    let args = match Args::try_parse_from(argv) {
        Ok(a) => a,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match check(&args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("msl-check: {msg}");
            2
        }
    }
}

fn explain(code: &str) -> Result<u8, String> {
    let Some(info) = code_info(code) else {
        let known: Vec<&str> = all_codes().map(|c| c.code).collect();
        return Err(format!("unknown code `{code}`; known codes: {}", known.join(", ")));
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{} ({}): {}\n", info.code, info.name, info.summary);
    let _ = writeln!(out, "Default severity: {}\n", output::severity_name(info.severity));
    let _ = writeln!(out, "{}\n", info.explanation);
    let _ = writeln!(out, "Example that triggers it:\n\n{}\n", indent(info.bad));
    let _ = writeln!(out, "Fixed:\n\n{}", indent(info.good));
    Ok(0)
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}

/// Command-line settings that apply on top of each file's `msl.toml`.
struct Overrides {
    std: Option<(msl_syntax::MetalVersion, Option<Platform>)>,
    platform: Option<Platform>,
    rules: Vec<(String, Level)>,
}

fn overrides(args: &Args) -> Result<Overrides, String> {
    let std = match &args.std {
        Some(s) => Some(
            parse_std(s)
                .ok_or_else(|| format!("unknown Metal version `{s}` (expected e.g. `metal3.2` or `macos-metal2.4`)"))?,
        ),
        None => None,
    };
    let platform = match &args.platform {
        Some(p) => {
            Some(Platform::parse(p).ok_or_else(|| format!("unknown platform `{p}` (macos, ios, tvos, visionos)"))?)
        }
        None => None,
    };
    let mut rules = Vec::new();
    for r in &args.rule {
        let (code, level) = r.split_once('=').ok_or_else(|| format!("`--rule {r}`: expected CODE=LEVEL"))?;
        let level = Level::parse(level).ok_or_else(|| format!("`--rule {r}`: level must be error, warning or off"))?;
        rules.push((code.to_string(), level));
    }
    Ok(Overrides { std, platform, rules })
}

/// The configuration for one file: defaults, then its Xcode project's Metal settings,
/// then its `msl.toml`, then the command line.
fn settings_for(
    args: &Args,
    ov: &Overrides,
    xcode: Option<&XcodeSettings>,
    cfg: Option<&Config>,
) -> (PpConfig, RuleLevels) {
    let mut pp = PpConfig::default();
    let mut rules = RuleLevels::default();
    if let Some(x) = xcode {
        x.apply_to(&mut pp);
    }
    if let Some(c) = cfg {
        c.apply(&mut pp, &mut rules);
    }
    if let Some((v, p)) = ov.std {
        pp.version = v;
        if let Some(p) = p {
            pp.platform = p;
        }
    }
    if let Some(p) = ov.platform {
        pp.platform = p;
    }
    // command-line include directories are searched first
    let mut dirs = args.include.clone();
    dirs.append(&mut pp.include_dirs);
    pp.include_dirs = dirs;
    pp.search_roots = args.search_roots.clone();
    for d in &args.define {
        pp.define(d);
    }
    pp.undefines.extend(args.undefine.iter().cloned());
    for (code, level) in &ov.rules {
        rules.set(code, *level);
    }
    (pp, rules)
}

/// One input: a path on disk or standard input.
enum Input {
    File(PathBuf),
    Stdin { name: PathBuf, bytes: Vec<u8> },
}

impl Input {
    fn path(&self) -> &Path {
        match self {
            Input::File(p) => p,
            Input::Stdin { name, .. } => name,
        }
    }
}

fn collect_inputs(args: &Args, finder: &ConfigFinder) -> Result<Vec<Input>, String> {
    let mut inputs = Vec::new();
    let roots: Vec<PathBuf> = if args.paths.is_empty() { vec![PathBuf::from(".")] } else { args.paths.clone() };
    for root in roots {
        if root.as_os_str() == "-" {
            let mut bytes = Vec::new();
            std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("cannot read standard input: {e}"))?;
            let name = args.stdin_filename.clone().unwrap_or_else(|| PathBuf::from("<stdin>"));
            inputs.push(Input::Stdin { name, bytes });
            continue;
        }
        let meta = std::fs::metadata(&root).map_err(|e| format!("{}: {}", root.display(), io_reason(&e)))?;
        if !meta.is_dir() {
            inputs.push(Input::File(root));
            continue;
        }
        let mut exts: Vec<String> = vec!["metal".into()];
        exts.extend(args.include_ext.iter().map(|e| e.trim_start_matches('.').to_string()));
        if !args.no_config
            && let Ok(Some(cfg)) = finder.find(&root)
        {
            exts.extend(cfg.file.extensions.iter().map(|e| e.trim_start_matches('.').to_string()));
        }
        let mut found: Vec<PathBuf> = Vec::new();
        for entry in ignore::WalkBuilder::new(&root).hidden(true).require_git(false).build() {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => return Err(format!("{}: {e}", root.display())),
            };
            let p = entry.path();
            if entry.file_type().is_some_and(|t| t.is_file())
                && p.extension().and_then(|e| e.to_str()).is_some_and(|e| exts.iter().any(|x| x == e))
            {
                found.push(p.to_path_buf());
            }
        }
        if found.is_empty() {
            return Err(format!(
                "{}: no files with extension {} found",
                root.display(),
                exts.iter().map(|e| format!("`.{e}`")).collect::<Vec<_>>().join(", ")
            ));
        }
        found.sort();
        inputs.extend(found.into_iter().map(Input::File));
    }
    Ok(inputs)
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// What checking one input produced.
enum Outcome {
    /// `problem`: the compiler could not give its verdict.
    Checked {
        findings: Vec<Finding>,
        problem: Option<String>,
    },
    Failed(String),
}

fn check(args: &Args) -> Result<u8, String> {
    if let Some(code) = &args.explain {
        return explain(code);
    }
    let ov = overrides(args)?;
    let choice = args.compiler.as_deref().map_or(compiler::Choice::Off, compiler::Choice::parse);
    let platform = ov.platform.or(ov.std.and_then(|(_, p)| p)).unwrap_or_default();
    if args.version {
        println!("msl-check {}", env!("CARGO_PKG_VERSION"));
        if args.verbose {
            println!("default Metal version: {}", msl_syntax::MetalVersion::LATEST);
            let choice = if choice == compiler::Choice::Off { compiler::Choice::Auto } else { choice };
            for line in compiler::describe(&compiler::discover(&choice, platform)) {
                println!("{line}");
            }
        }
        return Ok(0);
    }
    if let Some(out) = &args.emit_air {
        return emit_air(args, &ov, out, &choice, platform);
    }
    let compiler = match &choice {
        compiler::Choice::Off => None,
        c => {
            let d = compiler::discover(c, platform);
            match (d.compiler, c) {
                (Some(found), _) => {
                    if let Some(p) = d.problem {
                        return Err(p);
                    }
                    Some(found)
                }
                (None, compiler::Choice::Path(_)) => {
                    return Err(d.problem.unwrap_or_else(|| "the Metal compiler was not found".into()));
                }
                (None, _) => {
                    if !args.quiet {
                        eprintln!(
                            "msl-check: no Apple Metal compiler found (looked at: {}); only msl's own checks ran",
                            d.tried.join("; ")
                        );
                    }
                    None
                }
            }
        }
    };
    let finder = ConfigFinder::default();
    let explicit = match &args.config {
        Some(p) => Some(Config::load(p)?),
        None => None,
    };
    let inputs = collect_inputs(args, &finder)?;
    if inputs.is_empty() {
        return Err("no files to check".into());
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    // where inferred includes are also looked for: the folder the check runs in and the
    // folders named on the command line
    let mut search_roots = vec![cwd.clone()];
    for p in &args.paths {
        if p.is_dir() {
            let p = std::path::absolute(p).unwrap_or_else(|_| p.clone());
            if !search_roots.contains(&p) {
                search_roots.push(p);
            }
        }
    }
    let args = &Args { search_roots, ..args.clone() };
    let progress = Progress::start(inputs.len());
    // several files are checked side by side; a single file may use every core itself
    let parallel_functions = inputs.len() == 1;
    let outcomes = run_parallel(&inputs, |input| {
        let result =
            check_one(args, &ov, input, explicit.as_ref(), &finder, &cwd, compiler.as_ref(), parallel_functions);
        progress.tick();
        result
    });
    progress.finish();

    // Diagnostics in a header repeat for every unit that includes it: report each once.
    let mut seen: FxHashSet<(String, u32, u32, String, String)> = FxHashSet::default();
    let mut findings: Vec<Finding> = Vec::new();
    let mut failed = false;
    for (input, outcome) in inputs.iter().zip(outcomes) {
        match outcome {
            Outcome::Failed(msg) => {
                eprintln!("msl-check: {}: {msg}", display_path(input.path(), &cwd));
                failed = true;
            }
            Outcome::Checked { findings: fs, problem } => {
                if let Some(p) = problem {
                    eprintln!("msl-check: {}: {p}", display_path(input.path(), &cwd));
                    failed = true;
                }
                for mut f in fs {
                    if args.warnings_as_errors && f.severity == Severity::Warning {
                        f.severity = Severity::Error;
                    }
                    if seen.insert((f.path.clone(), f.line, f.column, f.code.clone(), f.message.clone())) {
                        findings.push(f);
                    }
                }
            }
        }
    }
    let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
    let warnings = findings.iter().filter(|f| f.severity == Severity::Warning).count();
    print_report(args, &findings, &cwd);
    if !args.quiet {
        let checked = inputs.len();
        eprintln!(
            "checked {checked} file{}: {errors} error{}, {warnings} warning{}",
            plural(checked),
            plural(errors),
            plural(warnings)
        );
    }
    Ok(if failed {
        2
    } else if errors > 0 {
        1
    } else {
        0
    })
}

fn print_report(args: &Args, findings: &[Finding], cwd: &Path) {
    let mut out = std::io::stdout().lock();
    if args.statistics {
        let stats = output::statistics(findings);
        if args.format == Format::Json {
            let items: Vec<serde_json::Value> = stats
                .iter()
                .map(|(code, n)| {
                    serde_json::json!({ "code": code, "name": code_info(code).map(|i| i.name), "count": n })
                })
                .collect();
            let _ = writeln!(out, "{}", serde_json::Value::Array(items));
        } else {
            for (code, n) in stats {
                let name = code_info(&code).map(|i| i.name).unwrap_or("");
                let _ = writeln!(out, "{n:>8}  {code}  {name}");
            }
        }
        return;
    }
    match args.format {
        Format::Human => {
            let color = match args.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            };
            for f in findings {
                let _ = output::human(&mut out, f, color);
            }
        }
        Format::Json => {
            let items: Vec<serde_json::Value> = findings.iter().map(output::json_item).collect();
            let _ = writeln!(out, "{}", serde_json::Value::Array(items));
        }
        Format::Sarif => {
            let doc = output::sarif(findings, cwd);
            let _ = writeln!(out, "{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        Format::Github => {
            for f in findings {
                let _ = writeln!(out, "{}", output::github(f));
            }
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn display_path(p: &Path, cwd: &Path) -> String {
    let abs = if p.is_absolute() { p.to_path_buf() } else { cwd.join(p) };
    let abs = msl_syntax::vfs::normalize(&abs);
    match abs.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => p.display().to_string(),
    }
}

/// Whether the start of a file looks like binary data rather than text.
fn looks_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8192)].contains(&0)
}

/// The `msl.toml` that applies to `path`: none with `--no-config`, the one of `--config`,
/// or the nearest one above the file.
fn config_for(
    args: &Args,
    explicit: Option<&Config>,
    finder: &ConfigFinder,
    path: &Path,
) -> Result<Option<Config>, String> {
    if args.no_config {
        return Ok(None);
    }
    if let Some(c) = explicit {
        return Ok(Some(c.clone()));
    }
    let dir =
        path.parent().map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d }).unwrap_or(Path::new("."));
    finder.find(dir)
}

#[allow(clippy::too_many_arguments)]
fn check_one(
    args: &Args,
    ov: &Overrides,
    input: &Input,
    explicit: Option<&Config>,
    finder: &ConfigFinder,
    cwd: &Path,
    compiler: Option<&msl_compiler::Compiler>,
    parallel_functions: bool,
) -> Outcome {
    let path = input.path();
    let bytes = match input {
        Input::File(p) => match std::fs::read(p) {
            Ok(b) => b,
            Err(e) => return Outcome::Failed(io_reason(&e)),
        },
        Input::Stdin { bytes, .. } => bytes.clone(),
    };
    if looks_binary(&bytes) {
        return Outcome::Failed("looks like a binary file (it contains NUL bytes), not Metal source; skipped".into());
    }
    let cfg = match config_for(args, explicit, finder, path) {
        Ok(c) => c,
        Err(msg) => return Outcome::Failed(msg),
    };
    let abs = if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) };
    let xcode = abs.parent().and_then(|dir| finder.xcode(dir));
    let (pp, rules) = settings_for(args, ov, xcode.as_deref(), cfg.as_ref());
    let mut analysis = Analysis::with_disk();
    analysis.db.set_parallel_checks(parallel_functions);
    let main = analysis.set_file_bytes(&abs, &bytes);
    let unit = analysis.unit(main, pp.clone());
    let diagnostics = analysis.diagnostics(unit, args.syntax_only);
    let parse = analysis.parse(unit);
    let mut findings = findings_of(&parse, &diagnostics, &rules, cwd, args.verbose);
    let mut problem = None;
    if let Some(c) = compiler {
        let text = match input {
            Input::Stdin { .. } => Some(String::from_utf8_lossy(&bytes).into_owned()),
            Input::File(_) => None,
        };
        match compiler::check_file(c, &abs, text.as_deref(), &pp, &|p| display_path(p, cwd)) {
            Ok(theirs) => compiler::merge(&mut findings, theirs),
            Err(e) => problem = Some(e.to_string()),
        }
    }
    Outcome::Checked { findings, problem }
}

/// `--emit-air OUT FILE`.
fn emit_air(
    args: &Args,
    ov: &Overrides,
    out: &Path,
    choice: &compiler::Choice,
    platform: Platform,
) -> Result<u8, String> {
    let [file] = args.paths.as_slice() else {
        return Err("`--emit-air` takes exactly one input file".into());
    };
    let choice = match choice {
        compiler::Choice::Off if args.compiler.is_none() => compiler::Choice::Auto,
        compiler::Choice::Off => {
            return Err("`--emit-air` needs Apple's compiler; `--compiler off` turns it off".into());
        }
        c => c.clone(),
    };
    let d = compiler::discover(&choice, platform);
    let Some(found) = d.compiler else {
        return Err(d.problem.unwrap_or_else(|| {
            format!(
                "no Apple Metal compiler found (looked at: {}); set $MSL_COMPILER or pass `--compiler PATH`",
                d.tried.join("; ")
            )
        }));
    };
    if let Some(p) = d.problem {
        return Err(p);
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let (text, abs) = if file.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("cannot read standard input: {e}"))?;
        let name = args.stdin_filename.clone().unwrap_or_else(|| PathBuf::from("stdin.metal"));
        (Some(String::from_utf8_lossy(&bytes).into_owned()), cwd.join(name))
    } else {
        if !file.is_file() {
            return Err(format!("{}: no such file", file.display()));
        }
        (None, if file.is_absolute() { file.clone() } else { cwd.join(file) })
    };
    let explicit = match &args.config {
        Some(p) => Some(Config::load(p)?),
        None => None,
    };
    let finder = ConfigFinder::default();
    let cfg = config_for(args, explicit.as_ref(), &finder, &abs)?;
    let xcode = abs.parent().and_then(|dir| finder.xcode(dir));
    let (pp, _) = settings_for(args, ov, xcode.as_deref(), cfg.as_ref());
    let job = msl_compiler::Job {
        main: &abs,
        main_text: text.as_deref(),
        unsaved: &[],
        config: &pp,
        timeout: compiler::TIMEOUT,
        cancel: None,
        temp_dir: None,
    };
    let air = msl_compiler::emit_air(&found, &job).map_err(|e| e.to_string())?;
    let findings = compiler::findings(&air.checked.diagnostics, &|p| display_path(p, &cwd));
    print_report(args, &findings, &cwd);
    let Some(ir) = air.text else {
        eprintln!("msl-check: {}: the Metal compiler reported errors; no AIR was written", display_path(&abs, &cwd));
        return Ok(1);
    };
    if out.as_os_str() == "-" {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(ir.as_bytes());
    } else {
        std::fs::write(out, ir).map_err(|e| format!("{}: {e}", out.display()))?;
        if !args.quiet {
            eprintln!("wrote the AIR of {} to {}", display_path(&abs, &cwd), out.display());
        }
    }
    Ok(0)
}

fn findings_of(
    parse: &Parse,
    diagnostics: &[UnitDiagnostic],
    rules: &RuleLevels,
    cwd: &Path,
    verbose: bool,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut per_file: Vec<Option<(LineIndex, Suppressions)>> = Vec::new();
    per_file.resize_with(parse.files().len(), || None);
    for UnitDiagnostic { diagnostic: d, hint, related, .. } in diagnostics {
        let Some(file) = parse.files().get(d.file as usize) else { continue };
        if file.is_virtual {
            continue;
        }
        let Some(severity) = rules.apply(d.code, d.severity) else { continue };
        // notes on how the unit was set up only with `--verbose`
        if severity == Severity::Note && !verbose {
            continue;
        }
        // the line index of every file a related place is in (built once per file)
        for (f, _, _) in related {
            if let Some(rf) = parse.files().get(*f as usize)
                && let Some(slot) = per_file.get_mut(*f as usize)
            {
                slot.get_or_insert_with(|| (LineIndex::new(&rf.text), Suppressions::scan(&rf.text)));
            }
        }
        let related: Vec<output::RelatedPlace> = related
            .iter()
            .filter_map(|(file, range, message)| {
                let f = parse.files().get(*file as usize)?;
                let (index, _) = per_file.get(*file as usize)?.as_ref()?;
                let lc = index.line_col(range.start());
                let line = &f.text[index.line_range(lc.line, &f.text)];
                Some(output::RelatedPlace {
                    path: display_path(&f.path, cwd),
                    line: lc.line + 1,
                    column: char_col(line, lc.col) + 1,
                    message: message.clone(),
                })
            })
            .collect();
        let (index, suppressions) = per_file[d.file as usize]
            .get_or_insert_with(|| (LineIndex::new(&file.text), Suppressions::scan(&file.text)));
        let start = index.line_col(d.range.start());
        if suppressions.covers(d.code, start.line) {
            continue;
        }
        let end = index.line_col(d.range.end());
        let line_text = file.text[index.line_range(start.line, &file.text)].to_string();
        let end_text = &file.text[index.line_range(end.line, &file.text)];
        findings.push(Finding {
            path: display_path(&file.path, cwd),
            line: start.line + 1,
            column: char_col(&line_text, start.col) + 1,
            end_line: end.line + 1,
            end_column: char_col(end_text, end.col) + 1,
            severity,
            code: d.code.to_string(),
            message: d.message.clone(),
            hint: hint.clone(),
            line_text,
            related,
        });
    }
    // suppressions without a reason
    for (i, slot) in per_file.iter().enumerate() {
        let Some((index, sup)) = slot else { continue };
        let file = &parse.files()[i];
        for &(start, len) in &sup.missing_reason {
            let Some(severity) = rules.apply("W0901", Severity::Warning) else { continue };
            let lc = index.line_col(start.into());
            let end = index.line_col((start + len).into());
            let line_text = file.text[index.line_range(lc.line, &file.text)].to_string();
            findings.push(Finding {
                path: display_path(&file.path, cwd),
                line: lc.line + 1,
                column: char_col(&line_text, lc.col) + 1,
                end_line: end.line + 1,
                end_column: char_col(&line_text, end.col) + 1,
                severity,
                code: "W0901".into(),
                message: "suppression without a reason: add one after `--`".into(),
                hint: None,
                line_text,
                related: Vec::new(),
            });
        }
    }
    findings.sort_by(|a, b| (a.path.as_str(), a.line, a.column).cmp(&(b.path.as_str(), b.line, b.column)));
    findings
}

/// Runs `f` over the inputs on all cores, keeping the input order.
fn run_parallel<T: Send>(inputs: &[Input], f: impl Fn(&Input) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).min(inputs.len()).max(1);
    // every core has a file of its own: a second thread per large file would only compete
    let before = msl_syntax::parse_on_two_threads(false);
    msl_syntax::parse_on_two_threads(before && threads == 1);
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<T>> = (0..inputs.len()).map(|_| None).collect();
    let done: Vec<Vec<(usize, T)>> = std::thread::scope(|s| {
        let work = || {
            let mut out = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(input) = inputs.get(i) else { break };
                out.push((i, f(input)));
            }
            out
        };
        let handles: Vec<_> = (0..threads)
            .filter_map(|_| {
                std::thread::Builder::new().stack_size(msl_hir::ANALYSIS_STACK_SIZE).spawn_scoped(s, work).ok()
            })
            .collect();
        // a panic is raised again here: a file's result is never lost quietly
        let mut done: Vec<Vec<(usize, T)>> =
            handles.into_iter().map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect();
        // no thread could be started: the inputs are done here
        done.push(work());
        done
    });
    msl_syntax::parse_on_two_threads(before);
    for (i, r) in done.into_iter().flatten() {
        slots[i] = Some(r);
    }
    slots.into_iter().flatten().collect()
}

/// A progress line on stderr, shown only when stderr is a terminal and the run takes more
/// than a second.
struct Progress {
    total: usize,
    done: std::sync::Arc<AtomicUsize>,
    stop: std::sync::Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    fn start(total: usize) -> Progress {
        let done = std::sync::Arc::new(AtomicUsize::new(0));
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let handle = (std::io::stderr().is_terminal() && total > 1).then(|| {
            let (done, stop) = (done.clone(), stop.clone());
            std::thread::spawn(move || {
                let start = Instant::now();
                let mut shown = false;
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    if start.elapsed() < Duration::from_secs(1) {
                        continue;
                    }
                    let n = done.load(Ordering::Relaxed);
                    let width = 30;
                    let filled = n * width / total.max(1);
                    eprint!("\r[{}{}] {n}/{total} files", "#".repeat(filled), " ".repeat(width - filled));
                    shown = true;
                }
                if shown {
                    eprint!("\r{}\r", " ".repeat(60));
                }
            })
        });
        Progress { total, done, stop, handle }
    }

    fn tick(&self) {
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        debug_assert!(n <= self.total);
    }

    fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}
