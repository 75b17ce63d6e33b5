//! Every rule has a failing and a near-identical passing fixture under `fixtures/check`.
//! A line ending in `// expect: CODE[, CODE]` must carry exactly those diagnostics (by
//! their start line); every other line must carry none. `// std: metalX.Y` on the first
//! line selects the Metal version.

use std::collections::BTreeSet;
use std::path::Path;

use msl_hir::Analysis;
use msl_syntax::{LineIndex, PpConfig, config::parse_std};

/// (line, code) pairs.
type Expectations = BTreeSet<(u32, String)>;

fn check_file(path: &Path) -> (Expectations, Expectations) {
    let text = std::fs::read_to_string(path).expect("fixture");
    let mut config = PpConfig::default();
    if let Some(v) = text.lines().next().and_then(|l| l.strip_prefix("// std: ")).and_then(parse_std) {
        config.version = v.0;
    }
    let mut expected = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        if let Some((_, codes)) = line.split_once("// expect: ") {
            for code in codes.split(',') {
                expected.insert((i as u32 + 1, code.trim().to_string()));
            }
        }
    }
    let mut analysis = Analysis::new(msl_hir::RootDatabase::default());
    let file = analysis.set_file(path, text.clone().into());
    let unit = analysis.unit(file, config);
    let index = LineIndex::new(&text);
    let actual = analysis
        .diagnostics(unit, false)
        .into_iter()
        .map(|d| {
            assert_eq!(d.diagnostic.file, 0, "{}: a diagnostic outside the fixture: {d:?}", path.display());
            (index.line_col(d.diagnostic.range.start()).line + 1, d.diagnostic.code.to_string())
        })
        .collect();
    (expected, actual)
}

#[test]
fn every_rule_fails_and_passes_where_it_should() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/check");
    // `model/` holds the rules on the semantic model (kept apart from the files the
    // reparse fuzz test edits)
    let mut files: Vec<_> = [dir.clone(), dir.join("model")]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|x| x == "metal"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    let mut codes_covered = BTreeSet::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (expected, actual) = check_file(path);
        if name.ends_with("_pass.metal") {
            assert!(expected.is_empty(), "{name}: a passing fixture has expectations");
            let twin = path.with_file_name(name.replace("_pass", "_fail"));
            assert!(twin.exists(), "{name} has no failing twin");
        } else {
            assert!(!expected.is_empty(), "{name}: a failing fixture without expectations");
            codes_covered.extend(expected.iter().map(|(_, c)| c.clone()));
        }
        if expected != actual {
            failures.push(format!(
                "{name}:\n  missing: {:?}\n  unexpected: {:?}",
                expected.difference(&actual).collect::<Vec<_>>(),
                actual.difference(&expected).collect::<Vec<_>>()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // every checker code has a failing fixture
    for info in msl_hir::codes::CODES {
        assert!(codes_covered.contains(info.code), "no fixture fails with {}", info.code);
    }
}
