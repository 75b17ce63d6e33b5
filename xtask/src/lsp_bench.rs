//! `cargo xtask lsp-bench`: replays an editing session on ggml-metal.metal (11,900 lines)
//! against the release `msl-lsp` over its standard input/output, and against `clangd-19`
//! (with a small MSL shim) when it is installed:
//! open to first diagnostics, one-character edits to fresh diagnostics, hovers, completions,
//! whole-document formatting, and the server's peak resident memory.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use msl_lsp::test_client::LspClient;
use serde_json::{Value, json};

const EDITS: usize = 50;
const QUERIES: usize = 50;
const FORMATS: usize = 10;

struct Figures {
    open: Duration,
    edits: Vec<Duration>,
    hovers: Vec<Duration>,
    completions: Vec<Duration>,
    /// `textDocument/formatting` of the whole file, request to response.
    formats: Vec<Duration>,
    /// The edits of the last formatting response.
    format_edits: usize,
    peak_rss_kb: Option<u64>,
}

fn pct(v: &[Duration], p: f64) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    if v.is_empty() {
        return Duration::ZERO;
    }
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i.min(v.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

pub fn run(args: &[String]) -> Result<u8, String> {
    if args.iter().any(|a| a == "--workspace") {
        return workspace(args);
    }
    let file = crate::corpus_dir().join("ggml/src/ggml-metal/ggml-metal.metal");
    let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let skip_clangd = args.iter().any(|a| a == "--no-clangd");
    let server = build_server()?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    println!(
        "session on {} ({} lines); {EDITS} edits, {QUERIES} hovers and completions",
        file.display(),
        text.lines().count()
    );
    let ours = rt.block_on(session(&server, &[], &file, &text, json!({"std": "metal3.2"})))?;
    report("msl-lsp", &ours);
    let targets_met = ours.open < Duration::from_millis(100)
        && pct(&ours.edits, 0.5) < Duration::from_millis(10)
        && pct(&ours.edits, 0.99) < Duration::from_millis(30)
        && pct(&ours.hovers, 0.99) < Duration::from_millis(10)
        && pct(&ours.completions, 0.99) < Duration::from_millis(10)
        && pct(&ours.formats, 0.5) < Duration::from_millis(50)
        && ours.peak_rss_kb.is_some_and(|k| k < 80 * 1024);
    println!(
        "targets (open < 100 ms, edit p50 < 10 ms and p99 < 30 ms, hover/completion p99 < 10 ms, formatting p50 < 50 ms, RSS < 80 MB): {}",
        if targets_met { "met" } else { "not all met" }
    );
    println!(
        "host reference (sorting {} pseudo-random integers, best of 5; about 30 ms on a quiet host): {}",
        crate::bench::REFERENCE_LEN,
        ms(crate::bench::host_reference())
    );
    if !skip_clangd {
        match crate::which("clangd-19") {
            Some(clangd) => {
                let shim = std::env::temp_dir().join("msl-bench-shim.h");
                std::fs::write(&shim, SHIM).map_err(|e| e.to_string())?;
                let flags = json!({"fallbackFlags": ["-xc++", "-std=c++17", "-include", shim.display().to_string()]});
                match rt.block_on(session(&clangd, &["--log=error", "--background-index=false"], &file, &text, flags)) {
                    Ok(f) => report("clangd-19 (C++ with an MSL shim)", &f),
                    Err(e) => println!("clangd-19: {e}"),
                }
            }
            None => println!("clangd-19: not installed (apt-get install clangd-19 to compare)"),
        }
    }
    Ok(0)
}

fn report(name: &str, f: &Figures) {
    println!(
        "{name}: open to first diagnostics {} | edit to diagnostics p50 {} p99 {} | hover p99 {} | completion p99 {} | formatting p50 {} max {} ({} edits) | peak RSS {}",
        ms(f.open),
        ms(pct(&f.edits, 0.5)),
        ms(pct(&f.edits, 0.99)),
        ms(pct(&f.hovers, 0.99)),
        ms(pct(&f.completions, 0.99)),
        ms(pct(&f.formats, 0.5)),
        ms(pct(&f.formats, 1.0)),
        f.format_edits,
        megabytes(f.peak_rss_kb)
    );
}

/// A memory figure of a process from `/proc/PID/status` (`VmHWM:` the peak resident size,
/// `VmRSS:` the current one), in kB.
fn memory_kb(pid: Option<u32>, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid?)).ok()?;
    status.lines().find(|l| l.starts_with(field))?.split_whitespace().nth(1)?.parse().ok()
}

fn megabytes(kb: Option<u64>) -> String {
    kb.map(|k| format!("{:.1} MB", k as f64 / 1024.0)).unwrap_or_else(|| "unknown".into())
}

