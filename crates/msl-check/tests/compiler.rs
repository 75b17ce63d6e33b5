//! `--compiler`, `--emit-air` and `--version --verbose` with a stand-in for Apple's
//! compiler that replays recorded output (fixtures/compiler/recordings).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn recording(name: &str) -> String {
    std::fs::read_to_string(root().join("fixtures/compiler/recordings").join(name)).unwrap()
}

/// A directory (with a space and non-ASCII characters in its path) holding the shader,
/// its header and a stand-in compiler configured by `config`.
struct Setup {
    dir: PathBuf,
    compiler: PathBuf,
}

impl Setup {
    fn new(config: Value) -> Setup {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "msl-check compiler ü {}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("tools")).unwrap();
        for f in ["shader.metal", "common.h"] {
            std::fs::copy(root().join("fixtures/compiler").join(f), dir.join(f)).unwrap();
        }
        let standin = msl_compiler::standin_executable(Path::new(env!("CARGO_BIN_EXE_msl-check"))).unwrap();
        let compiler = dir.join("tools").join("metal");
        std::fs::copy(standin, &compiler).unwrap();
        std::fs::write(dir.join("tools/standin.json"), config.to_string()).unwrap();
        Setup { dir, compiler }
    }

    fn shader(&self) -> String {
        self.dir.join("shader.metal").display().to_string()
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_msl-check"));
        c.args(args).current_dir(&self.dir).env_remove("MSL_COMPILER");
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The error and the warning of the recordings, in one run.
fn both() -> String {
    let strip =
        |s: String| s.lines().filter(|l| !l.ends_with("generated.")).map(|l| format!("{l}\n")).collect::<String>();
    format!("{}{}2 errors generated.\n", strip(recording("warning.txt")), strip(recording("error-notes-fixit.txt")))
}

#[test]
fn compiler_diagnostics_are_merged_with_ours() {
    let s = Setup::new(json!({ "stderr": both(), "exit": 1, "require": ["-x", "metal", "-std=metal3.2"] }));
    let compiler = s.compiler.display().to_string();
    let out = s.run(&["--format", "json", "--std", "metal3.2", "--compiler", &compiler, &s.shader()], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let items: Vec<Value> = serde_json::from_str(&stdout(&out)).unwrap();
    // the misspelt call: reported once (ours, with its code), not twice
    let at_10: Vec<&Value> = items.iter().filter(|i| i["line"] == 10).collect();
    assert_eq!(at_10.len(), 1, "{items:#?}");
    assert_eq!(at_10[0]["code"], "E1401");
    // the compiler's warning, which we do not report ourselves
    let w = items.iter().find(|i| i["code"] == "metal-Wunused-variable").expect("the compiler's warning");
    assert_eq!(w["path"], "shader.metal");
    assert_eq!((w["line"].as_u64(), w["column"].as_u64(), w["end_column"].as_u64()), (Some(9), Some(11), Some(17)));
    assert_eq!(w["message"], "unused variable 'unused'");
}

#[test]
fn compiler_errors_that_we_do_not_report_are_added() {
    // a different problem at the place where we report `scale_factor`
    let recorded = "{input}:11:15: error: no viable conversion from 'float' to 'half2'\n   11 |     out[i] += SCALE(in[i]);\n      |               ^~~~~~~~~~~~\n{input_dir}/common.h:2:18: note: expanded from macro 'SCALE'\n    2 | #define SCALE(x) ((x) * scale_factor)\n      |                  ^~~~~~~~~~~~~~~~~~~~\n1 error generated.\n";
    let s = Setup::new(json!({ "stderr": recorded, "exit": 1 }));
    let compiler = s.compiler.display().to_string();
    let out = s.run(&["--color", "never", "--compiler", &compiler, &s.shader()], &[]);
    let text = stdout(&out);
    assert!(text.contains("shader.metal:11:15: error[metal]: no viable conversion from 'float' to 'half2'"), "{text}");
    assert!(text.contains("expanded from macro 'SCALE' (common.h:2:18)"), "{text}");
    // ours at the same place stays
    assert!(text.contains("shader.metal:11:15: error[E1401]: `scale_factor` is not declared"), "{text}");
}

#[test]
fn auto_finds_the_compiler_through_the_environment() {
    let s = Setup::new(json!({ "stderr": recording("warning.txt"), "exit": 0 }));
    let compiler = s.compiler.display().to_string();
    let out = s.run(&["--format", "json", "--compiler", "auto", &s.shader()], &[("MSL_COMPILER", &compiler)]);
    assert!(stdout(&out).contains("metal-Wunused-variable"), "{}", stdout(&out));
    // without one: our checks alone, and a note saying so
    let out = s.run(&["--compiler", "auto", &s.shader()], &[("PATH", "/nonexistent")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no Apple Metal compiler found"), "{}", stderr(&out));
    assert!(stdout(&out).contains("E1401"));
}

#[test]
fn an_explicit_compiler_that_does_not_exist_is_an_error() {
    let s = Setup::new(json!({}));
    let out = s.run(&["--compiler", "/no/such/metal", &s.shader()], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/no/such/metal"), "{}", stderr(&out));
}

#[test]
fn a_missing_toolchain_says_what_to_run() {
    let t = recording("missing-toolchain.txt");
    let s = Setup::new(json!({ "stderr": t, "exit": 1 }));
    let compiler = s.compiler.display().to_string();
    let out = s.run(&["--compiler", &compiler, &s.shader()], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("xcodebuild -downloadComponent MetalToolchain"), "{}", stderr(&out));
}

#[test]
fn emit_air_writes_the_ir_with_the_users_paths() {
    let s = Setup::new(json!({
        "require": ["-S", "-emit-llvm", "-gline-tables-only", "-o"],
        "air": recording("air.ll"),
        "exit": 0,
    }));
    let compiler = s.compiler.display().to_string();
    let out_file = s.dir.join("out dir é.ll");
    let out = s.run(&["--compiler", &compiler, "--emit-air", out_file.to_str().unwrap(), &s.shader()], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ir = std::fs::read_to_string(&out_file).unwrap();
    let esc = msl_compiler::llvm_escape(&s.shader());
    assert!(ir.contains(&format!("!DIFile(filename: \"{esc}\"")), "{ir}");
    // to standard output, from standard input, found through the environment
    let mut c = Command::new(env!("CARGO_BIN_EXE_msl-check"));
    c.args(["--emit-air", "-", "--stdin-filename", "shader.metal", "-"])
        .current_dir(&s.dir)
        .env("MSL_COMPILER", &compiler);
    c.stdin(std::fs::File::open(s.dir.join("shader.metal")).unwrap());
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("target triple = \"air64_v27-apple-macosx15.0.0\""));
    assert!(stdout(&out).contains(&format!("source_filename = \"{esc}\"")), "{}", stdout(&out));
}

#[test]
fn emit_air_reports_compile_errors_and_a_missing_compiler() {
    let s = Setup::new(json!({ "stderr": recording("error-notes-fixit.txt"), "exit": 1 }));
    let compiler = s.compiler.display().to_string();
    let out_file = s.dir.join("out.ll");
    let out = s.run(
        &["--color", "never", "--compiler", &compiler, "--emit-air", out_file.to_str().unwrap(), &s.shader()],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("did you mean 'clamp'?"));
    assert!(stderr(&out).contains("no AIR was written"));
    assert!(!out_file.exists());
    let out = s.run(&["--emit-air", "x.ll", &s.shader()], &[("PATH", "/nonexistent")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no Apple Metal compiler found"), "{}", stderr(&out));
    let out = s.run(&["--compiler", "off", "--emit-air", "x.ll", &s.shader()], &[]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn version_verbose_names_the_compiler() {
    let s = Setup::new(json!({ "version": recording("version.txt") }));
    let compiler = s.compiler.display().to_string();
    let out = s.run(&["--version", "--verbose"], &[("MSL_COMPILER", &compiler)]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.starts_with("msl-check "), "{text}");
    assert!(
        text.contains(&format!(
            "Metal compiler: {compiler} (from $MSL_COMPILER; Apple metal version 32023.619 (metalfe-32023.619))"
        )),
        "{text}"
    );
    let out = s.run(&["--version", "--verbose"], &[("PATH", "/nonexistent")]);
    assert!(stdout(&out).contains("Metal compiler: none found"), "{}", stdout(&out));
    let out = s.run(&["--version"], &[]);
    assert!(!stdout(&out).contains("Metal compiler"));
}

#[test]
fn msl_toml_may_not_choose_the_compiler() {
    let s = Setup::new(json!({}));
    std::fs::write(s.dir.join("msl.toml"), "compiler = \"/tmp/evil\"\n").unwrap();
    let out = s.run(&[&s.shader()], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("`compiler` cannot be set in msl.toml"), "{}", stderr(&out));
}
