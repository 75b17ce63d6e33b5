//! The server through an in-process client: every request is sent as JSON-RPC with
//! `Content-Length` framing over in-memory pipes, as an editor sends it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use msl_lsp::test_client::LspClient;
use serde_json::{Value, json};

struct Session {
    client: LspClient,
    dir: PathBuf,
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lsp")
}

/// A scratch copy of the fixtures, so that tests can write files.
fn scratch(name: &str) -> PathBuf {
    scratch_of(&fixtures(), name)
}

fn scratch_of(fixtures: &Path, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("msl-lsp-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(fixtures).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    dir
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

async fn start(name: &str, options: Value) -> Session {
    start_in(scratch(name), options).await
}

async fn start_in(dir: PathBuf, options: Value) -> Session {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(server_io);
    let (cr, cw) = tokio::io::split(client_io);
    tokio::spawn(msl_lsp::serve(sr, sw, None));
    let client = LspClient::new(cr, cw);
    let init = client.initialize(&uri(&dir), options).await;
    assert_eq!(init["serverInfo"]["name"], "msl-lsp");
    Session { client, dir }
}

impl Session {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
    fn uri(&self, name: &str) -> String {
        uri(&self.path(name))
    }
    fn text(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }
    /// Waits (up to 30 s) for diagnostics of `name` that pass `pred`, passing over earlier
    /// publications: after a change of settings or of a header, a check that began before
    /// it may still publish what the old state gave.
    async fn diagnostics_where(&self, name: &str, pred: impl Fn(&Value) -> bool + Send + 'static) -> Option<Value> {
        let uri = self.uri(name);
        self.client
            .wait_for(Duration::from_secs(30), move |m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri.as_str()
                    && pred(&m["params"]["diagnostics"])
            })
            .await
            .map(|m| m["params"]["diagnostics"].clone())
    }

    /// [`Session::diagnostics_where`] the codes, in order, are exactly `wanted`.
    async fn diagnostics_with_codes(&self, name: &str, wanted: &[&str]) -> Option<Value> {
        let wanted: Vec<String> = wanted.iter().map(|c| c.to_string()).collect();
        self.diagnostics_where(name, move |d| codes(d) == wanted).await
    }

    /// Opens a file and returns its first diagnostics.
    async fn open(&self, name: &str) -> Value {
        self.client.open(&self.uri(name), &self.text(name), 1);
        self.client.diagnostics(&self.uri(name), Some(1)).await.expect("diagnostics after open")
    }
    async fn at(&self, method: &str, name: &str, needle: &str, delta: u32) -> Value {
        let pos = position(&self.text(name), needle, delta);
        self.client.request(method, json!({"textDocument": {"uri": self.uri(name)}, "position": pos})).await
    }
}

/// The UTF-16 position of `needle`'s first occurrence plus `delta` characters.
fn position(text: &str, needle: &str, delta: u32) -> Value {
    let at = text.find(needle).unwrap_or_else(|| panic!("`{needle}` not in the fixture"));
    let line = text[..at].matches('\n').count();
    let col = text[..at].rsplit('\n').next().unwrap().encode_utf16().count() as u32 + delta;
    json!({"line": line, "character": col})
}

fn codes(diags: &Value) -> Vec<String> {
    diags.as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap_or("").to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diagnostics_follow_edits_with_versions() {
    let s = start("diagnostics", json!({})).await;
    let d = s.open("kernel.metal").await;
    // only the inactive `#if 0` branch, greyed out
    assert_eq!(codes(&d), vec!["inactive"], "{d:#}");
    assert_eq!(d[0]["severity"], 4);
    assert_eq!(d[0]["tags"], json!([1]));
    // an edit that breaks a name: the error arrives for version 2
    let text = s.text("kernel.metal");
    let pos = position(&text, "add_bias(color.x", 0);
    s.client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": s.uri("kernel.metal"), "version": 2},
            "contentChanges": [{"range": {"start": pos, "end": {"line": pos["line"], "character": pos["character"].as_u64().unwrap() + 8}}, "text": "add_bais"}]
        }),
    );
    let d = s.client.diagnostics(&s.uri("kernel.metal"), Some(2)).await.unwrap();
    let e = d.as_array().unwrap().iter().find(|d| d["code"] == "E1401").expect("E1401 after the edit");
    assert!(e["message"].as_str().unwrap().contains("`add_bais` is not declared"), "{e}");
    assert!(e["message"].as_str().unwrap().contains("did you mean `add_bias`"), "{e}");
    assert_eq!(e["range"]["start"], pos);
    assert_eq!(e["source"], "msl");
    // the quick fix for it
    let actions = s
        .client
        .request("textDocument/codeAction", json!({"textDocument": {"uri": s.uri("kernel.metal")}, "range": e["range"], "context": {"diagnostics": [e]}}))
        .await;
    let fix = &actions[0];
    assert_eq!(fix["title"], "Change to `add_bias`");
    assert_eq!(fix["kind"], "quickfix");
    assert_eq!(fix["isPreferred"], true);
    let edits = &fix["edit"]["changes"][s.uri("kernel.metal")];
    assert_eq!(edits[0]["newText"], "add_bias");
    assert_eq!(edits[0]["range"], e["range"]);
    assert_eq!(fix["diagnostics"][0]["code"], "E1401");
    // a whole-document change fixes it again
    s.client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": s.uri("kernel.metal"), "version": 3}, "contentChanges": [{"text": text}]}),
    );
    let d = s.client.diagnostics(&s.uri("kernel.metal"), Some(3)).await.unwrap();
    assert_eq!(codes(&d), vec!["inactive"]);
    // closing clears them
    s.client.notify("textDocument/didClose", json!({"textDocument": {"uri": s.uri("kernel.metal")}}));
    let d = s.client.diagnostics(&s.uri("kernel.metal"), None).await.unwrap();
    assert_eq!(d, json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_documents_library_user_symbols_attributes_and_macros() {
    let s = start("hover", json!({})).await;
    s.open("kernel.metal").await;
    let md = |v: &Value| v["contents"]["value"].as_str().unwrap_or("").to_string();
    let h = s.at("textDocument/hover", "kernel.metal", "clamp(color", 1).await;
    let text = md(&h);
    assert!(text.contains("clamp"), "{text}");
    assert_eq!(h["contents"]["kind"], "markdown");
    assert!(text.contains("Metal"), "library hovers say where the function comes from: {text}");
    // not the enumerator `depth_clip_mode::clamp`, which a plain `clamp` cannot name
    assert!(!text.contains("depth_clip_mode"), "{text}");
    let h = s.at("textDocument/hover", "kernel.metal", "params.scale", 2).await;
    assert!(md(&h).contains("constant Params &params"), "{}", md(&h));
    assert!(md(&h).contains("address space"), "{}", md(&h));
    let h = s.at("textDocument/hover", "kernel.metal", "add_bias(color", 3).await;
    assert!(md(&h).contains("float add_bias(float value, float bias)"), "{}", md(&h));
    assert!(md(&h).contains("Adds the bias to a value."), "doc comment: {}", md(&h));
    let h = s.at("textDocument/hover", "kernel.metal", "SCALE(v)", 1).await;
    assert!(md(&h).contains("#define SCALE(x) ((x) * 2.0f)"), "{}", md(&h));
    assert!(md(&h).contains("((v) * 2.0f)"), "the expansion: {}", md(&h));
    let h = s.at("textDocument/hover", "kernel.metal", "thread_position_in_grid", 3).await;
    assert!(md(&h).contains("thread_position_in_grid"), "{}", md(&h));
    let h = s.at("textDocument/hover", "kernel.metal", "Params &", 1).await;
    assert!(md(&h).contains("struct Params {\n    uint width;\n    float scale;\n}"), "{}", md(&h));
    assert!(md(&h).contains("Parameters of the blur."), "{}", md(&h));
    let h = s.at("textDocument/hover", "kernel.metal", "common_gain(w", 2).await;
    assert!(md(&h).contains("Multiplies by the global gain."), "{}", md(&h));
    assert!(md(&h).contains("common.h"), "{}", md(&h));
    let h = s.at("textDocument/hover", "kernel.metal", "color.xy", 7).await;
    assert!(md(&h).contains("float2 xy"), "swizzle: {}", md(&h));
    let h = s.at("textDocument/hover", "kernel.metal", "src.read", 5).await;
    assert!(md(&h).contains("read"), "texture method: {}", md(&h));
    // nothing to say about punctuation, a position past the end is harmless
    let h = s.at("textDocument/hover", "kernel.metal", "{\n    float4", 0).await;
    assert_eq!(h, Value::Null);
    let r = s
        .client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": s.uri("kernel.metal")}, "position": {"line": 9999, "character": 9999}}),
        )
        .await;
    assert_eq!(r, Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_is_context_aware() {
    let s = start("completion", json!({})).await;
    s.open("kernel.metal").await;
    let labels = |v: &Value| -> Vec<String> {
        v["items"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap().to_string()).collect()
    };
    // after `.` on a struct reference: its fields
    let c = s.at("textDocument/completion", "kernel.metal", "params.scale", 7).await;
    let l = labels(&c);
    assert!(l.contains(&"width".to_string()) && l.contains(&"scale".to_string()), "{l:?}");
    assert!(!l.contains(&"clamp".to_string()));
    // after `.` on a float4: swizzles
    let c = s.at("textDocument/completion", "kernel.metal", "color.xy", 6).await;
    let l = labels(&c);
    assert!(l.contains(&"x".to_string()) && l.contains(&"rgb".to_string()), "{l:?}");
    // after `.` on a texture: its member functions
    let c = s.at("textDocument/completion", "kernel.metal", "src.read", 4).await;
    let l = labels(&c);
    assert!(l.contains(&"read".to_string()) && l.contains(&"get_width".to_string()), "{l:?}");
    // inside `[[ ]]` of a kernel parameter: kernel attributes only
    let c = s.at("textDocument/completion", "kernel.metal", "thread_position_in_grid", 0).await;
    let l = labels(&c);
    assert!(l.contains(&"thread_position_in_grid".to_string()) && l.contains(&"buffer".to_string()), "{l:?}");
    assert!(!l.contains(&"vertex_id".to_string()), "vertex attributes are not offered in a kernel: {l:?}");
    // after `access::`: the enumerators
    let c = s.at("textDocument/completion", "kernel.metal", "access::read", 8).await;
    let l = labels(&c);
    assert!(
        l.contains(&"read".to_string()) && l.contains(&"write".to_string()) && l.contains(&"sample".to_string()),
        "{l:?}"
    );
    // a prefix in a body: locals, user functions and the library, filtered
    let c = s.at("textDocument/completion", "kernel.metal", "add_bias(color", 3).await;
    let items = c["items"].as_array().unwrap();
    let l = labels(&c);
    assert!(l.contains(&"add_bias".to_string()), "{l:?}");
    let item = items.iter().find(|i| i["label"] == "add_bias").unwrap();
    assert_eq!(item["kind"], 3, "function");
    assert_eq!(item["textEdit"]["range"]["start"], position(&s.text("kernel.metal"), "add_bias(color", 0));
    let c = s.at("textDocument/completion", "kernel.metal", "clamp(color", 3).await;
    let items = c["items"].as_array().unwrap();
    let clamp = items.iter().find(|i| i["label"] == "clamp").expect("clamp offered").clone();
    assert!(clamp["data"].is_object(), "library items are resolved lazily");
    let resolved = s.client.request("completionItem/resolve", clamp).await;
    assert!(resolved["documentation"]["value"].as_str().unwrap().contains("clamp"), "{resolved}");
    // locals and parameters are offered inside the body
    let c = s.at("textDocument/completion", "kernel.metal", "out[gid.x]", 0).await;
    let l = labels(&c);
    for name in ["color", "v", "w", "params", "gid", "src"] {
        assert!(l.contains(&name.to_string()), "{name} missing from {l:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signature_help_tracks_the_active_parameter() {
    let s = start("signature", json!({})).await;
    s.open("kernel.metal").await;
    let h = s.at("textDocument/signatureHelp", "kernel.metal", "0.0f, 1.0f)", 0).await;
    assert!(!h["signatures"].as_array().unwrap().is_empty(), "{h}");
    assert_eq!(h["activeParameter"], 1);
    let label = h["signatures"][h["activeSignature"].as_u64().unwrap() as usize]["label"].as_str().unwrap().to_string();
    assert!(label.contains("clamp"), "{label}");
    let h = s.at("textDocument/signatureHelp", "kernel.metal", "params.scale)", 0).await;
    assert_eq!(h["signatures"][0]["label"], "float add_bias(float value, float bias)");
    assert_eq!(h["activeParameter"], 1);
    assert_eq!(h["signatures"][0]["parameters"][1]["label"], json!([28, 38]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigation_definitions_references_highlights_rename() {
    let s = start("navigation", json!({})).await;
    s.open("kernel.metal").await;
    let text = s.text("kernel.metal");
    // a user function
    let d = s.at("textDocument/definition", "kernel.metal", "add_bias(color", 0).await;
    assert_eq!(d[0]["uri"], s.uri("kernel.metal"));
    assert_eq!(d[0]["range"]["start"], position(&text, "add_bias(float", 0));
    // a function of an included header
    let d = s.at("textDocument/definition", "kernel.metal", "common_gain(w", 0).await;
    assert_eq!(d[0]["uri"], s.uri("common.h"));
    assert_eq!(d[0]["range"]["start"], json!({"line": 2, "character": 13}));
    // a macro
    let d = s.at("textDocument/definition", "kernel.metal", "TILE];", 0).await;
    assert_eq!(d[0]["range"]["start"], position(&text, "TILE 16", 0));
    // the include directive
    let d = s.at("textDocument/definition", "kernel.metal", "\"common.h\"", 2).await;
    assert_eq!(d[0]["uri"], s.uri("common.h"));
    // a library function: the built-in library document
    let d = s.at("textDocument/definition", "kernel.metal", "clamp(color", 0).await;
    let target = d[0]["uri"].as_str().unwrap().strip_prefix("file://").unwrap().to_string();
    let lib = std::fs::read_to_string(&target).unwrap();
    let line = d[0]["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(lib.lines().nth(line).unwrap().contains("clamp("), "{}", lib.lines().nth(line).unwrap());
    // the type of a parameter
    let d = s.at("textDocument/typeDefinition", "kernel.metal", "params.scale", 0).await;
    assert_eq!(d[0]["range"]["start"], position(&text, "Params {", 0));
    // references and highlights of a parameter
    let r = s
        .client
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": s.uri("kernel.metal")}, "position": position(&text, "params.scale", 0), "context": {"includeDeclaration": true}}),
        )
        .await;
    assert_eq!(r.as_array().unwrap().len(), 2, "{r:#}");
    let h = s.at("textDocument/documentHighlight", "kernel.metal", "v = add_bias", 0).await;
    let kinds: Vec<u64> = h.as_array().unwrap().iter().map(|x| x["kind"].as_u64().unwrap()).collect();
    assert_eq!(kinds, vec![3, 2, 2], "declaration (write) and two reads: {h:#}");
    // rename a local
    let p = s.at("textDocument/prepareRename", "kernel.metal", "v = add_bias", 0).await;
    assert_eq!(p["placeholder"], "v");
    let e = s
        .client
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": s.uri("kernel.metal")}, "position": position(&text, "v = add_bias", 0), "newName": "value2"}),
        )
        .await;
    let edits = e["changes"][s.uri("kernel.metal")].as_array().unwrap();
    assert_eq!(edits.len(), 3);
    assert!(edits.iter().all(|x| x["newText"] == "value2"));
    // renaming a header's function edits the header too
    let e = s
        .client
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": s.uri("kernel.metal")}, "position": position(&text, "common_gain(w", 0), "newName": "gain"}),
        )
        .await;
    assert_eq!(e["changes"][s.uri("common.h")].as_array().unwrap().len(), 1, "{e:#}");
    assert_eq!(e["changes"][s.uri("kernel.metal")].as_array().unwrap().len(), 1, "{e:#}");
    // library names cannot be renamed
    let r = s
        .client
        .request_raw(
            "textDocument/prepareRename",
            json!({"textDocument": {"uri": s.uri("kernel.metal")}, "position": position(&text, "clamp(color", 0)}),
        )
        .await;
    assert!(r["error"]["message"].as_str().unwrap().contains("cannot be renamed"), "{r}");
    let r = s
        .client
        .request_raw(
            "textDocument/rename",
            json!({"textDocument": {"uri": s.uri("kernel.metal")}, "position": position(&text, "v = add_bias", 0), "newName": "float"}),
        )
        .await;
    assert!(r["error"]["message"].as_str().unwrap().contains("keyword"), "{r}");
}

/// `#include "common.h"` links to the header's file, on its name; `<metal_stdlib>` is
/// built in and has no link.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_links_open_included_headers() {
    let s = start("links", json!({})).await;
    s.open("kernel.metal").await;
    let doc = json!({"textDocument": {"uri": s.uri("kernel.metal")}});
    let links = s.client.request("textDocument/documentLink", doc).await;
    let links = links.as_array().expect("a list of links");
    assert_eq!(links.len(), 1, "{links:#?}");
    assert_eq!(links[0]["target"], s.uri("common.h").as_str());
    let range = &links[0]["range"];
    assert_eq!(range["start"], position(&s.text("kernel.metal"), "common.h", 0));
    assert_eq!(range["end"], position(&s.text("kernel.metal"), "common.h", 8));
}

/// `msl.expandMacro` gives the invocation at the position and its expansion; `null`
/// where there is none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn macro_invocations_expand_on_request() {
    let s = start("expand", json!({})).await;
    s.open("kernel.metal").await;
    let text = s.text("kernel.metal");
    let expand = |needle: &str, delta: u32| json!({"command": "msl.expandMacro", "arguments": [{"uri": s.uri("kernel.metal"), "position": position(&text, needle, delta)}]});
    let found = s.client.request("workspace/executeCommand", expand("SCALE(v)", 2)).await;
    assert_eq!(found["name"], "SCALE", "{found:#}");
    assert_eq!(found["expansion"], "((v) * 2.0f)\n", "{found:#}");
    assert_eq!(found["range"]["start"], position(&text, "SCALE(v)", 0));
    assert_eq!(found["range"]["end"], position(&text, "SCALE(v)", 8));
    let nothing = s.client.request("workspace/executeCommand", expand("clamp", 1)).await;
    assert!(nothing.is_null(), "{nothing:#}");
}

/// Inside `#include "`, the headers next to the file are offered as files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn include_paths_complete_with_the_headers_beside_the_file() {
    let s = start("include-completion", json!({})).await;
    std::fs::write(s.path("new.metal"), "#include \"co\n").unwrap();
    s.open("new.metal").await;
    let items = s.at("textDocument/completion", "new.metal", "co", 2).await;
    let items = items.get("items").unwrap_or(&items).as_array().cloned().unwrap_or_default();
    let header = items.iter().find(|i| i["label"] == "common.h").unwrap_or_else(|| panic!("{items:#?}"));
    assert_eq!(header["kind"], 17, "a file");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn symbols_tokens_hints_folding_selection() {
    let s = start("symbols", json!({})).await;
    s.open("kernel.metal").await;
    let doc = json!({"textDocument": {"uri": s.uri("kernel.metal")}});
    let syms = s.client.request("textDocument/documentSymbol", doc.clone()).await;
    let names: Vec<&str> = syms.as_array().unwrap().iter().map(|x| x["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["TILE", "SCALE", "Params", "Mode", "add_bias", "blur"], "{syms:#}");
    let params = &syms[2];
    assert_eq!(params["kind"], 23, "struct");
    let fields: Vec<&str> =
        params["children"].as_array().unwrap().iter().map(|x| x["name"].as_str().unwrap()).collect();
    assert_eq!(fields, vec!["width", "scale"]);
    assert!(syms[5]["detail"].as_str().unwrap().starts_with("kernel void"), "{}", syms[5]);
    let ws = s.client.request("workspace/symbol", json!({"query": "blur"})).await;
    assert_eq!(ws[0]["name"], "blur");
    // every symbol of every file: each location is at its name in its file's text
    let ws = s.client.request("workspace/symbol", json!({"query": ""})).await;
    let all = ws.as_array().unwrap();
    let files: std::collections::BTreeSet<&str> = all.iter().map(|w| w["location"]["uri"].as_str().unwrap()).collect();
    assert!(all.len() > 5 && files.len() > 1, "{ws}");
    for w in all {
        let path = w["location"]["uri"].as_str().unwrap().strip_prefix("file://").unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let start = &w["location"]["range"]["start"];
        let line = text.lines().nth(start["line"].as_u64().unwrap() as usize).unwrap();
        let name = w["name"].as_str().unwrap();
        assert!(line[start["character"].as_u64().unwrap() as usize..].starts_with(name), "{w}\n{line}");
    }
    // semantic tokens: decode and look at a few
    let legend_types = [
        "namespace",
        "type",
        "struct",
        "enum",
        "typeParameter",
        "parameter",
        "variable",
        "property",
        "enumMember",
        "function",
        "method",
        "macro",
        "keyword",
        "modifier",
        "decorator",
    ];
    let t = s.client.request("textDocument/semanticTokens/full", doc.clone()).await;
    let data: Vec<u64> = t["data"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    let text = s.text("kernel.metal");
    let lines: Vec<&str> = text.lines().collect();
    let (mut line, mut col) = (0usize, 0usize);
    let mut found: Vec<(String, &str, u64)> = Vec::new();
    for c in data.chunks(5) {
        if c[0] > 0 {
            line += c[0] as usize;
            col = c[1] as usize;
        } else {
            col += c[1] as usize;
        }
        let word = &lines[line][col..col + c[2] as usize];
        found.push((word.to_string(), legend_types[c[3] as usize], c[4]));
    }
    let has = |w: &str, ty: &str| found.iter().any(|(x, t, _)| x == w && *t == ty);
    assert!(has("params", "parameter"), "{found:?}");
    assert!(has("clamp", "function"));
    assert!(has("device", "modifier"));
    assert!(has("texture", "decorator"));
    assert!(has("SCALE", "macro"));
    assert!(has("Params", "struct"));
    assert!(has("width", "property"));
    assert!(has("color", "variable"));
    assert!(found.iter().any(|(x, t, m)| x == "clamp" && *t == "function" && m & 4 != 0), "defaultLibrary modifier");
    // a delta after an edit
    let id = t["resultId"].as_str().unwrap().to_string();
    s.client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": s.uri("kernel.metal"), "version": 2}, "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "// top\n"}]}),
    );
    s.client.diagnostics(&s.uri("kernel.metal"), Some(2)).await.unwrap();
    let d = s
        .client
        .request(
            "textDocument/semanticTokens/full/delta",
            json!({"textDocument": {"uri": s.uri("kernel.metal")}, "previousResultId": id}),
        )
        .await;
    assert!(d["edits"].is_array(), "{d}");
    assert_eq!(d["edits"][0]["start"], 0, "only the first token's line moved: {d}");
    // range tokens
    let r = s
        .client
        .request("textDocument/semanticTokens/range", json!({"textDocument": {"uri": s.uri("kernel.metal")}, "range": {"start": {"line": 17, "character": 0}, "end": {"line": 20, "character": 0}}}))
        .await;
    assert!(!r["data"].as_array().unwrap().is_empty());
    // inlay hints over the whole file (now shifted by one line)
    let h = s
        .client
        .request("textDocument/inlayHint", json!({"textDocument": {"uri": s.uri("kernel.metal")}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 100, "character": 0}}}))
        .await;
    let labels: Vec<&str> = h.as_array().unwrap().iter().map(|x| x["label"].as_str().unwrap()).collect();
    assert!(labels.contains(&": float2"), "auto type: {labels:?}");
    assert!(labels.contains(&"value:") && labels.contains(&"bias:"), "parameter names: {labels:?}");
    // folding: the kernel body, the doc comment is one line (no fold), #if 0 region
    let f = s.client.request("textDocument/foldingRange", doc.clone()).await;
    let spans: Vec<(u64, u64)> = f
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["startLine"].as_u64().unwrap(), x["endLine"].as_u64().unwrap()))
        .collect();
    assert!(spans.contains(&(25, 32)), "kernel body: {spans:?}");
    assert!(spans.iter().any(|(a, b)| *a == 34 && *b >= 35), "#if 0 region: {spans:?}");
    // selection ranges grow outwards
    let sel = s
        .client
        .request(
            "textDocument/selectionRange",
            json!({"textDocument": {"uri": s.uri("kernel.metal")}, "positions": [{"line": 27, "character": 12}]}),
        )
        .await;
    let mut depth = 0;
    let mut cur = &sel[0];
    while cur.is_object() {
        depth += 1;
        cur = &cur["parent"];
    }
    assert!(depth >= 4, "{sel:#}");
    // the syntax tree command
    let tree = s
        .client
        .request(
            "workspace/executeCommand",
            json!({"command": "msl.syntaxTree", "arguments": [{"uri": s.uri("kernel.metal")}]}),
        )
        .await;
    assert!(tree.as_str().unwrap().starts_with("SOURCE_FILE@"), "{tree}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configuration_and_msl_toml_recheck_open_files() {
    let s = start("config", json!({"std": "metal3.2"})).await;
    let dir = s.dir.clone();
    std::fs::write(dir.join("versioned.metal"), "#include <metal_stdlib>\nusing namespace metal;\nkernel void k(device float *d [[buffer(0)]], uint i [[thread_position_in_grid]]) {\n    d[i] = simd_shuffle_and_fill_down(d[i], 0.0f, 1u);\n}\n").unwrap();
    let d = s.open("versioned.metal").await;
    assert_eq!(codes(&d), Vec::<String>::new(), "{d:#}");
    // the client lowers the Metal version
    s.client.notify("workspace/didChangeConfiguration", json!({"settings": {"msl": {"std": "metal2.3"}}}));
    let lowered = s.diagnostics_with_codes("versioned.metal", &["W1301"]).await;
    assert!(lowered.is_some(), "not checked as Metal 2.3 after the settings changed");
    // an msl.toml next to the file raises it again
    std::fs::write(dir.join("msl.toml"), "std = \"metal3.0\"\n").unwrap();
    s.client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": s.uri("msl.toml"), "type": 1}]}));
    let raised = s.diagnostics_with_codes("versioned.metal", &[]).await;
    assert!(raised.is_some(), "not checked as Metal 3.0 after msl.toml appeared");
    // rule levels from settings
    std::fs::remove_file(dir.join("msl.toml")).unwrap();
    s.client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": s.uri("msl.toml"), "type": 3}]}));
    // (without msl.toml the file is checked as 2.3 again)
    let again = s.diagnostics_with_codes("versioned.metal", &["W1301"]).await;
    assert!(again.is_some(), "without msl.toml the file was not checked as Metal 2.3 again");
    s.client.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"msl": {"std": "metal2.3", "rules": {"W1301": "off"}}}}),
    );
    // the re-check with the rule turned off (a publication still on its way from the
    // msl.toml change may come first)
    let quiet = s.diagnostics_with_codes("versioned.metal", &[]).await;
    assert!(quiet.is_some(), "W1301 was not turned off");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_changing_on_disk_recheck_their_includers() {
    let s = start("watch", json!({})).await;
    let d = s.open("kernel.metal").await;
    assert_eq!(codes(&d), vec!["inactive"]);
    // the header loses the function the kernel calls
    std::fs::write(s.path("common.h"), "#pragma once\ninline float other_gain(float x) { return x; }\n").unwrap();
    s.client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": s.uri("common.h"), "type": 2}]}));
    let d = s.diagnostics_where("kernel.metal", |d| codes(d).iter().any(|c| c == "E1401")).await;
    assert!(d.is_some(), "the kernel was not checked again when the header lost a function");
    // an error inside a header shows at its #include, with the place as related information
    std::fs::write(s.path("common.h"), "#pragma once\ninline float common_gain(float x) { return x * ; }\n").unwrap();
    s.client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": s.uri("common.h"), "type": 2}]}));
    let header_error = |x: &Value| x["message"].as_str().is_some_and(|m| m.starts_with("in included file `common.h`"));
    let d = s
        .diagnostics_where("kernel.metal", move |d| d.as_array().is_some_and(|a| a.iter().any(header_error)))
        .await
        .expect("the header's error at its #include");
    let inc = d.as_array().unwrap().iter().find(|x| header_error(x)).expect("header error");
    assert_eq!(inc["range"]["start"]["line"], 1);
    assert_eq!(inc["relatedInformation"][0]["location"]["uri"], s.uri("common.h"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn utf8_positions_when_the_client_offers_them() {
    let dir = scratch("utf8");
    std::fs::write(dir.join("u.metal"), "// é𝄞\nkernel void k(device float *dätä [[buffer(0)]]) { dätä[0] = 1.0f; }\n")
        .unwrap();
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(server_io);
    let (cr, cw) = tokio::io::split(client_io);
    tokio::spawn(msl_lsp::serve(sr, sw, None));
    let client = LspClient::new(cr, cw);
    let init = client
        .request(
            "initialize",
            json!({"processId": null, "capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}}}),
        )
        .await;
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-8");
    client.notify("initialized", json!({}));
    let u = uri(&dir.join("u.metal"));
    client.open(&u, &std::fs::read_to_string(dir.join("u.metal")).unwrap(), 1);
    client.diagnostics(&u, Some(1)).await.unwrap();
    // `dätä[0]`: byte column of the use
    let line = "kernel void k(device float *dätä [[buffer(0)]]) { dätä[0] = 1.0f; }";
    let col = line.rfind("dätä").unwrap();
    let h = client
        .request(
            "textDocument/documentHighlight",
            json!({"textDocument": {"uri": u}, "position": {"line": 1, "character": col}}),
        )
        .await;
    let starts: Vec<u64> =
        h.as_array().unwrap().iter().map(|x| x["range"]["start"]["character"].as_u64().unwrap()).collect();
    assert_eq!(starts, vec![line.find("dätä").unwrap() as u64, col as u64]);
    assert_eq!(h[1]["range"]["end"]["character"], (col + "dätä".len()) as u64);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn survives_panics_garbage_and_huge_inputs() {
    let s = start("garbage", json!({})).await;
    s.open("kernel.metal").await;
    // a panic inside a request is answered with an error and logged; the server goes on
    let r = s
        .client
        .request_raw("workspace/executeCommand", json!({"command": "msl.internal.panic", "arguments": []}))
        .await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
    let log = s
        .client
        .wait_for(Duration::from_secs(10), |m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"].as_str().is_some_and(|t| t.contains("deliberate panic"))
        })
        .await;
    assert!(log.is_some());
    let h = s.at("textDocument/hover", "kernel.metal", "clamp(color", 1).await;
    assert!(h["contents"]["value"].as_str().unwrap().contains("clamp"));
    // unknown methods, malformed JSON, a request about a file that is not open
    let r = s.client.request_raw("msl/unknownMethod", json!({})).await;
    assert_eq!(r["error"]["code"], -32601);
    s.client.send_bytes(b"Content-Length: 12\r\n\r\n{not json!!}".to_vec());
    s.client.send_bytes(b"Content-Length: 2\r\n\r\n[]".to_vec());
    s.client.send_bytes(b"garbage without headers\r\n\r\n".to_vec());
    let r = s.client.request_raw("textDocument/hover", json!({"jsonrpc": "2.0"})).await;
    assert!(r["error"].is_object(), "{r}");
    let log = s
        .client
        .wait_for(Duration::from_secs(10), |m| {
            m["params"]["message"].as_str().is_some_and(|t| t.contains("not valid JSON"))
        })
        .await;
    assert!(log.is_some(), "malformed messages are logged");
    let r = s
        .client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": "file:///nowhere.metal"}, "position": {"line": 0, "character": 0}}),
        )
        .await;
    assert_eq!(r, Value::Null);
    let r = s.client.request_raw("textDocument/hover", json!({"textDocument": {"uri": 42}})).await;
    assert!(r["error"].is_object(), "{r}");
    // random bytes as a document, and a 10 MB document
    let mut seed = 0x2545f4914f6cdd1du64;
    let noise: String = (0..200_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            char::from_u32((seed % 0x2fff) as u32).unwrap_or('?')
        })
        .collect();
    let noise_uri = s.uri("noise.metal");
    s.client.open(&noise_uri, &noise, 1);
    s.client.diagnostics(&noise_uri, Some(1)).await.expect("diagnostics for noise");
    // (kernels of distinct names: one name defined twice is an error)
    let big: String = (0..10 * 1024 * 1024 / 110)
        .map(|n| format!("kernel void k{n}(device float *d [[buffer(0)]], uint i [[thread_position_in_grid]]) {{ d[i] = d[i] * 2.0f + 1.0f; }}\n"))
        .collect();
    let big_uri = s.uri("big.metal");
    s.client.open(&big_uri, &big, 1);
    // 95,000 kernels: seconds in a release build, more in a test build on a
    // busy machine (speed is measured by `cargo xtask bench`, not here)
    let d = s
        .client
        .diagnostics_within(Duration::from_secs(180), &big_uri, Some(1))
        .await
        .expect("diagnostics for a 10 MB file");
    assert!(d.as_array().is_some());
    for (uri, line) in [(&noise_uri, 3u32), (&big_uri, 40_000)] {
        for method in [
            "textDocument/hover",
            "textDocument/completion",
            "textDocument/signatureHelp",
            "textDocument/definition",
            "textDocument/documentHighlight",
        ] {
            let r = s
                .client
                .request_raw(method, json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 7}}))
                .await;
            assert!(r.get("error").is_none(), "{method}: {r}");
        }
    }
    let h = s.at("textDocument/hover", "kernel.metal", "clamp(color", 1).await;
    assert!(h["contents"]["value"].as_str().unwrap().contains("clamp"), "still answering");
    let r = s.client.request("shutdown", Value::Null).await;
    assert_eq!(r, Value::Null);
}