/// UTF-16 position of a byte offset (the file is ASCII, so columns are bytes).
fn pos(text: &str, offset: usize) -> Value {
    let line = text[..offset].matches('\n').count();
    let col = offset - text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0);
    json!({"line": line, "character": col})
}

async fn session(server: &Path, args: &[&str], file: &Path, text: &str, options: Value) -> Result<Figures, String> {
    let mut child = tokio::process::Command::new(server)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{}: {e}", server.display()))?;
    let pid = child.id();
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let client = LspClient::new(stdout, stdin);
    let dir = file.parent().unwrap_or(Path::new("/"));
    let root = format!("file://{}", dir.display());
    client.initialize(&root, options).await;
    let uri = format!("file://{}", file.display());
    let started = Instant::now();
    client.open(&uri, text, 1);
    client.diagnostics(&uri, Some(1)).await.ok_or("no diagnostics after opening")?;
    let open = started.elapsed();

    // one-character edits inside function bodies: a space before the first word of
    // statements spread over the file, removed again by the next edit
    let body_lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            l.starts_with("        ")
                && l.trim_start().starts_with(|c: char| c.is_ascii_alphabetic())
                && l.trim_end().ends_with(';')
        })
        .map(|(i, _)| i)
        .collect();
    let mut edits = Vec::new();
    let mut version = 1;
    for k in 0..EDITS {
        let line = body_lines[(k * body_lines.len()) / EDITS];
        let col = text.lines().nth(line).map(|l| l.len() - l.trim_start().len()).unwrap_or(0);
        for insert in [true, false] {
            version += 1;
            let start = json!({"line": line, "character": col});
            let (range, new_text) = if insert {
                (json!({"start": start, "end": start}), " ")
            } else {
                (json!({"start": start, "end": {"line": line, "character": col + 1}}), "")
            };
            let t = Instant::now();
            client.notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": range, "text": new_text}]}));
            client.diagnostics(&uri, Some(version)).await.ok_or("no diagnostics after an edit")?;
            if insert {
                edits.push(t.elapsed());
            }
        }
    }

    // hovers on library calls, user functions and locals
    let mut targets = Vec::new();
    for needle in ["simd_sum(", "dot(", "float4(", "threadgroup_barrier(", "kernel_", "args.", "tgpig", "sum"] {
        let mut from = 0;
        while let Some(i) = text[from..].find(needle) {
            targets.push(from + i + 1);
            from += i + needle.len();
        }
    }
    targets.sort();
    let step = (targets.len() / QUERIES).max(1);
    let mut hovers = Vec::new();
    for &t in targets.iter().step_by(step).take(QUERIES) {
        let start = Instant::now();
        client.request_raw("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": pos(text, t)})).await;
        hovers.push(start.elapsed());
    }
    // completions after `.` and after the first letters of a name
    let mut spots = Vec::new();
    let mut from = 0;
    while let Some(i) = text[from..].find("args.") {
        spots.push(from + i + 5);
        from += i + 5;
    }
    let mut from = 0;
    while let Some(i) = text[from..].find(" = simd") {
        spots.push(from + i + 5);
        from += i + 7;
    }
    spots.sort();
    let step = (spots.len() / QUERIES).max(1);
    let mut completions = Vec::new();
    for &t in spots.iter().step_by(step).take(QUERIES) {
        let start = Instant::now();
        client
            .request_raw("textDocument/completion", json!({"textDocument": {"uri": uri}, "position": pos(text, t)}))
            .await;
        completions.push(start.elapsed());
    }
    // the whole file formatted, as an editor's "Format Document" asks
    let mut formats = Vec::new();
    let mut format_edits = 0;
    for _ in 0..FORMATS {
        let start = Instant::now();
        let reply = client
            .request_raw(
                "textDocument/formatting",
                json!({"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": true}}),
            )
            .await;
        formats.push(start.elapsed());
        format_edits = reply["result"].as_array().map_or(0, |a| a.len());
    }
    let peak_rss_kb = memory_kb(pid, "VmHWM:");
    let _ = tokio::time::timeout(Duration::from_secs(5), client.request_raw("shutdown", Value::Null)).await;
    client.notify("exit", Value::Null);
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    Ok(Figures { open, edits, hovers, completions, formats, format_edits, peak_rss_kb })
}

/// Builds the release server, as the other benchmarks do.
fn build_server() -> Result<PathBuf, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = std::process::Command::new(env!("CARGO"))
        .args(["build", "--release", "-q", "-p", "msl-lsp"])
        .current_dir(&root)
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("building msl-lsp failed".into());
    }
    Ok(root.join("target/release/msl-lsp"))
}

/// The units of the workspace benchmark: every MLX unit with its headers (shared by many
/// units, with `-I mlx` as the corpus builds them, written as an `msl.toml`), then
/// SPIRV-Cross and Tint outputs, copied to `dir` as `.metal` files, `UNITS` in all.
const UNITS: usize = 1200;

