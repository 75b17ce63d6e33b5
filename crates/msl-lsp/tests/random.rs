//! A randomized session: seeded sequences of opens, edits (bursts of them included), saves
//! and closes over a small workspace whose units share headers, with requests in between.
//! At the end, every open file's last published diagnostics must equal what a fresh
//! server publishes for the same texts, and no request may take longer than 5 s.
//!
//! `MSL_RANDOM_SEEDS=7,8,9` runs other seeds; `MSL_RANDOM_STEPS` sets the session length.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use msl_lsp::test_client::LspClient;
use serde_json::{Value, json};

/// xorshift64*: small, seeded, the same on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const FILES: [(&str, &str); 5] = [
    (
        "common.h",
        "#pragma once\n#include <metal_stdlib>\nusing namespace metal;\n\ninline float gain(float x) { return x * 2.0f; }\n\nstruct Sample {\n    float v;\n    float w;\n};\n",
    ),
    (
        "extra.h",
        "#pragma once\n#include \"common.h\"\n\ninline float bias(Sample s) { return gain(s.v) + s.w; }\n#define SCALE(x) ((x) * 4.0f)\n",
    ),
    (
        "a.metal",
        "#include \"common.h\"\n\nkernel void ka(device float *out [[buffer(0)]], uint id [[thread_position_in_grid]]) {\n    float x = out[id];\n    out[id] = gain(x);\n}\n",
    ),
    (
        "b.metal",
        "#include \"extra.h\"\n\nkernel void kb(device Sample *s [[buffer(0)]], device float *out [[buffer(1)]], uint id [[thread_position_in_grid]]) {\n    out[id] = SCALE(bias(s[id]));\n}\n",
    ),
    (
        "c.metal",
        "#include \"common.h\"\n#include \"extra.h\"\n\nfloat mix_both(Sample s) {\n    return gain(s.w) * bias(s);\n}\n\nkernel void kc(device Sample *s [[buffer(0)]], uint id [[thread_position_in_grid]]) {\n    s[id].v = mix_both(s[id]);\n}\n",
    ),
];

/// Lines an edit may insert: valid code, mistakes, half-written code.
const LINES: [&str; 10] = [
    "    float t = gain(1.0f);\n",
    "    float u = undeclared_name + 1.0f;\n",
    "    Sample q; q.v = 2.0f;\n",
    "inline float gain(float x, float y) { return x * y; }\n",
    "    out[id] = bias(\n",
    "}\n",
    "struct Sample2 { int k; };\n",
    "    float4 c = float4(1.0f).xyzw;\n",
    "#define gain(x) (x)\n",
    "    int n = 1 +;\n",
];

struct Server {
    client: LspClient,
}

async fn server(dir: &Path) -> Server {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(server_io);
    let (cr, cw) = tokio::io::split(client_io);
    tokio::spawn(msl_lsp::serve(sr, sw, None));
    let client = LspClient::new(cr, cw);
    client.initialize(&uri(&dir.join("")), json!({})).await;
    Server { client }
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// The byte offset of a position (the texts are ASCII).
fn position(text: &str, offset: usize) -> Value {
    let offset = offset.min(text.len());
    let line = text[..offset].matches('\n').count();
    let col = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1);
    json!({"line": line, "character": col})
}