/// Edits that arrive faster than diagnostics are computed: each edit waits for the
/// analysis snapshots of the previous one to be dropped, which must never wait on a
/// task that cannot run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rapid_edits_right_after_open_do_not_stall_the_server() {
    let s = start("rapid", json!({})).await;
    let text = s.text("kernel.metal");
    s.client.open(&s.uri("kernel.metal"), &text, 1);
    for v in 2..40 {
        s.client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": s.uri("kernel.metal"), "version": v},
                   "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": " "}]}),
        );
    }
    let started = std::time::Instant::now();
    let symbols =
        s.client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": s.uri("kernel.metal")}})).await;
    assert!(symbols.as_array().is_some_and(|a| !a.is_empty()), "{symbols}");
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
    let d = s.client.diagnostics(&s.uri("kernel.metal"), Some(39)).await;
    assert!(d.is_some());
}

/// Waits (up to `timeout`) until `publishDiagnostics` has come for every one of `uris`
/// (passing `pred`); returns the ones still missing.
async fn wait_for_all(
    s: &Session,
    uris: &[String],
    timeout: Duration,
    pred: impl Fn(&Value) -> bool + Send + 'static,
) -> Vec<String> {
    let missing = std::sync::Arc::new(std::sync::Mutex::new(uris.to_vec()));
    let m = missing.clone();
    s.client
        .wait_for(timeout, move |msg| {
            if msg["method"] != "textDocument/publishDiagnostics" || !pred(&msg["params"]["diagnostics"]) {
                return false;
            }
            let mut left = m.lock().unwrap();
            left.retain(|u| msg["params"]["uri"] != u.as_str());
            left.is_empty()
        })
        .await;
    missing.lock().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_file_opened_in_a_burst_gets_its_diagnostics() {
    let s = start("burst", json!({})).await;
    // Units with one mistake each, opened back to back as an editor restoring its tabs
    // does: each open cancels the checks still running. Rounds of several sizes, so that
    // some open lands while another unit is being checked, however fast this machine is.
    let mut all = Vec::new();
    for (round, size) in [50, 200, 400, 800].into_iter().enumerate() {
        let helpers: String = (0..size)
            .map(|h| format!("inline float h{h}(float x) {{ float y = x * {h}.0f; return y + common_gain(x); }}\n"))
            .collect();
        let uris: Vec<String> = (0..6)
            .map(|i| {
                let name = format!("tab{round}_{i}.metal");
                let text = format!(
                    "#include \"common.h\"\n{helpers}kernel void k{i}(device float *out [[buffer(0)]], uint id [[thread_position_in_grid]]) {{\n    out[id] = common_gain(undeclared_{i});\n}}\n"
                );
                std::fs::write(s.path(&name), &text).unwrap();
                s.client.open(&s.uri(&name), &text, 1);
                s.uri(&name)
            })
            .collect();
        let missing = wait_for_all(&s, &uris, Duration::from_secs(20), |d| codes(d) == ["E1401"]).await;
        assert!(missing.is_empty(), "round {round}: no diagnostics for {missing:?}");
        all.extend(uris);
    }

    // an edit of the header they share, open in the editor, re-checks every one of them
    let header = s.text("common.h");
    s.client.open(&s.uri("common.h"), &header, 1);
    s.client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": s.uri("common.h"), "version": 2},
               "contentChanges": [{"text": "#pragma once\ninline float other_gain(float x) { return x; }\n"}]}),
    );
    // `common_gain` is gone: every call of it is reported, not only the unit's own mistake
    let missing = wait_for_all(&s, &all, Duration::from_secs(20), |d| codes(d).len() > 1).await;
    assert!(missing.is_empty(), "not re-checked after the header's edit: {missing:?}");
}