fn build_workspace(dir: &Path) -> Result<(usize, Vec<PathBuf>), String> {
    let corpus = crate::corpus_dir();
    let tsv = std::fs::read_to_string(corpus.join("FILES.tsv")).map_err(|e| format!("FILES.tsv: {e}"))?;
    let _ = std::fs::remove_dir_all(dir);
    let mut units = 0;
    let mut plain = Vec::new();
    let mut rows: Vec<(&str, &str, &str)> = tsv
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some((*f.first()?, *f.get(1)?, *f.get(2)?))
        })
        .collect();
    // MLX first (all of it), then the others in their order
    rows.sort_by_key(|(src, _, _)| match *src {
        "mlx" => 0,
        "spirv-cross" => 1,
        _ => 2,
    });
    let mut spirv = 0;
    for (src, path, role) in rows {
        let wanted = match src {
            "mlx" => true,
            "spirv-cross" => role == "tu" && spirv < UNITS / 2,
            "dawn" => role == "tu",
            _ => false,
        };
        if !wanted || (role == "tu" && units >= UNITS) {
            continue;
        }
        let from = corpus.join(path);
        let mut to = dir.join(path);
        if role == "tu" && to.extension().is_none_or(|e| e != "metal") {
            to = PathBuf::from(format!("{}.metal", to.display()));
        }
        if let Some(p) = to.parent() {
            std::fs::create_dir_all(p).map_err(|e| e.to_string())?;
        }
        std::fs::copy(&from, &to).map_err(|e| format!("{}: {e}", from.display()))?;
        if role == "tu" {
            units += 1;
            if src == "spirv-cross" {
                spirv += 1;
            }
            if src != "mlx" {
                plain.push(to);
            }
        }
    }
    std::fs::write(dir.join("mlx/msl.toml"), "include = [\".\"]\nstd = \"metal3.2\"\n").map_err(|e| e.to_string())?;
    Ok((units, plain))
}

/// `cargo xtask lsp-bench --workspace`: the background index and navigation across a
/// workspace of more than 1,000 units.
fn workspace(_args: &[String]) -> Result<u8, String> {
    let server = build_server()?;
    let dir = std::env::temp_dir().join("msl-bench-workspace");
    let (units, plain) = build_workspace(&dir)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    println!("workspace of {units} units in {}", dir.display());
    let f = rt.block_on(workspace_session(&server, &dir, &plain))?;
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "msl-lsp: indexing {} | peak RSS {} | workspace symbols p50 {} p99 {} ({} queries) | references to `{}` {} ({} places in {} files) | {} files opened in a burst all published in {}",
        ms(f.indexing),
        megabytes(f.peak_rss_kb),
        ms(pct(&f.symbols, 0.5)),
        ms(pct(&f.symbols, 0.99)),
        f.symbols.len(),
        REFERENCED,
        ms(f.references),
        f.reference_count,
        f.reference_files,
        BURST,
        ms(f.burst),
    );
    let met = f.indexing <= Duration::from_secs(10)
        && f.peak_rss_kb.is_some_and(|k| k <= 300 * 1024)
        && pct(&f.symbols, 0.99) <= Duration::from_millis(20)
        && f.references <= Duration::from_millis(200)
        && f.burst <= Duration::from_secs(2);
    println!(
        "targets (indexing <= 10 s, RSS <= 300 MB, workspace symbols p99 <= 20 ms, references <= 200 ms, burst <= 2 s): {}",
        if met { "met" } else { "not all met" }
    );
    Ok(0)
}

const REFERENCED: &str = "elem_to_loc";
const BURST: usize = 50;

struct WorkspaceFigures {
    indexing: Duration,
    peak_rss_kb: Option<u64>,
    symbols: Vec<Duration>,
    references: Duration,
    reference_count: usize,
    reference_files: usize,
    burst: Duration,
}

