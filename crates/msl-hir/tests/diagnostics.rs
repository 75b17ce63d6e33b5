//! Realistic programs with one mistake each (`fixtures/diagnostics/fail/`, the mistake's
//! line ends with `// error`, the first line cites the rule) and tricky valid programs
//! (`fixtures/diagnostics/valid/`). Prints, per family (the file name's prefix), how many
//! mistakes are reported as an error on their line, and how many valid programs get an
//! error. The floors below are the measured figures: a change that reports fewer mistakes,
//! or reports an error in a valid program, fails.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use msl_hir::Analysis;
use msl_syntax::{LineIndex, Severity};

/// Mistakes that must be reported on their line, in percent (measured, rounded down).
const REPORTED_FLOOR: f64 = 97.0;

fn errors_by_line(path: &Path, text: &str) -> Vec<(u32, String)> {
    let mut analysis = Analysis::new(msl_hir::RootDatabase::default());
    let file = analysis.set_file(path, text.into());
    let unit = analysis.unit(file, Default::default());
    let index = LineIndex::new(text);
    analysis
        .diagnostics(unit, false)
        .into_iter()
        .filter(|d| d.diagnostic.severity == Severity::Error && d.diagnostic.file == 0)
        .map(|d| {
            (
                index.line_col(d.diagnostic.range.start()).line + 1,
                format!("{} {}", d.diagnostic.code, d.diagnostic.message),
            )
        })
        .collect()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "metal")).collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn family(path: &Path) -> String {
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    name.split('_').next().unwrap_or_default().to_string()
}

#[test]
fn single_mistakes_are_reported_on_their_line_and_valid_programs_are_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/diagnostics");
    // family -> (programs, reported)
    let mut tally: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut missed = Vec::new();
    for path in files(&root.join("fail")) {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("// rule:"), "{}: the first line cites the rule", path.display());
        let marked: Vec<u32> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim_end().ends_with("// error"))
            .map(|(i, _)| i as u32 + 1)
            .collect();
        assert_eq!(marked.len(), 1, "{}: exactly one line is marked `// error`", path.display());
        let errors = errors_by_line(&path, &text);
        let hit = errors.iter().any(|(l, _)| *l == marked[0]);
        let e = tally.entry(family(&path)).or_default();
        e.0 += 1;
        if hit {
            e.1 += 1;
        } else {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let line = text.lines().nth(marked[0] as usize - 1).unwrap_or_default().trim().to_string();
            missed.push(format!("{name}:{}: {line}", marked[0]));
        }
    }
    let mut false_errors = Vec::new();
    let mut valid = 0;
    for path in files(&root.join("valid")) {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("// valid:"), "{}: the first line says what it exercises", path.display());
        valid += 1;
        for (line, message) in errors_by_line(&path, &text) {
            false_errors.push(format!("{}:{line}: {message}", path.file_name().unwrap().to_string_lossy()));
        }
    }
    let (programs, reported) = tally.values().fold((0, 0), |a, v| (a.0 + v.0, a.1 + v.1));
    for (f, (n, r)) in &tally {
        println!("{f:<12} {r:>4} of {n:>4} reported on their line");
    }
    for m in &missed {
        println!("missed: {m}");
    }
    let rate = 100.0 * reported as f64 / programs.max(1) as f64;
    println!(
        "single mistakes: {reported} of {programs} reported on their line ({rate:.1}%); valid programs: {} errors in {valid}",
        false_errors.len()
    );
    assert!(false_errors.is_empty(), "errors in valid programs:\n{}", false_errors.join("\n"));
    assert!(rate >= REPORTED_FLOOR, "{rate:.1}% of the mistakes reported, below the floor of {REPORTED_FLOOR}%");
}