/// Waits for the end of the background index's `$/progress`.
async fn indexed(s: &Session) {
    let end = s
        .client
        .wait_for(Duration::from_secs(60), |m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end")
        .await;
    assert!(end.is_some(), "indexing ends with a $/progress end");
}

fn uris_of(locations: &Value) -> Vec<String> {
    let mut v: Vec<String> = locations
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|l| l["uri"].as_str().unwrap_or_default().rsplit('/').next().unwrap_or_default().to_string())
        .collect();
    v.sort();
    v
}

#[tokio::test]
async fn the_background_index_serves_navigation_across_units() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lsp-workspace");
    let s = start_in(scratch_of(&fixtures, "workspace"), json!({})).await;
    // progress is announced: created, begun, ended
    let begin = s
        .client
        .wait_for(Duration::from_secs(30), |m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "begin")
        .await
        .expect("indexing begins with a $/progress begin");
    assert_eq!(begin["params"]["value"]["title"], "Indexing");
    indexed(&s).await;
    s.open("a.metal").await;

    // references to a header function from the open unit reach the unit that is not open
    let pos = position(&s.text("a.metal"), "tone_map(pixels", 0);
    let refs = s
        .client
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": s.uri("a.metal")}, "position": pos, "context": {"includeDeclaration": true}}),
        )
        .await;
    assert_eq!(uris_of(&refs), ["a.metal", "b.metal", "b.metal", "shared.h"], "{refs}");

    // go to definition of a function the open unit only declares: the other unit's body
    let d = s.at("textDocument/definition", "a.metal", "tone_map(pixels", 0).await;
    assert_eq!(d[0]["uri"], s.uri("b.metal"), "{d}");
    assert_eq!(d[0]["range"]["start"], position(&s.text("b.metal"), "tone_map(float", 0));

    // rename changes every unit that sees the declaration
    let r = s
        .client
        .request(
            "textDocument/rename",
            json!({"textDocument": {"uri": s.uri("a.metal")}, "position": pos, "newName": "compress"}),
        )
        .await;
    let changes = r["changes"].as_object().cloned().unwrap_or_default();
    let mut files: Vec<(String, usize)> = changes
        .iter()
        .map(|(u, e)| (u.rsplit('/').next().unwrap().to_string(), e.as_array().map(|a| a.len()).unwrap_or(0)))
        .collect();
    files.sort();
    assert_eq!(files, [("a.metal".to_string(), 1), ("b.metal".to_string(), 2), ("shared.h".to_string(), 1)], "{r}");

    // workspace symbols of a file that is not open
    let syms = s.client.request("workspace/symbol", json!({"query": "only_in"})).await;
    assert_eq!(
        uris_of(
            &syms
                .as_array()
                .map(|a| Value::Array(a.iter().map(|x| x["location"].clone()).collect()))
                .unwrap_or_default()
        ),
        ["b.metal"],
        "{syms}"
    );

    // call hierarchy: the callers of tone_map, in both units
    let items = s.at("textDocument/prepareCallHierarchy", "a.metal", "tone_map(pixels", 0).await;
    assert_eq!(items[0]["name"], "tone_map", "{items}");
    let incoming = s.client.request("callHierarchy/incomingCalls", json!({"item": items[0]})).await;
    let mut callers: Vec<String> =
        incoming.as_array().unwrap().iter().map(|c| c["from"]["name"].as_str().unwrap().to_string()).collect();
    callers.sort();
    assert_eq!(callers, ["expose", "only_in_b"], "{incoming}");
    let from_b = incoming.as_array().unwrap().iter().find(|c| c["from"]["name"] == "only_in_b").unwrap();
    assert_eq!(from_b["fromRanges"][0]["start"], position(&s.text("b.metal"), "tone_map(v)", 0));

    // type hierarchy: the classes that derive from a header's class
    let items = s.at("textDocument/prepareTypeHierarchy", "a.metal", "Light {", 0).await;
    assert_eq!(items[0]["name"], "Light", "{items}");
    let subs = s.client.request("typeHierarchy/subtypes", json!({"item": items[0]})).await;
    let mut names: Vec<String> =
        subs.as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_string()).collect();
    names.sort();
    assert_eq!(names, ["AreaLight", "SpotLight"], "{subs}");
    let sup = s.client.request("typeHierarchy/supertypes", json!({"item": subs[0]})).await;
    assert_eq!(sup[0]["name"], "Light", "{sup}");

    // a unit created on disk is indexed when the editor says so
    let c = s.path("c.metal");
    std::fs::write(&c, "#include \"shared.h\"\nfloat third(float v) { return tone_map(v + 1.0f); }\n").unwrap();
    s.client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": s.uri("c.metal"), "type": 1}]}));
    indexed(&s).await;
    let refs = s
        .client
        .request(
            "textDocument/references",
            json!({"textDocument": {"uri": s.uri("a.metal")}, "position": pos, "context": {"includeDeclaration": false}}),
        )
        .await;
    assert_eq!(uris_of(&refs), ["a.metal", "b.metal", "c.metal"], "{refs}");
}

