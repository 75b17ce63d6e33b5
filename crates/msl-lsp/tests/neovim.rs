//! A real client: headless Neovim, configured with the snippet from `docs/editors.md` (the
//! plugin in `editors/neovim` put on 'runtimepath'), starts `msl-lsp`, opens a fixture,
//! and the test checks the diagnostics it received, the hover text of a library call and
//! the location of a definition.
//!
//! Needs `nvim` (Debian's `neovim`); without it the test is skipped, unless
//! `MSL_REQUIRE_NVIM` is set (CI sets it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn nvim_available() -> bool {
    Command::new("nvim").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// The Lua block after the `<!-- neovim-test -->` marker of `docs/editors.md`.
fn docs_snippet() -> String {
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/editors.md")).unwrap();
    let after = docs.split("<!-- neovim-test -->").nth(1).expect("marker in docs/editors.md");
    let start = after.find("```lua\n").expect("lua block") + "```lua\n".len();
    let end = after[start..].find("```").expect("end of lua block");
    after[start..start + end].to_string()
}

const CHECK: &str = r#"
local out = {}
local ok = vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
out.diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, message = d.message, code = d.code })
end
local client = vim.lsp.get_active_clients()[1]
if client then
  local uri = vim.uri_from_bufnr(0)
  local hover = client.request_sync('textDocument/hover', { textDocument = { uri = uri }, position = { line = 6, character = 18 } }, 10000, 0)
  out.hover = hover and hover.result and hover.result.contents and hover.result.contents.value or vim.NIL
  local def = client.request_sync('textDocument/definition', { textDocument = { uri = uri }, position = { line = 6, character = 24 } }, 10000, 0)
  out.definition = def and def.result or vim.NIL
end
local f = io.open(os.getenv('MSL_NVIM_OUT'), 'w')
f:write(vim.fn.json_encode(out))
f:close()
vim.cmd('qa!')
"#;

#[test]
fn neovim_gets_diagnostics_hover_and_definition() {
    if !nvim_available() {
        assert!(
            std::env::var_os("MSL_REQUIRE_NVIM").is_none(),
            "nvim is required (MSL_REQUIRE_NVIM is set) but not found"
        );
        eprintln!("skipped: nvim not found");
        return;
    }
    let dir = std::env::temp_dir().join(format!("msl-nvim-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fixture = dir.join("neovim.metal");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/lsp/neovim.metal"), &fixture).unwrap();
    // the documented line, with the repository's path for the example's
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    let snippet = docs_snippet();
    assert!(snippet.contains("~/src/msl/editors/neovim"), "{snippet}");
    let init = snippet.replace("~/src/msl", &repo.display().to_string());
    std::fs::write(dir.join("init.lua"), init).unwrap();
    std::fs::write(dir.join("check.lua"), CHECK).unwrap();
    let out = dir.join("out.json");
    // `msl-lsp` found on PATH, as the snippet expects
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_msl-lsp"));
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let mut child = Command::new("nvim")
        .args(["--headless", "-n", "-i", "NONE", "-u"])
        .arg(dir.join("init.lua"))
        .arg(&fixture)
        .arg("-c")
        .arg(format!("luafile {}", dir.join("check.lua").display()))
        .env("PATH", path)
        .env("MSL_NVIM_OUT", &out)
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_DATA_HOME", dir.join("data"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start nvim");
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("nvim did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| {
        let mut err = String::new();
        use std::io::Read;
        let _ = child.stderr.take().map(|mut s| s.read_to_string(&mut err));
        panic!("no result from nvim ({e}): {err}")
    });
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let diags = v["diagnostics"].as_array().expect("diagnostics");
    assert!(
        diags.iter().any(|d| d["code"] == "E1401"
            && d["lnum"] == 6
            && d["message"].as_str().unwrap().contains("undeclared_value")),
        "{v:#}"
    );
    let hover = v["hover"].as_str().expect("hover text");
    assert!(hover.contains("clamp"), "{hover}");
    let def = &v["definition"][0];
    assert!(def["uri"].as_str().unwrap().ends_with("/neovim.metal"), "{v:#}");
    assert_eq!(def["range"]["start"]["line"], 3, "{v:#}");
    assert_eq!(def["range"]["start"]["character"], 6, "{v:#}");
    let _ = std::fs::remove_dir_all(&dir);
}