async fn workspace_session(server: &Path, dir: &Path, plain: &[PathBuf]) -> Result<WorkspaceFigures, String> {
    let mut child = tokio::process::Command::new(server)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{}: {e}", server.display()))?;
    let pid = child.id();
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let client = LspClient::new(stdout, stdin);
    let root = format!("file://{}", dir.display());
    let started = Instant::now();
    client.initialize(&root, json!({})).await;
    let ended = client
        .wait_for(Duration::from_secs(300), |m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end")
        .await;
    if ended.is_none() {
        return Err("indexing did not end within 300 s".into());
    }
    let indexing = started.elapsed();
    println!(
        "indexed in {}; resident {} (peak {})",
        ms(indexing),
        megabytes(memory_kb(pid, "VmRSS:")),
        megabytes(memory_kb(pid, "VmHWM:"))
    );

    // workspace symbols: prefixes of names declared across the workspace
    let mut symbols = Vec::new();
    let queries = [
        "elem",
        "main",
        "frag",
        "vert",
        "spvD",
        "Buffer",
        "float",
        "load",
        "store",
        "kernel",
        "gemm",
        "reduce",
        "scan",
        "sort",
        "copy",
        "Steel",
        "BlockLoader",
        "mma",
        "quant",
        "affine",
        "gather",
        "scatter",
        "soft",
        "norm",
        "rope",
        "conv",
        "arange",
        "unary",
        "binary",
        "ternary",
        "tint",
        "tint_symbol",
        "S",
        "x",
        "o",
        "u",
        "Uniforms",
        "in",
        "out",
        "_",
        "gl_",
        "SPIRV",
        "spvUnsafeArray",
        "spvTexelBuffer",
        "spvIdentity",
        "sdpa",
        "attention",
        "fft",
        "hadamard",
        "random",
    ];
    for round in 0..2 {
        for q in queries {
            let query = if round == 0 { q.to_string() } else { q.to_lowercase() };
            let t = Instant::now();
            let r = client.request_raw("workspace/symbol", json!({"query": query})).await;
            symbols.push(t.elapsed());
            if r.get("error").is_some() {
                return Err(format!("workspace/symbol failed: {r}"));
            }
        }
    }

    let main0 = client.request("workspace/symbol", json!({"query": "main0"})).await;
    println!(
        "workspace symbols p99 {}; `main0` matches {} symbols (at most 256 are listed)",
        ms(pct(&symbols, 0.99)),
        main0.as_array().map(|a| a.len()).unwrap_or(0)
    );
    // references to a function of a header that most MLX kernels include
    let header = dir.join("mlx/mlx/backend/metal/kernels/utils.h");
    let text = std::fs::read_to_string(&header).map_err(|e| format!("{}: {e}", header.display()))?;
    let at = text.find(&format!("{REFERENCED}(")).ok_or("the referenced function is not in utils.h")? + 1;
    let uri = format!("file://{}", header.display());
    client.open(&uri, &text, 1);
    client.diagnostics(&uri, Some(1)).await.ok_or("no diagnostics for utils.h")?;
    let mut references = Duration::MAX;
    let mut reference_count = 0;
    let mut reference_files = 0;
    for _ in 0..3 {
        let t = Instant::now();
        let r = client
            .request_raw(
                "textDocument/references",
                json!({"textDocument": {"uri": uri}, "position": pos(&text, at), "context": {"includeDeclaration": true}}),
            )
            .await;
        references = references.min(t.elapsed());
        let list = r["result"].as_array().cloned().unwrap_or_default();
        reference_count = list.len();
        let mut files: Vec<&str> = list.iter().filter_map(|l| l["uri"].as_str()).collect();
        files.sort();
        files.dedup();
        reference_files = files.len();
    }

    // a burst of opens: every file must be published
    let burst: Vec<&PathBuf> = plain.iter().step_by((plain.len() / BURST).max(1)).take(BURST).collect();
    let texts: Vec<(String, String)> = burst
        .iter()
        .map(|p| (format!("file://{}", p.display()), std::fs::read_to_string(p).unwrap_or_default()))
        .collect();
    let t = Instant::now();
    for (u, text) in &texts {
        client.open(u, text, 1);
    }
    // one wait for all of them: waiting for each in turn would drop the others' messages
    let missing = std::sync::Arc::new(std::sync::Mutex::new(texts.iter().map(|(u, _)| u.clone()).collect::<Vec<_>>()));
    let m = missing.clone();
    client
        .wait_for(Duration::from_secs(60), move |msg| {
            if msg["method"] != "textDocument/publishDiagnostics" {
                return false;
            }
            let Ok(mut left) = m.lock() else { return true };
            left.retain(|u| msg["params"]["uri"] != u.as_str());
            left.is_empty()
        })
        .await;
    let burst = t.elapsed();
    if let Some(u) = missing.lock().ok().and_then(|m| m.first().cloned()) {
        return Err(format!("{u} was not published within 60 s of the burst"));
    }
    let peak_rss_kb = memory_kb(pid, "VmHWM:");
    let _ = tokio::time::timeout(Duration::from_secs(5), client.request_raw("shutdown", Value::Null)).await;
    client.notify("exit", Value::Null);
    let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
    Ok(WorkspaceFigures { indexing, peak_rss_kb, symbols, references, reference_count, reference_files, burst })
}

/// Just enough to let clangd read MSL as C++: address spaces and stage keywords vanish,
/// vector types and library functions stay undeclared (its diagnostics are mostly false).
const SHIM: &str = "#define kernel\n#define vertex\n#define fragment\n#define device\n#define constant\n#define thread\n#define threadgroup\n#define threadgroup_imageblock\n#define __METAL_VERSION__ 320\n";
