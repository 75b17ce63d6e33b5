//! Apple's compiler in the server, driven through an in-process client, with a stand-in
//! compiler that replays recorded output (fixtures/compiler/recordings).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use msl_lsp::test_client::LspClient;
use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn recording(name: &str) -> String {
    std::fs::read_to_string(root().join("fixtures/compiler/recordings").join(name)).unwrap()
}

struct Session {
    client: LspClient,
    dir: PathBuf,
    compiler: PathBuf,
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A workspace (its path has a space and non-ASCII characters) with the shader, its
/// header and a stand-in compiler replaying `standin`; the server started with
/// `options` (where `"$COMPILER"` stands for the stand-in's path).
async fn start(standin: Value, options: Value) -> Session {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "msl-lsp compiler ñ {}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tools")).unwrap();
    for f in ["shader.metal", "common.h"] {
        std::fs::copy(root().join("fixtures/compiler").join(f), dir.join(f)).unwrap();
    }
    let exe = std::env::current_exe().unwrap();
    let compiler = dir.join("tools").join("metal");
    std::fs::copy(msl_compiler::standin_executable(&exe).unwrap(), &compiler).unwrap();
    std::fs::write(dir.join("tools/standin.json"), standin.to_string()).unwrap();
    let options: Value =
        serde_json::from_str(&options.to_string().replace("$COMPILER", &compiler.display().to_string())).unwrap();

    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(server_io);
    let (cr, cw) = tokio::io::split(client_io);
    tokio::spawn(msl_lsp::serve(sr, sw, None));
    let client = LspClient::new(cr, cw);
    client.initialize(&uri(&dir), options).await;
    Session { client, dir, compiler }
}

fn uri(path: &Path) -> String {
    // the client percent-encodes what a URI may not hold
    let mut s = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

impl Session {
    fn uri(&self, name: &str) -> String {
        uri(&self.dir.join(name))
    }

    fn text(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap()
    }

    async fn status(&self) -> Value {
        self.client
            .wait_for(Duration::from_secs(30), |m| m["method"] == "msl/status")
            .await
            .expect("msl/status")["params"]
            .clone()
    }

    /// The next published diagnostics of `name` that hold one from the compiler.
    async fn compiler_diagnostics(&self, name: &str, version: i64) -> Value {
        let uri = self.uri(name);
        self.client
            .wait_for(Duration::from_secs(30), move |m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri.as_str()
                    && m["params"]["version"] == version
                    && m["params"]["diagnostics"].as_array().is_some_and(|a| a.iter().any(|d| d["source"] == "metal"))
            })
            .await
            .expect("diagnostics from the compiler")["params"]["diagnostics"]
            .clone()
    }

    fn change(&self, name: &str, version: i64, range: Value, text: &str) {
        self.client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": self.uri(name), "version": version},
                   "contentChanges": [{"range": range, "text": text}]}),
        );
    }
}

fn from(diags: &Value, source: &str) -> Vec<Value> {
    diags.as_array().unwrap().iter().filter(|d| d["source"] == source).cloned().collect()
}

fn strip_summary(s: String) -> String {
    s.lines().filter(|l| !l.ends_with("generated.")).map(|l| format!("{l}\n")).collect()
}

