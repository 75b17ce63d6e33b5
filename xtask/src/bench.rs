//! Throughput of lexing + preprocessing + parsing, measured on the corpus, and the time
//! for the largest real file (ggml's 11,900-line Metal backend).

use std::time::{Duration, Instant};

use msl_syntax::{FileResolver, PpConfig, Vfs, lexer, parse_file, pp};

use crate::corpus::load_units;

pub fn run(args: &[String]) -> Result<u8, String> {
    let mut iterations = 30usize;
    let mut server_memory = false;
    let mut pgo = false;
    let mut checker_only = false;
    let mut format_only = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--iterations" => iterations = it.next().and_then(|n| n.parse().ok()).unwrap_or(iterations).max(1),
            "--pgo" => pgo = true,
            "--checker" => checker_only = true,
            "--format" => format_only = true,
            // (internal) the two-thread ggml parse alone, with the allocator set up as
            // msl-lsp sets it up: run in a process of its own by the full bench
            SERVER_MEMORY => server_memory = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if pgo {
        return profile_guided(args);
    }
    if server_memory {
        // first thing, as in msl-lsp's `main`: no other thread exists yet
        msl_memory::return_freed_memory_promptly();
        msl_lsp::memory::no_huge_pages();
        return ggml_with_server_memory(iterations, format_only);
    }
    // first thing, as in msl-check's `main`: the lines below measure msl-check's parse
    // (but for the one line measured in a process set up as msl-lsp)
    let kept = msl_memory::keep_freed_memory();
    let root = crate::corpus_dir();
    if !root.join("FILES.tsv").exists() {
        return Err(format!("corpus not found at {} (set MSL_CORPUS)", root.display()));
    }
    println!(
        "{}; {}",
        if std::env::var_os(PGO_BUILD).is_some() {
            "release build, profile-guided (trained on parsing and checking fixtures/)"
        } else {
            "release build"
        },
        if kept {
            "allocator set up as in msl-check (freed memory kept for reuse)"
        } else {
            "allocator as the MIMALLOC_ variables of the environment set it"
        }
    );

    // --- the standard library index ------------------------------------------------
    let start = Instant::now();
    let lib = msl_stdlib::Stdlib::get();
    let index = start.elapsed();
    let start = Instant::now();
    let mut found = 0usize;
    for _ in 0..1000 {
        found += lib.lookup("clamp").len() + lib.lookup("texture2d").len() + lib.method("texture2d", "sample").count();
    }
    println!(
        "stdlib: tables built at compile time; name index built in {} on first use; 3000 lookups in {:.1} µs ({found} hits)",
        ms(index),
        start.elapsed().as_secs_f64() * 1e6
    );

    // --- the ggml file -------------------------------------------------------------
    let (ggml, vfs, id, cfg) = ggml_unit(&root)?;
    let text = vfs.text(id);
    let lines = text.lines().count();
    let warm = parse_file(id, &vfs, &cfg);
    if format_only {
        let before = host_reference();
        format_bench(&root, &warm, (&ggml, &cfg), iterations)?;
        println!(
            "host reference (sorting {REFERENCE_LEN} pseudo-random integers, best of 5): {} before the formatter, {} after",
            ms(before),
            ms(host_reference())
        );
        return Ok(0);
    }
    if checker_only {
        let before = host_reference();
        checker_bench(&ggml, &warm, &cfg, lines, iterations)?;
        println!(
            "host reference (sorting {REFERENCE_LEN} pseudo-random integers, best of 5): {} before the checker, {} after",
            ms(before),
            ms(host_reference())
        );
        return Ok(0);
    }
    let unit_bytes: usize = warm.files().iter().filter(|f| !f.is_virtual).map(|f| f.text.len()).sum();
    let phases = |label: &str| {
        let lex = time(iterations, || lexer::lex(&text));
        let prep = time(iterations, || pp::preprocess(id, &vfs, &cfg));
        let full = time(iterations, || parse_file(id, &vfs, &cfg));
        println!(
            "  {label}: lex {} | lex+preprocess {} | lex+preprocess+parse+tree {} (median of {iterations}; min {})",
            ms(lex.0),
            ms(prep.0),
            ms(full.0),
            ms(full.1),
        );
        full
    };
    println!("ggml-metal.metal: {lines} lines, {:.0} KB with headers", unit_bytes as f64 / 1e3);
    msl_syntax::parse_on_two_threads(false);
    phases("one thread");
    msl_syntax::parse_on_two_threads(true);
    let full = phases("two threads (as msl-lsp and msl-check parse it)");
    let free = time(iterations, || drop(parse_file(id, &vfs, &cfg))).0.saturating_sub(full.0);
    println!("  freeing a tree: {}", ms(free));
    server_memory_line(iterations, false);

    checker_bench(&ggml, &warm, &cfg, lines, iterations)?;

    // --- the whole corpus ----------------------------------------------------------
    let units: Vec<_> = load_units(&root)?.into_iter().filter(|u| u.role == "tu").collect();
    let vfs = Vfs::with_disk();
    let mut ids = Vec::with_capacity(units.len());
    let mut bytes = 0usize;
    for u in &units {
        let id = vfs.load(&root.join(&u.path)).map_err(|e| format!("{}: {e}", u.path))?;
        // warm the file cache (headers included) so that the timed pass reads no disk
        let p = parse_file(id, &vfs, &u.config);
        bytes += p.files().iter().filter(|f| !f.is_virtual).map(|f| f.text.len()).sum::<usize>();
        ids.push(id);
    }
    // one core: no second thread for the large units either
    msl_syntax::parse_on_two_threads(false);
    let reference_before = host_reference();
    let passes = 3;
    let mut best = Duration::MAX;
    for _ in 0..passes {
        let mut elapsed = Duration::ZERO;
        // each tree is freed outside the timed region (as in `time`)
        for (u, id) in units.iter().zip(&ids) {
            let start = Instant::now();
            let p = std::hint::black_box(parse_file(*id, &vfs, &u.config));
            elapsed += start.elapsed();
            drop(p);
        }
        best = best.min(elapsed);
    }
    println!(
        "corpus (one thread): {} units, {:.1} MB of source (headers counted per unit) in {:.2} s: {:.1} MB/s (best of {passes})",
        units.len(),
        bytes as f64 / 1e6,
        best.as_secs_f64(),
        bytes as f64 / 1e6 / best.as_secs_f64()
    );
    println!(
        "host reference (sorting {REFERENCE_LEN} pseudo-random integers, best of 5): {} before the corpus passes, {} after",
        ms(reference_before),
        ms(host_reference())
    );
    Ok(0)
}

