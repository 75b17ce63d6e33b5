//! The output parser against genuine clang output (Debian's clang, which CI installs):
//! the same families of messages Apple's compiler prints, produced by a real clang with
//! the flags the backend passes. Skipped when no clang is installed, unless
//! `MSL_REQUIRE_CLANG` is set.

use std::path::{Path, PathBuf};
use std::process::Command;

use msl_compiler::diag::parse_output;
use msl_compiler::{LineCol, NoteKind, Output, Severity, Span};

fn clang() -> Option<PathBuf> {
    let candidates = ["clang-19", "clang-18", "clang-17", "clang-16", "clang-15", "clang-14", "clang"];
    let path = std::env::var_os("PATH")?;
    for name in candidates {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `files` into a fresh directory whose name holds a space and non-ASCII
/// characters, runs clang on the first one, and parses what it printed.
fn run(name: &str, files: &[(&str, &str)]) -> Option<(Output, PathBuf, String)> {
    let Some(clang) = clang() else {
        assert!(std::env::var_os("MSL_REQUIRE_CLANG").is_none(), "MSL_REQUIRE_CLANG is set but no clang was found");
        eprintln!("skipped: no clang installed");
        return None;
    };
    let dir = std::env::temp_dir().join(format!("msl clang tëst {name} {}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("crash files")).unwrap();
    let guard = Dir(dir.clone());
    for (f, text) in files {
        std::fs::write(dir.join(f), text).unwrap();
    }
    let main = dir.join(files[0].0);
    let out = Command::new(&clang)
        .args([
            "-fsyntax-only",
            "-x",
            "c++",
            "-fno-color-diagnostics",
            "-fdiagnostics-parseable-fixits",
            "-fdiagnostics-print-source-range-info",
            "-fdiagnostics-absolute-paths",
            "-Wall",
        ])
        .arg(&main)
        .current_dir(&dir)
        // crash reproducers go here, not into the system's temporary directory
        .env("TMPDIR", dir.join("crash files"))
        .output()
        .expect("clang runs");
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    let parsed = parse_output(&text);
    drop(guard);
    Some((parsed, dir, text))
}

fn span(path: &Path, a: (u32, u32), b: (u32, u32)) -> Span {
    Span { path: path.to_path_buf(), start: LineCol::new(a.0, a.1), end: LineCol::new(b.0, b.1) }
}

#[test]
fn error_with_note_and_fix_it() {
    let src = "int clamp(int x, int lo, int hi);\nint g(int v) { return clamb(v, 0, 1); }\n";
    let Some((out, dir, text)) = run("notes", &[("shäder one.cpp", src)]) else { return };
    let main = dir.join("shäder one.cpp");
    assert_eq!(out.diagnostics.len(), 1, "{text}");
    let d = &out.diagnostics[0];
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.path, main);
    assert_eq!(d.message, "use of undeclared identifier 'clamb'; did you mean 'clamp'?");
    assert_eq!(d.at, Some(LineCol::new(2, 23)));
    assert_eq!(d.range, Some(span(&main, (2, 23), (2, 28))), "{text}");
    assert_eq!(d.fixits.len(), 1, "{text}");
    assert_eq!(d.fixits[0].span, span(&main, (2, 23), (2, 28)));
    assert_eq!(d.fixits[0].text, "clamp");
    assert_eq!(d.notes.len(), 1);
    assert_eq!(d.notes[0].message, "'clamp' declared here");
    assert_eq!(d.notes[0].at, Some(LineCol::new(1, 5)));
    assert_eq!(d.notes[0].kind, NoteKind::Note);
    assert_eq!(out.summary, Some((1, 0)));
}

#[test]
fn include_chains() {
    let files = [
        ("top.cpp", "#include \"mid.h\"\nint x = g0;\n"),
        ("mid.h", "// the middle\n#include \"leaf é.h\"\n"),
        ("leaf é.h", "int y = nope;\nint z = nope2;\n"),
    ];
    let Some((out, dir, text)) = run("chain", &files) else { return };
    assert_eq!(out.diagnostics.len(), 3, "{text}");
    let stack = vec![(dir.join("mid.h"), 2), (dir.join("top.cpp"), 1)];
    let (a, b, c) = (&out.diagnostics[0], &out.diagnostics[1], &out.diagnostics[2]);
    assert_eq!(a.path, dir.join("leaf é.h"));
    assert_eq!(a.include_stack, stack, "{text}");
    // clang does not repeat the stack for a second message from the same header
    assert_eq!(b.path, dir.join("leaf é.h"));
    assert_eq!(b.include_stack, stack, "{text}");
    assert_eq!(c.path, dir.join("top.cpp"));
    assert!(c.include_stack.is_empty());
}

#[test]
fn macro_expansions() {
    let files = [
        ("main.cpp", "#include \"common.h\"\nfloat f(float v) { return SCALE(v); }\n"),
        ("common.h", "#pragma once\n#define SCALE(x) ((x) * scale_factor)\n"),
    ];
    let Some((out, dir, text)) = run("macro", &files) else { return };
    assert_eq!(out.diagnostics.len(), 1, "{text}");
    let d = &out.diagnostics[0];
    assert_eq!(d.message, "use of undeclared identifier 'scale_factor'");
    assert_eq!(d.path, dir.join("main.cpp"));
    assert_eq!(d.line, 2);
    let n = &d.notes[0];
    assert_eq!(n.kind, NoteKind::MacroExpansion("SCALE".into()), "{text}");
    assert_eq!((n.path.clone(), n.at), (dir.join("common.h"), Some(LineCol::new(2, 25))));
    // clang prints no include stack for the notes of a macro expansion
    assert!(n.include_stack.is_empty(), "{text}");
}

#[test]
fn warnings_and_extra_ranges() {
    let src = "struct S {};\nint h() {\n  S s; int k = s + 1;\n  return k;\n}\nvoid q() {\n  int unused = 1;\n}\n#warning custom warning here\n";
    let Some((out, dir, text)) = run("warn", &[("w.cpp", src)]) else { return };
    let main = dir.join("w.cpp");
    let unused = out.diagnostics.iter().find(|d| d.message == "unused variable 'unused'").expect(&text);
    assert_eq!(unused.severity, Severity::Warning);
    assert_eq!(unused.option.as_deref(), Some("-Wunused-variable"));
    assert_eq!(unused.range, Some(span(&main, (7, 7), (7, 13))), "{text}");
    let ops = out.diagnostics.iter().find(|d| d.message.starts_with("invalid operands")).expect(&text);
    assert_eq!(ops.severity, Severity::Error);
    assert_eq!(ops.other_ranges, vec![span(&main, (3, 16), (3, 17)), span(&main, (3, 20), (3, 21))], "{text}");
    let custom = out.diagnostics.iter().find(|d| d.message == "custom warning here").expect(&text);
    assert_eq!(custom.option.as_deref(), Some("-W#warnings"));
}

#[test]
fn fatal_errors() {
    let Some((out, dir, text)) = run("fatal", &[("f.cpp", "#include \"not there.h\"\nint a;\n")]) else { return };
    let d = &out.diagnostics[0];
    assert!(d.fatal && d.severity == Severity::Error, "{text}");
    assert_eq!(d.path, dir.join("f.cpp"));
    assert_eq!(d.message, "'not there.h' file not found");
}

#[test]
fn a_crash() {
    let Some((out, _dir, text)) = run("crash", &[("c.cpp", "int a;\n#pragma clang __debug crash\n")]) else { return };
    let crash = out.crash.expect(&text);
    assert!(crash.contains("frontend command failed"), "{crash}");
    // the reproducer notes are not reported as messages
    assert!(!out.tool_messages.iter().any(|t| t.message.contains("diagnostic msg")), "{:?}", out.tool_messages);
}
