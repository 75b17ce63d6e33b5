//! The command line as users and scripts see it: exit codes, output, flags.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn msl_check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_msl-check")).args(args).output().expect("msl-check runs")
}

fn fixture(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(rel).display().to_string()
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("msl-check-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("temp dir");
    }
    std::fs::write(&p, text).expect("write scratch file");
    p
}

#[test]
fn clean_file_exits_zero() {
    let out = msl_check(&[&fixture("hello.metal")]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("checked 1 file: 0 errors, 0 warnings"));
}

#[test]
fn errors_exit_one_with_source_and_caret() {
    let out = msl_check(&[&fixture("syntax/err/missing_semicolon.metal")]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("missing_semicolon.metal:2:16: error[E0100]: expected `;`, found `float`"), "{stdout}");
    assert!(stdout.contains("2 |     float x = 1\n"), "{stdout}");
    assert!(stdout.contains("  |                ^\n"), "{stdout}");
}

#[test]
fn json_output_follows_the_contract() {
    let out = msl_check(&["--format", "json", "-q", &fixture("syntax/err/half_typed.metal")]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let items = v.as_array().expect("an array");
    assert_eq!(items.len(), 5);
    let first = &items[0];
    for key in ["path", "line", "column", "end_line", "end_column", "severity", "code", "message"] {
        assert!(first.get(key).is_some(), "missing {key}");
    }
    assert_eq!(first["line"], 2);
    assert_eq!(first["column"], 18);
    assert_eq!(first["severity"], "error");
    assert!(out.stderr.is_empty());
}

#[test]
fn flags_reach_the_preprocessor() {
    let p = scratch(
        "flags.metal",
        "#if __METAL_VERSION__ != 210 || !defined(WITH_X) || VALUE != 3\n#error wrong flags\n#endif\n#include \"dep.h\"\n",
    );
    let inc = scratch("inc/dep.h", "int dep;\n");
    let inc_dir = inc.parent().unwrap().display().to_string();
    let ok = msl_check(&["-std=ios-metal2.1", "-D", "WITH_X", "-DVALUE=3", "-I", &inc_dir, p.to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stdout));
    let bad = msl_check(&["--std", "metal3.0", "-I", &inc_dir, p.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stdout).contains("#error wrong flags"));
}

#[test]
fn directories_and_explicit_extensions() {
    let out = msl_check(&["-q", &fixture("syntax/ok")]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    // SPIRV-Cross style names are checked when named explicitly
    let p = scratch("shader.frag", "fragment float4 f() { return 1; }\n");
    assert_eq!(msl_check(&["-q", p.to_str().unwrap()]).status.code(), Some(0));
}

#[test]
fn usage_and_io_problems_exit_two() {
    let missing = msl_check(&["/definitely/not/here.metal"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/definitely/not/here.metal"));
    assert_eq!(msl_check(&["--std", "metal9.9", &fixture("hello.metal")]).status.code(), Some(2));
    assert_eq!(msl_check(&["--no-such-flag"]).status.code(), Some(2));
    let empty = std::env::temp_dir().join(format!("msl-check-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let out = msl_check(&[empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no `.metal` files"));
}