/// What the server does for "Format Document": the open file's cached parse, the options
/// of its directory, the edits as offsets. Returns the number of edits, and the median and
/// least time.
fn server_format(
    path: &std::path::Path,
    text: &std::sync::Arc<str>,
    config: &PpConfig,
    iterations: usize,
) -> Result<(usize, Duration, Duration), String> {
    let mut host = msl_ide::AnalysisHost::new();
    host.open(path, text.clone(), msl_ide::FileSettings { config: config.clone(), ..Default::default() });
    let snap = host.snapshot();
    let edits = match snap.format(path, None) {
        Ok(Ok(e)) => e.len(),
        Ok(Err(why)) => return Err(format!("ggml-metal.metal is not formatted: {why}")),
        Err(_) => return Err("formatting was cancelled".into()),
    };
    let (median, min) = time(iterations, || snap.format(path, None).map(|r| r.map(|e| e.len())).ok());
    Ok((edits, median, min))
}

/// The formatter: every corpus unit parsed and formatted on two threads (as `msl-fmt`
/// does with a directory), and ggml-metal.metal formatted from its parse as the server
/// does it (the parse is the analysis's, already made), edits included.
fn format_bench(
    root: &std::path::Path,
    ggml: &msl_syntax::Parse,
    (path, config): (&std::path::Path, &PpConfig),
    iterations: usize,
) -> Result<(), String> {
    let options = msl_fmt::Options::default();
    let text = ggml.files()[0].text.clone();
    let (median, min) = time(iterations, || {
        msl_fmt::format_with_edits(ggml, &text, &options).map(|(_, e)| e.len()).unwrap_or_default()
    });
    println!(
        "formatter on ggml-metal.metal from its parse, edits included: {} (median of {iterations}; min {})",
        ms(median),
        ms(min)
    );
    let (edits, median, min) = server_format(path, &text, config, iterations)?;
    println!(
        "formatter on ggml-metal.metal as the server runs it (open file, options looked up), {edits} edits: {} (median of {iterations}; min {})",
        ms(median),
        ms(min)
    );
    server_memory_line(iterations, true);
    let units: Vec<crate::corpus::Unit> =
        load_units(root)?.into_iter().filter(|u| matches!(u.role.as_str(), "tu" | "unvalidated")).collect();
    let texts: Vec<(std::path::PathBuf, String)> = units
        .iter()
        .filter_map(|u| {
            let p = root.join(&u.path);
            std::fs::read_to_string(&p).ok().map(|t| (p, t))
        })
        .collect();
    let bytes: usize = texts.iter().map(|(_, t)| t.len()).sum();
    let mut best = Duration::MAX;
    let mut kept = 0;
    for _ in 0..3 {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let start = Instant::now();
        let left: usize = std::thread::scope(|s| {
            let work = || {
                let mut left = 0;
                while let Some((path, text)) = texts.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                    let vfs = Vfs::new();
                    let id = vfs.add_file(path, text.as_str());
                    let parse = parse_file(id, &vfs, &PpConfig::default());
                    if msl_fmt::format_parse(&parse, text, &options).is_err() {
                        left += 1;
                    }
                }
                left
            };
            let handles: Vec<_> = (0..2).map(|_| s.spawn(work)).collect();
            handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
        });
        best = best.min(start.elapsed());
        kept = left;
    }
    println!(
        "formatter on the corpus (two threads, each unit read, parsed and formatted): {} units, {:.1} MB in {:.2} s (best of 3); {kept} left as they are",
        texts.len(),
        bytes as f64 / 1e6,
        best.as_secs_f64()
    );
    Ok(())
}

