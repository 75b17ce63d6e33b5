//! The `msl-fmt` command line: exit codes, `--check`, `--diff`, standard input,
//! directories, configuration, and files it cannot read.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn msl_fmt(args: &[&str], dir: &Path, stdin: Option<&str>) -> Output {
    use std::io::Write;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_msl-fmt"));
    cmd.args(args).current_dir(dir);
    cmd.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("msl-fmt runs");
    if let Some(text) = stdin {
        // a run that stops before reading its input (bad usage) closes the pipe early
        let _ = child.stdin.take().expect("stdin").write_all(text.as_bytes());
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("msl-fmt ends")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("msl-fmt-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

const UNFORMATTED: &str = "kernel void k(device float* o [[buffer(0)]]) { o[0]=1; }\n";
const FORMATTED: &str = "kernel void k(device float *o [[buffer(0)]])\n{\n    o[0] = 1;\n}\n";

#[test]
fn formats_files_in_place_and_directories_recursively() {
    let dir = scratch("in-place");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("a.metal"), UNFORMATTED).unwrap();
    std::fs::write(dir.join("sub/b.metal"), UNFORMATTED).unwrap();
    std::fs::write(dir.join("sub/notes.txt"), UNFORMATTED).unwrap();
    let out = msl_fmt(&["."], &dir, None);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(dir.join("a.metal")).unwrap(), FORMATTED);
    assert_eq!(std::fs::read_to_string(dir.join("sub/b.metal")).unwrap(), FORMATTED);
    assert_eq!(std::fs::read_to_string(dir.join("sub/notes.txt")).unwrap(), UNFORMATTED);
}

#[test]
fn check_exits_1_without_changing_anything_and_0_when_formatted() {
    let dir = scratch("check");
    std::fs::write(dir.join("a.metal"), UNFORMATTED).unwrap();
    let out = msl_fmt(&["--check", "a.metal"], &dir, None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a.metal: would be reformatted"));
    assert_eq!(std::fs::read_to_string(dir.join("a.metal")).unwrap(), UNFORMATTED);
    std::fs::write(dir.join("a.metal"), FORMATTED).unwrap();
    let out = msl_fmt(&["--check", "a.metal"], &dir, None);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn diff_prints_a_unified_diff() {
    let dir = scratch("diff");
    std::fs::write(dir.join("a.metal"), UNFORMATTED).unwrap();
    let out = msl_fmt(&["--diff", "a.metal"], &dir, None);
    assert_eq!(out.status.code(), Some(1));
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(diff.starts_with("--- a.metal\n+++ a.metal\n@@"), "{diff}");
    assert!(diff.contains("-kernel void k(device float* o [[buffer(0)]]) { o[0]=1; }"), "{diff}");
    assert!(diff.contains("+    o[0] = 1;"), "{diff}");
    assert_eq!(std::fs::read_to_string(dir.join("a.metal")).unwrap(), UNFORMATTED);
}

#[test]
fn standard_input_goes_to_standard_output() {
    let dir = scratch("stdin");
    let out = msl_fmt(&["--stdin-filename", "shader.metal", "-"], &dir, Some(UNFORMATTED));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), FORMATTED);
}

#[test]
fn configuration_sets_indentation_and_braces() {
    let dir = scratch("config");
    std::fs::write(dir.join("msl.toml"), "[format]\nindent-width = 2\nfunction-brace-next-line = false\n").unwrap();
    let out = msl_fmt(&["--config", "msl.toml", "-"], &dir, Some(UNFORMATTED));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "kernel void k(device float *o [[buffer(0)]]) {\n  o[0] = 1;\n}\n"
    );
    std::fs::write(dir.join("bad.toml"), "[format]\nindent-width = 0\n").unwrap();
    let out = msl_fmt(&["--config", "bad.toml", "-"], &dir, Some(UNFORMATTED));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("indent-width"));
}

#[test]
fn bad_usage_and_unreadable_input_exit_2() {
    let dir = scratch("errors");
    assert_eq!(msl_fmt(&["--no-such-flag"], &dir, None).status.code(), Some(2));
    let out = msl_fmt(&["missing.metal"], &dir, None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.metal"));
}

#[test]
fn broken_code_keeps_its_text() {
    let dir = scratch("broken");
    let broken = "kernel void k(device float *o [[buffer(0)]]) { o[0] = (1 + ; }\nfloat  f( ) { return 2 ; }\n";
    let out = msl_fmt(&["-"], &dir, Some(broken));
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(msl_fmt::verify(broken, &text).is_ok(), "{text}");
    assert!(text.contains("float f()\n{\n    return 2;\n}\n"), "{text}");
}