#[tokio::test]
async fn a_header_takes_its_context_from_a_unit_that_includes_it() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lsp-workspace");
    let s = start_in(scratch_of(&fixtures, "context"), json!({})).await;
    indexed(&s).await;
    // shading.h uses a macro its includer defines first: inside a.metal it is clean
    let uri = s.uri("shading.h");
    s.client.open(&uri, &s.text("shading.h"), 1);
    let status = s
        .client
        .wait_for(Duration::from_secs(10), |m| {
            m["method"] == "msl/status" && m["params"]["contexts"].as_object().is_some_and(|c| !c.is_empty())
        })
        .await
        .expect("msl/status names the context");
    assert_eq!(status["params"]["contexts"][uri.as_str()], s.uri("a.metal"), "{status}");
    let clean = s.diagnostics_where("shading.h", |d| codes(d).is_empty()).await;
    assert!(clean.is_some(), "shading.h in the context of a.metal has no errors");
    let c = s
        .client
        .request("workspace/executeCommand", json!({"command": "msl.contextCandidates", "arguments": [{"uri": uri}]}))
        .await;
    assert_eq!(c, json!({"current": s.uri("a.metal"), "candidates": [s.uri("a.metal")]}));
    // on its own, the macro is not declared
    let c = s
        .client
        .request(
            "workspace/executeCommand",
            json!({"command": "msl.setContext", "arguments": [{"uri": uri, "context": null}]}),
        )
        .await;
    assert_eq!(c["current"], Value::Null);
    let alone = s.diagnostics_where("shading.h", |d| codes(d).contains(&"E1401".to_string())).await;
    assert!(alone.is_some(), "alone, EXPOSURE is not declared");
    // and back in its includer's context
    s.client
        .request(
            "workspace/executeCommand",
            json!({"command": "msl.setContext", "arguments": [{"uri": uri, "context": s.uri("a.metal")}]}),
        )
        .await;
    assert!(s.diagnostics_where("shading.h", |d| codes(d).is_empty()).await.is_some());
    // a file that does not include it is refused
    let r = s
        .client
        .request_raw(
            "workspace/executeCommand",
            json!({"command": "msl.setContext", "arguments": [{"uri": uri, "context": s.uri("b.metal")}]}),
        )
        .await;
    assert!(r["error"]["message"].as_str().unwrap_or_default().contains("does not include"), "{r}");
}