/// Integers sorted by [`host_reference`].
pub(crate) const REFERENCE_LEN: usize = 1 << 21;

/// The time a fixed piece of work that shares no code with the parser takes on this host
/// (sorting the same pseudo-random integers, best of five). The host's speed drifts by a
/// fifth within an hour on shared machines; printed next to a figure, it tells a slower
/// host from slower code when runs made at different times are compared.
pub(crate) fn host_reference() -> Duration {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let numbers: Vec<u64> = (0..REFERENCE_LEN)
        .map(|_| {
            // xorshift64
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect();
    (0..5)
        .map(|_| {
            let mut v = numbers.clone();
            let start = Instant::now();
            v.sort_unstable();
            let elapsed = start.elapsed();
            std::hint::black_box(v);
            elapsed
        })
        .min()
        .unwrap_or_default()
}

/// Set in the environment of a bench run by a profile-guided build (see [`profile_guided`]).
const PGO_BUILD: &str = "MSL_BENCH_PGO_BUILD";

/// `bench --pgo`: makes a profile-guided build (see [`crate::pgo`]) and runs the bench in it
/// with the other arguments.
fn profile_guided(args: &[String]) -> Result<u8, String> {
    let dir = crate::pgo::build().map_err(|e| e.to_string())?;
    let exe = dir.join(crate::exe("xtask"));
    let status = std::process::Command::new(&exe)
        .arg("bench")
        .args(args.iter().filter(|a| *a != "--pgo"))
        .env(PGO_BUILD, "1")
        .status()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    // the bench's own exit code (1 when a signal ended it)
    Ok(status.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(1))
}

/// ggml's Metal backend in the corpus under `root`: its path, a file system with it
/// loaded, its id there, and the configuration it is built with.
fn ggml_unit(root: &std::path::Path) -> Result<(std::path::PathBuf, Vfs, msl_syntax::FileId, PpConfig), String> {
    let ggml = root.join("ggml/src/ggml-metal/ggml-metal.metal");
    let vfs = Vfs::with_disk();
    let id = vfs.load(&ggml).map_err(|e| format!("{}: {e}", ggml.display()))?;
    let mut cfg = PpConfig::default();
    cfg.include_dirs.push(root.join("ggml/src"));
    Ok((ggml, vfs, id, cfg))
}

/// The argument that runs [`ggml_with_server_memory`].
const SERVER_MEMORY: &str = "--ggml-with-server-memory";

/// Prints the two-thread ggml parse (or the server's formatting of it) with the allocator
/// set up as in msl-lsp, measured in a process of its own (the settings must be made
/// before any other thread starts).
fn server_memory_line(iterations: usize, format: bool) {
    let out = std::env::current_exe().and_then(|exe| {
        let iterations = iterations.to_string();
        let mut args = vec!["bench", SERVER_MEMORY, "--iterations", &iterations];
        if format {
            args.push("--format");
        }
        std::process::Command::new(exe).args(args).stderr(std::process::Stdio::inherit()).output()
    });
    match out {
        Ok(out) if out.status.success() => print!("{}", String::from_utf8_lossy(&out.stdout)),
        Ok(out) => println!("  with msl-lsp's memory settings: the measuring process failed ({})", out.status),
        Err(e) => println!("  with msl-lsp's memory settings: cannot start the measuring process: {e}"),
    }
}

/// The two-thread parse of ggml (or the server's formatting of it) in this process, whose
/// allocator was set up as msl-lsp's.
fn ggml_with_server_memory(iterations: usize, format: bool) -> Result<u8, String> {
    let (path, vfs, id, cfg) = ggml_unit(&crate::corpus_dir())?;
    if format {
        let (edits, median, min) = server_format(&path, &vfs.text(id), &cfg, iterations)?;
        println!(
            "  the same with msl-lsp's memory settings (freed memory goes back to the system at once), {edits} edits: {} (median of {iterations}; min {})",
            ms(median),
            ms(min)
        );
        return Ok(0);
    }
    msl_syntax::parse_on_two_threads(true);
    let (median, min) = time(iterations, || parse_file(id, &vfs, &cfg));
    println!(
        "  two threads, with msl-lsp's memory settings{}: {} (median of {iterations}; min {})",
        // msl-lsp leaves a setting alone when the environment makes it
        if std::env::vars().any(|(k, _)| k.starts_with("MIMALLOC_")) {
            " and the MIMALLOC_ variables of the environment"
        } else {
            " (freed memory goes back to the system at once, so a parse faults its pages in again)"
        },
        ms(median),
        ms(min),
    );
    Ok(0)
}

/// The full check of the ggml file on a fresh database, and the re-check after a
/// one-character edit inside one function body.
fn checker_bench(
    path: &std::path::Path,
    parse: &msl_syntax::Parse,
    cfg: &PpConfig,
    lines: usize,
    iterations: usize,
) -> Result<(), String> {
    use msl_hir::Analysis;
    use msl_syntax::{SyntaxKind, ast::AstNode};
    use std::sync::Arc;

    // every file the unit reads goes into the file set: the timing reads no disk
    let path = &msl_syntax::vfs::normalize(path);
    let files: Vec<(std::path::PathBuf, Arc<str>)> =
        parse.files().iter().filter(|f| !f.is_virtual).map(|f| (f.path.clone(), f.text.clone())).collect();
    let fresh_with = |parallel: bool| {
        let mut a = Analysis::new(msl_hir::RootDatabase::default());
        a.db.set_parallel_checks(parallel);
        let mut main = None;
        for (p, t) in &files {
            let f = a.set_file(p, t.clone());
            if p.as_path() == path {
                main = Some(f);
            }
        }
        let main = main.expect("the main file is among the unit's files");
        let unit = a.unit(main, cfg.clone());
        (a, unit)
    };
    // as the language server does: a unit's functions are checked on two threads
    let fresh = || fresh_with(true);
    let (a, unit) = fresh();
    let count = a.diagnostics(unit, false).len();
    let functions = msl_hir::functions(&a.db, unit).len();
    let full = time(iterations, || {
        let (a, unit) = fresh();
        std::hint::black_box(a.diagnostics(unit, false));
        a
    });
    msl_syntax::parse_on_two_threads(false);
    let one_thread = time(iterations, || {
        let (a, unit) = fresh_with(false);
        std::hint::black_box(a.diagnostics(unit, false));
        a
    });
    msl_syntax::parse_on_two_threads(true);

    // the edit: a space after the `{` of the body of the function in the middle of the file
    let text = files.iter().find(|(p, _)| p.as_path() == path).map(|(_, t)| t.clone()).ok_or("no main text")?;
    let root = parse.syntax();
    let bodies: Vec<usize> = root
        .descendants()
        .filter(|n| n.kind() == SyntaxKind::FUNCTION)
        .filter_map(|n| msl_syntax::ast::Function::cast(n)?.body())
        .filter_map(|b| {
            let (file, range) = parse.map_range(b.syntax().text_range());
            (file == 0 && text[usize::from(range.start())..].starts_with('{')).then(|| usize::from(range.start()) + 1)
        })
        .collect();
    if bodies.is_empty() {
        return Err("no function bodies".into());
    }
    // every body: insert a space after its `{`, re-check, remove it, re-check
    let (mut a, unit) = fresh();
    a.diagnostics(unit, false);
    let mut samples = Vec::with_capacity(bodies.len() * 2);
    let mut local = 0;
    for &at in &bodies {
        let edited: Arc<str> = format!("{} {}", &text[..at], &text[at..]).into();
        if parse.reparse(&edited).is_some() {
            local += 1;
        }
        for t in [edited, text.clone()] {
            let start = Instant::now();
            a.set_file(path, t);
            std::hint::black_box(a.diagnostics(unit, false));
            samples.push(start.elapsed());
        }
    }
    samples.sort();
    let pick = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    println!(
        "checker on ggml-metal.metal ({lines} lines, {functions} functions, {count} diagnostics): full check {} (median of {iterations}; min {}; parse and functions on two threads as in msl-lsp) | {} on one thread (min {})",
        ms(full.0),
        ms(full.1),
        ms(one_thread.0),
        ms(one_thread.1),
    );
    println!(
        "  re-check after a one-character edit in a body, over all {} bodies ({local} reparsed alone, the rest from scratch): median {} | p90 {} | max {}",
        bodies.len(),
        ms(pick(0.5)),
        ms(pick(0.9)),
        ms(pick(1.0))
    );
    // the semantic model's stages, each on a database where the earlier ones are done
    let stages = |a: &Analysis, unit: msl_hir::Unit| {
        let db = &a.db;
        let t0 = Instant::now();
        msl_hir::parse_unit(db, unit);
        let t1 = Instant::now();
        msl_hir::unit_defs(db, unit);
        let t2 = Instant::now();
        let fns = msl_hir::functions(db, unit);
        for f in &fns {
            msl_hir::function_body(db, *f);
        }
        let t3 = Instant::now();
        for f in &fns {
            msl_hir::infer_function(db, *f);
        }
        let t4 = Instant::now();
        let n = msl_hir::unit_instances(db, unit).list.len();
        let t5 = Instant::now();
        [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, Duration::from_nanos(n as u64)]
    };
    let mut runs: Vec<[Duration; 6]> = (0..iterations)
        .map(|_| {
            let (a, unit) = fresh_with(false);
            stages(&a, unit)
        })
        .collect();
    let median = |k: usize, runs: &mut Vec<[Duration; 6]>| {
        runs.sort_by_key(|r| r[k]);
        runs[runs.len() / 2][k]
    };
    let (parse_t, defs_t, bodies_t, infer_t, inst_t) =
        (median(0, &mut runs), median(1, &mut runs), median(2, &mut runs), median(3, &mut runs), median(4, &mut runs));
    println!(
        "  semantic model on one thread (medians of {iterations}): parse {} | definitions {} | {functions} bodies lowered {} | inferred {} | {} instantiations inferred {}",
        ms(parse_t),
        ms(defs_t),
        ms(bodies_t),
        ms(infer_t),
        runs[0][5].as_nanos(),
        ms(inst_t),
    );
    Ok(())
}

/// Median and minimum of `n` runs of `f` (after one warm-up run). Each result is dropped
/// after the clock stops, so that freeing is not timed and the next run reuses the memory,
/// as a long-running server does.
fn time<T>(n: usize, mut f: impl FnMut() -> T) -> (Duration, Duration) {
    drop(f());
    let mut v: Vec<Duration> = (0..n)
        .map(|_| {
            let s = Instant::now();
            let out = std::hint::black_box(f());
            let elapsed = s.elapsed();
            drop(out);
            elapsed
        })
        .collect();
    v.sort();
    (v[v.len() / 2], v[0])
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}
