//! Snapshot tests: every fixture under `fixtures/syntax/{ok,err}` is parsed and its tree
//! and diagnostics compared with the `.snap` file next to it. `ok/` fixtures must have no
//! error; `err/` fixtures show recovery, with the errors' positions. `cxx17/` holds one
//! fixture per C++17 production Metal keeps, each error-free, whose first line
//! (`// nodes: ...`) lists node kinds its tree must hold.
//!
//! Update the snapshots with `UPDATE_EXPECT=1 cargo test -p msl-syntax --test snapshots`.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use msl_syntax::{LineIndex, NodeOrToken, Origin, Parse, PpConfig, Severity, SyntaxKind, Vfs, parse_file};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/syntax")
}

/// The tree without whitespace and line-break tokens, one element per line; tokens that
/// come from a macro expansion or another file say so.
fn compact_tree(parse: &Parse) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for ev in parse.syntax().preorder_with_tokens() {
        match ev {
            rowan::WalkEvent::Enter(NodeOrToken::Node(n)) => {
                let _ = writeln!(out, "{}{:?}", "  ".repeat(depth), n.kind());
                depth += 1;
            }
            rowan::WalkEvent::Leave(NodeOrToken::Node(_)) => depth -= 1,
            rowan::WalkEvent::Enter(NodeOrToken::Token(t)) => {
                if matches!(t.kind(), SyntaxKind::WHITESPACE | SyntaxKind::NEWLINE) {
                    continue;
                }
                let mut text = t.text().to_string();
                if text.len() > 60 {
                    let mut cut = 57;
                    while !text.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    text.truncate(cut);
                    text.push_str("...");
                }
                let origin = match parse.token_origin(&t) {
                    Some(Origin::Macro { call, .. }) if t.kind() != SyntaxKind::MACRO_CALL => {
                        let pp = parse.preprocessed();
                        format!("  (from macro {})", pp.macros[pp.calls[call as usize].def as usize].name)
                    }
                    Some(Origin::Spelled { file, .. }) if file != 0 => {
                        let p = &parse.files()[file as usize].path;
                        format!(
                            "  (in {})",
                            p.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
                        )
                    }
                    _ => String::new(),
                };
                let _ = writeln!(out, "{}{:?} {:?}{}", "  ".repeat(depth), t.kind(), text, origin);
            }
            rowan::WalkEvent::Leave(NodeOrToken::Token(_)) => {}
        }
    }
    out
}

fn diagnostics(parse: &Parse) -> String {
    let mut out = String::new();
    for d in parse.diagnostics() {
        let f = &parse.files()[d.file as usize];
        let lc = LineIndex::new(&f.text).line_col(d.range.start());
        let sev = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        let name = f.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let _ = writeln!(out, "{sev}[{}] {}:{}:{}: {}", d.code, name, lc.line + 1, lc.col + 1, d.message);
    }
    out
}

fn run_dir(sub: &str, must_be_clean: bool) {
    let dir = fixtures().join(sub);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixture directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "metal"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    for path in paths {
        let vfs = Vfs::with_disk();
        let id = vfs.load(&path).expect("fixture is readable");
        let parse = parse_file(id, &vfs, &PpConfig::default());
        // the tree is lossless for the fixture's text
        assert_eq!(parse.main_file_text_from_tree(), *parse.files()[0].text, "{}", path.display());
        if must_be_clean {
            let errors: Vec<_> = parse.errors().collect();
            assert!(errors.is_empty(), "{}: unexpected errors: {errors:?}", path.display());
        }
        // `// nodes: KIND KIND ...` on the first line: the tree must hold each of them
        let text = &parse.files()[0].text;
        if let Some(kinds) = text.lines().next().and_then(|l| l.strip_prefix("// nodes:")) {
            for name in kinds.split_whitespace() {
                let kind = kind_named(name).unwrap_or_else(|| panic!("{}: no node kind `{name}`", path.display()));
                assert!(
                    parse.syntax().descendants().any(|n| n.kind() == kind),
                    "{}: the tree has no {name} node",
                    path.display()
                );
            }
        }
        let actual = format!("{}\n{}", diagnostics(&parse), compact_tree(&parse));
        let snap = path.with_extension("metal.snap");
        expect_test::expect_file![snap].assert_eq(&actual);
    }
}

/// The kind whose name (as `Debug` prints it) is `name`.
fn kind_named(name: &str) -> Option<SyntaxKind> {
    (0..SyntaxKind::__LAST as u16).map(SyntaxKind::from).find(|k| format!("{k:?}") == name)
}

#[test]
fn valid_constructs() {
    run_dir("ok", true);
}

/// The C++17 grammar, production by production: each fixture names the nodes it must
/// produce on its first line.
#[test]
fn cxx17_productions() {
    run_dir("cxx17", true);
}

#[test]
fn error_recovery() {
    run_dir("err", false);
}