/// Applies LSP text edits (UTF-16 positions, here all ASCII) to a text.
fn apply_edits(text: &str, edits: &Value) -> String {
    let offset = |p: &Value| -> usize {
        let (line, ch) = (p["line"].as_u64().unwrap() as usize, p["character"].as_u64().unwrap() as usize);
        text.split_inclusive('\n').take(line).map(str::len).sum::<usize>() + ch
    };
    let mut edits: Vec<(usize, usize, String)> = edits
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (offset(&e["range"]["start"]), offset(&e["range"]["end"]), e["newText"].as_str().unwrap().to_string()))
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (s, e, t) in edits {
        out.replace_range(s..e, &t);
    }
    out
}

#[tokio::test]
async fn formatting_and_range_formatting() {
    let dir = std::env::temp_dir().join(format!("msl-lsp-test-format-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let text = "kernel void k(device float* o [[buffer(0)]]) { o[0]=1; }\nfloat  half_of(float x) { return x*0.5f; }\n";
    std::fs::write(dir.join("f.metal"), text).unwrap();
    std::fs::write(dir.join("msl.toml"), "[format]\nindent-width = 2\n").unwrap();
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(server_io);
    let (cr, cw) = tokio::io::split(client_io);
    tokio::spawn(msl_lsp::serve(sr, sw, None));
    let client = LspClient::new(cr, cw);
    let init = client.initialize(&uri(&dir), json!({})).await;
    assert_eq!(init["capabilities"]["documentFormattingProvider"], true);
    assert_eq!(init["capabilities"]["documentRangeFormattingProvider"], true);
    let s = Session { client, dir };
    s.open("f.metal").await;
    let doc = json!({"uri": s.uri("f.metal")});
    let edits = s
        .client
        .request(
            "textDocument/formatting",
            json!({"textDocument": doc, "options": {"tabSize": 4, "insertSpaces": true}}),
        )
        .await;
    let formatted = apply_edits(text, &edits);
    assert_eq!(
        formatted,
        "kernel void k(device float *o [[buffer(0)]])\n{\n  o[0] = 1;\n}\nfloat half_of(float x)\n{\n  return x * 0.5f;\n}\n"
    );
    // the second line only
    let range = json!({"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 44}});
    let edits = s
        .client
        .request(
            "textDocument/rangeFormatting",
            json!({"textDocument": doc, "range": range, "options": {"tabSize": 4, "insertSpaces": true}}),
        )
        .await;
    let partly = apply_edits(text, &edits);
    assert!(partly.starts_with("kernel void k(device float* o [[buffer(0)]]) { o[0]=1; }\n"), "{partly}");
    assert!(partly.ends_with("float half_of(float x)\n{\n  return x * 0.5f;\n}\n"), "{partly}");
}