/// The compiler's verdict on the fixture: a warning we do not give, the misspelt call we
/// also report, a warning in the header, and an error with a fix-it.
fn verdict() -> String {
    let header = "In file included from {input}:2:\n{input_dir}/common.h:3:38: warning: implicit conversion loses floating-point precision: 'double' to 'float' [-Wimplicit-float-conversion]\n    3 | inline float twice(float x) { return x * missing_value; }\n      |                                      ^\n";
    let semicolon = "{input}:11:27: error: expected ';' after expression\n   11 |     out[i] += SCALE(in[i]);\n      |                           ^\n      |                           ;\nfix-it:\"{input_fixit}\":{11:27-11:27}:\";\"\n";
    format!(
        "{}{}{header}{semicolon}2 errors and 2 warnings generated.\n",
        strip_summary(recording("warning.txt")),
        strip_summary(recording("error-notes-fixit.txt"))
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compiler_diagnostics_after_save_merged_and_kept_in_place() {
    let s = start(
        json!({ "stderr": verdict(), "exit": 1, "require": ["-x", "metal", "-std=metal3.2", "-fsyntax-only"] }),
        json!({ "std": "metal3.2", "compiler": { "path": "$COMPILER", "mode": "onSave" } }),
    )
    .await;
    let status = s.status().await;
    assert_eq!(status["compiler"]["path"], s.compiler.display().to_string(), "{status}");
    assert_eq!(status["std"], "metal3.2");
    assert_eq!(status["compilerMode"], "onSave");

    let text = s.text("shader.metal");
    s.client.open(&s.uri("shader.metal"), &text, 1);
    let ours = s.client.diagnostics(&s.uri("shader.metal"), Some(1)).await.unwrap();
    assert!(from(&ours, "metal").is_empty(), "the compiler runs only after a save");
    s.client.notify("textDocument/didSave", json!({"textDocument": {"uri": s.uri("shader.metal")}}));
    let d = s.compiler_diagnostics("shader.metal", 1).await;
    let metal = from(&d, "metal");
    // the misspelt call is ours alone (with our code and fix); the compiler's is dropped
    assert!(from(&d, "msl").iter().any(|x| x["code"] == "E1401" && x["range"]["start"]["line"] == 9), "{d:#}");
    assert!(!metal.iter().any(|x| x["range"]["start"]["line"] == 9), "{metal:#?}");
    // the unused variable
    let w = metal.iter().find(|x| x["code"] == "-Wunused-variable").expect("the warning");
    assert_eq!(w["severity"], 2);
    assert_eq!(w["range"], json!({"start": {"line": 8, "character": 10}, "end": {"line": 8, "character": 16}}));
    // the header's warning, at the #include, pointing into the header
    let h = metal.iter().find(|x| x["code"] == "-Wimplicit-float-conversion").expect("the header warning");
    assert_eq!(h["range"]["start"], json!({"line": 1, "character": 0}));
    assert_eq!(h["range"]["end"], json!({"line": 1, "character": 19}));
    assert!(h["message"].as_str().unwrap().starts_with("in common.h:3:38: implicit conversion"), "{h}");
    assert_eq!(h["relatedInformation"][0]["location"]["uri"], s.uri("common.h"));
    assert_eq!(h["relatedInformation"][0]["location"]["range"]["start"], json!({"line": 2, "character": 37}));
    // the error with a fix-it, and its quick fix
    let e = metal.iter().find(|x| x["message"] == "expected ';' after expression").expect("the error");
    assert_eq!(e["range"]["start"], json!({"line": 10, "character": 26}));
    let actions = s
        .client
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": s.uri("shader.metal")}, "range": e["range"], "context": {"diagnostics": [e]}}),
        )
        .await;
    let fix = actions.as_array().unwrap().iter().find(|a| a["title"] == "Metal compiler: insert `;`").expect("fix");
    let edit = &fix["edit"]["changes"][s.uri("shader.metal")][0];
    assert_eq!(edit["newText"], ";");
    assert_eq!(edit["range"]["start"], json!({"line": 10, "character": 26}));
    assert_eq!(fix["diagnostics"][0]["message"], "expected ';' after expression");

    // a line inserted above: the compiler's diagnostics move with the text
    s.change(
        "shader.metal",
        2,
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}),
        "// top\n",
    );
    let d = s.compiler_diagnostics("shader.metal", 2).await;
    let w = from(&d, "metal").into_iter().find(|x| x["code"] == "-Wunused-variable").expect("moved warning");
    assert_eq!(w["range"]["start"], json!({"line": 9, "character": 10}));
    // an edit over the warning: it is gone (the next save asks the compiler again)
    s.change(
        "shader.metal",
        3,
        json!({"start": {"line": 9, "character": 10}, "end": {"line": 9, "character": 16}}),
        "unused2",
    );
    let d = s.client.diagnostics(&s.uri("shader.metal"), Some(3)).await.unwrap();
    assert!(!from(&d, "metal").iter().any(|x| x["code"] == "-Wunused-variable"), "{d:#}");
    assert!(from(&d, "metal").iter().any(|x| x["message"] == "expected ';' after expression"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_air_of_the_current_text() {
    let s = start(
        json!({ "require": ["-S", "-emit-llvm", "-gline-tables-only", "-o"], "air": recording("air.ll"), "exit": 0 }),
        json!({ "compiler": { "path": "$COMPILER", "mode": "onSave" } }),
    )
    .await;
    let text = s.text("shader.metal");
    s.client.open(&s.uri("shader.metal"), &text, 1);
    // an unsaved edit: compiled from a copy, but the AIR names the user's file
    s.change(
        "shader.metal",
        2,
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}),
        "// unsaved\n",
    );
    let air = s
        .client
        .request(
            "workspace/executeCommand",
            json!({"command": "msl.showAir", "arguments": [{"uri": s.uri("shader.metal")}]}),
        )
        .await;
    let air = air.as_str().expect("AIR text");
    let esc = msl_compiler::llvm_escape(&s.dir.join("shader.metal").display().to_string());
    assert!(air.contains(&format!("!DIFile(filename: \"{esc}\"")), "{air}");
    assert!(air.contains("!air.kernel"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_compiler_the_server_says_so_once_and_carries_on() {
    let s = start(json!({}), json!({ "compiler": { "path": "/no/such/dir/metal" } })).await;
    let log = s
        .client
        .wait_for(Duration::from_secs(30), |m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"]
                    .as_str()
                    .is_some_and(|t| t.contains("/no/such/dir/metal") && t.contains("does not exist"))
        })
        .await
        .expect("a log line about the compiler");
    assert_eq!(log["params"]["type"], 2, "a warning: {log}");
    // the status comes after the log line
    let status = s.status().await;
    assert_eq!(status["compiler"], Value::Null);
    let text = s.text("shader.metal");
    s.client.open(&s.uri("shader.metal"), &text, 1);
    let d = s.client.diagnostics(&s.uri("shader.metal"), Some(1)).await.unwrap();
    assert!(from(&d, "msl").iter().any(|x| x["code"] == "E1401"));
    s.client.notify("textDocument/didSave", json!({"textDocument": {"uri": s.uri("shader.metal")}}));
    let r = s
        .client
        .request_raw(
            "workspace/executeCommand",
            json!({"command": "msl.showAir", "arguments": [{"uri": s.uri("shader.metal")}]}),
        )
        .await;
    let message = r["error"]["message"].as_str().expect("an error");
    assert!(message.contains("no Apple Metal compiler was found"), "{message}");
    // said once: no second log line about it
    let again = s
        .client
        .wait_for(Duration::from_millis(500), |m| {
            m["method"] == "window/logMessage"
                && m["params"]["message"].as_str().is_some_and(|t| t.contains("does not exist"))
        })
        .await;
    assert!(again.is_none(), "{again:?}");
    // still serving
    let hover = s
        .client
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": s.uri("shader.metal")}, "position": {"line": 9, "character": 6}}),
        )
        .await;
    assert!(hover.is_object());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn turned_off_it_never_runs() {
    let s = start(json!({ "air": recording("air.ll") }), json!({ "compiler": { "path": "$COMPILER", "mode": "off" } }))
        .await;
    let status = s.status().await;
    assert_eq!(status["compilerMode"], "off");
    assert_eq!(status["compiler"], Value::Null);
    let text = s.text("shader.metal");
    s.client.open(&s.uri("shader.metal"), &text, 1);
    let r = s
        .client
        .request_raw(
            "workspace/executeCommand",
            json!({"command": "msl.showAir", "arguments": [{"uri": s.uri("shader.metal")}]}),
        )
        .await;
    assert!(r["error"]["message"].as_str().unwrap().contains("turned off"), "{r}");
}

#[cfg(target_os = "linux")]
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_idle_it_runs_while_typing_and_newer_edits_cancel_it() {
    let s = start(
        json!({ "stderr": recording("warning.txt"), "exit": 0 }),
        json!({ "compiler": { "path": "$COMPILER", "mode": "onIdle", "timeoutSeconds": 4 } }),
    )
    .await;
    let text = s.text("shader.metal");
    s.client.open(&s.uri("shader.metal"), &text, 1);
    s.change(
        "shader.metal",
        2,
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}),
        "\n",
    );
    // no save: the run starts when typing pauses (the recording names line 9 of the text it was given)
    let d = s.compiler_diagnostics("shader.metal", 2).await;
    assert!(from(&d, "metal").iter().any(|x| x["code"] == "-Wunused-variable"));

    // a compiler that hangs is killed by the next edit
    std::fs::write(s.compiler.with_file_name("standin.json"), json!({ "hang": true }).to_string()).unwrap();
    s.change(
        "shader.metal",
        3,
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}),
        "\n",
    );
    let pid_file = s.compiler.with_file_name("child.pid");
    let mut waited = 0;
    while !pid_file.exists() && waited < 300 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += 1;
    }
    assert!(pid_file.exists(), "the compiler started after the pause");
    s.change(
        "shader.metal",
        4,
        json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}),
        "\n",
    );
    #[cfg(target_os = "linux")]
    {
        let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
        let mut waited = 0;
        while alive(pid) && waited < 100 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            waited += 1;
        }
        assert!(!alive(pid), "the cancelled compiler's process {pid} is still running");
    }
}