/// A diagnostic without what may differ between equal results (the order).
fn normalized(diags: &Value) -> Vec<String> {
    let mut v: Vec<String> = diags
        .as_array()
        .map(|a| a.iter().map(|d| format!("{} {} {} {}", d["range"], d["severity"], d["code"], d["message"])).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Waits until every open document has a publication for its version and none came for
/// a while; returns each document's last publication.
async fn settle(client: &LspClient, docs: &BTreeMap<String, (i64, String)>) -> BTreeMap<String, Vec<String>> {
    /// Each document's last publication: its version and diagnostics.
    type Last = BTreeMap<String, (Option<i64>, Value)>;
    let last: Arc<Mutex<Last>> = Arc::default();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let l = last.clone();
        let got = client
            .wait_for(Duration::from_millis(1500), move |m| {
                if m["method"] != "textDocument/publishDiagnostics" {
                    return false;
                }
                let u = m["params"]["uri"].as_str().unwrap_or_default().to_string();
                let v = m["params"]["version"].as_i64();
                l.lock().unwrap().insert(u, (v, m["params"]["diagnostics"].clone()));
                true
            })
            .await;
        if got.is_some() {
            continue;
        }
        let all = {
            let l = last.lock().unwrap();
            docs.iter().all(|(u, (version, _))| l.get(u).is_some_and(|(v, _)| *v == Some(*version)))
        };
        if all {
            break;
        }
        assert!(Instant::now() < deadline, "some open documents never got diagnostics for their last version");
    }
    let l = last.lock().unwrap();
    docs.keys().map(|u| (u.clone(), l.get(u).map(|(_, d)| normalized(d)).unwrap_or_default())).collect()
}

async fn timed_request(client: &LspClient, method: &str, params: Value) {
    let t = Instant::now();
    let r = tokio::time::timeout(Duration::from_secs(5), client.request_raw(method, params)).await;
    assert!(r.is_ok(), "{method} took longer than 5 s");
    let r = r.unwrap();
    // a refusal (nothing to rename here) or a cancellation by an edit is an answer; an
    // internal error (a panic) is not
    if let Some(e) = r.get("error") {
        assert_ne!(e["code"], -32603, "{method} failed: {r}");
    }
    assert!(t.elapsed() < Duration::from_secs(5));
}

async fn session(seed: u64, steps: usize) -> usize {
    let dir = std::env::temp_dir().join(format!("msl-random-{seed}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in FILES {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let names: Vec<&str> = FILES.iter().map(|(n, _)| *n).collect();
    let path = |n: &str| -> PathBuf { dir.join(n) };
    let s = server(&dir).await;
    let mut rng = Rng::new(seed);
    // the open documents: uri -> (version, text)
    let mut docs: BTreeMap<String, (i64, String)> = BTreeMap::new();
    let mut log: Vec<String> = Vec::new();
    let mut step = 0;
    while step < steps {
        // a burst: several operations without a pause
        let burst = if rng.below(8) == 0 { 3 + rng.below(5) } else { 1 };
        for _ in 0..burst {
            step += 1;
            let name = *rng.pick(&names);
            let u = uri(&path(name));
            let choice = rng.below(100);
            if !docs.contains_key(&u) || choice < 12 {
                if docs.contains_key(&u) {
                    continue;
                }
                let text = std::fs::read_to_string(path(name)).unwrap();
                s.client.open(&u, &text, 1);
                docs.insert(u, (1, text));
                log.push(format!("open {name}"));
            } else if choice < 55 {
                let (version, text) = docs.get_mut(&u).unwrap();
                *version += 1;
                let kind = rng.below(5);
                let (start, end, new_text) = match kind {
                    0 | 1 => {
                        // a line inserted at a line start
                        let starts: Vec<usize> =
                            std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
                        let at = *rng.pick(&starts);
                        (at, at, rng.pick(&LINES).to_string())
                    }
                    2 => {
                        // a line removed
                        let starts: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
                        let at = if starts.is_empty() { 0 } else { *rng.pick(&starts) };
                        let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
                        (at, end, String::new())
                    }
                    3 => {
                        // a character typed or deleted somewhere
                        let at = rng.below(text.len() + 1);
                        if rng.below(2) == 0 && at < text.len() {
                            (at, at + 1, String::new())
                        } else {
                            (at, at, rng.pick(&["x", "(", ";", "}", " ", "g"]).to_string())
                        }
                    }
                    _ => (0, text.len(), FILES.iter().find(|(n, _)| *n == name).unwrap().1.to_string()),
                };
                let change =
                    json!({"range": {"start": position(text, start), "end": position(text, end)}, "text": new_text});
                text.replace_range(start..end, &new_text);
                s.client.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": u, "version": *version}, "contentChanges": [change]}),
                );
                log.push(format!("edit {name} v{version} {start}..{end} {new_text:?}"));
            } else if choice < 65 {
                let (_, text) = &docs[&u];
                std::fs::write(path(name), text).unwrap();
                s.client.notify("textDocument/didSave", json!({"textDocument": {"uri": u}}));
                log.push(format!("save {name}"));
            } else if choice < 75 {
                docs.remove(&u);
                s.client.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}));
                log.push(format!("close {name}"));
            } else {
                let (_, text) = &docs[&u];
                let pos = position(text, rng.below(text.len() + 1));
                let method = *rng.pick(&[
                    "textDocument/hover",
                    "textDocument/definition",
                    "textDocument/completion",
                    "textDocument/references",
                    "textDocument/documentHighlight",
                    "textDocument/prepareRename",
                ]);
                let mut params = json!({"textDocument": {"uri": u}, "position": pos});
                if method == "textDocument/references" {
                    params["context"] = json!({"includeDeclaration": true});
                }
                log.push(format!("{method} {name}"));
                timed_request(&s.client, method, params).await;
            }
        }
        if rng.below(3) == 0 {
            tokio::time::sleep(Duration::from_millis(rng.below(40) as u64)).await;
        }
    }
    let ours = settle(&s.client, &docs).await;

    // a fresh server, given the same texts
    let fresh = server(&dir).await;
    let fresh_docs: BTreeMap<String, (i64, String)> =
        docs.iter().map(|(u, (_, t))| (u.clone(), (1, t.clone()))).collect();
    for (u, (_, text)) in &fresh_docs {
        fresh.client.open(u, text, 1);
    }
    let theirs = settle(&fresh.client, &fresh_docs).await;
    let _ = std::fs::remove_dir_all(&dir);
    let compared: usize = ours.values().map(|d| d.len()).sum();
    eprintln!("seed {seed}: {} open documents, {compared} diagnostics compared", ours.len());
    for (u, d) in &ours {
        assert_eq!(
            Some(d),
            theirs.get(u),
            "seed {seed}: {u} differs from a fresh server's diagnostics after:\n{}",
            log.join("\n")
        );
    }
    compared
}

fn seeds() -> Vec<u64> {
    match std::env::var("MSL_RANDOM_SEEDS") {
        Ok(s) => s.split(',').filter_map(|x| x.trim().parse().ok()).collect(),
        Err(_) => vec![1, 2, 3],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_sessions_end_as_a_fresh_server_begins() {
    let steps = std::env::var("MSL_RANDOM_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(120);
    let mut compared = 0;
    for seed in seeds() {
        compared += session(seed, steps).await;
    }
    assert!(compared > 0, "the sessions compared no diagnostics at all");
}
