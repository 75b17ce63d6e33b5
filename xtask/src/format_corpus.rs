//! `cargo xtask corpus --format`: formats every corpus unit and checks, for each, that
//! (1) only whitespace changed (the text without whitespace outside string and character
//! literals is the same), (2) formatting the output again changes nothing, (3) the
//! checker reports the same diagnostics before and after; and counts (4) the lines longer
//! than the line width in the output.

use std::path::Path;
use std::time::Instant;

use msl_syntax::SyntaxKind;

use crate::corpus::{Unit, map_units};

#[derive(Default)]
struct Outcome {
    path: String,
    changed: bool,
    /// Why the formatter left the unit as it is.
    kept: Option<String>,
    not_whitespace_only: bool,
    not_idempotent: bool,
    diagnostics_differ: Option<String>,
    long_lines_before: usize,
    long_lines_after: usize,
    /// Of those, the lines kept text or a single long token makes long.
    long_lines_forced: usize,
    /// The other long lines, as written.
    long_others: Vec<String>,
    bytes: usize,
}

/// With `verbose`, the long lines the formatter could have broken are listed.
pub fn run(root: &Path, units: &[Unit], jobs: usize, verbose: bool) -> Result<u8, String> {
    let options = msl_fmt::Options::default();
    let start = Instant::now();
    let outcomes: Vec<Outcome> = map_units(units, jobs, |u| Some(format_unit(root, u, &options)));
    let elapsed = start.elapsed();
    let mut failed = 0usize;
    let mut shown = 0usize;
    let mut sorted: Vec<&Outcome> = outcomes.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    for o in &sorted {
        let mut problems = Vec::new();
        if o.not_whitespace_only {
            problems.push("changed more than whitespace".to_string());
        }
        if o.not_idempotent {
            problems.push("a second formatting changes it again".to_string());
        }
        if let Some(d) = &o.diagnostics_differ {
            problems.push(format!("the diagnostics changed: {d}"));
        }
        if let Some(k) = &o.kept {
            problems.push(format!("left as it is: {k}"));
        }
        if !problems.is_empty() {
            failed += 1;
            if shown < 30 {
                shown += 1;
                println!("FAIL {}: {}", o.path, problems.join("; "));
            }
        }
    }
    if verbose {
        for o in &sorted {
            for l in &o.long_others {
                println!("LONG {l}");
            }
        }
    }
    let changed = outcomes.iter().filter(|o| o.changed).count();
    let kept = outcomes.iter().filter(|o| o.kept.is_some()).count();
    let whitespace = outcomes.iter().filter(|o| !o.not_whitespace_only).count();
    let idempotent = outcomes.iter().filter(|o| !o.not_idempotent).count();
    let same_diags = outcomes.iter().filter(|o| o.diagnostics_differ.is_none()).count();
    let long_before: usize = outcomes.iter().map(|o| o.long_lines_before).sum();
    let long_after: usize = outcomes.iter().map(|o| o.long_lines_after).sum();
    let long_forced: usize = outcomes.iter().map(|o| o.long_lines_forced).sum();
    let bytes: usize = outcomes.iter().map(|o| o.bytes).sum();
    println!(
        "format: {} units ({changed} changed, {kept} left as they are), whitespace only {whitespace}, idempotent {idempotent}, same diagnostics {same_diags}; lines over {} columns: {long_before} before, {long_after} after, of which {long_forced} forced by kept text or a long token and {} others; {:.1} MB in {:.2} s",
        outcomes.len(),
        options.print.line_width,
        long_after - long_forced,
        bytes as f64 / 1e6,
        elapsed.as_secs_f64()
    );
    Ok(if failed == 0 { 0 } else { 1 })
}

fn format_unit(root: &Path, u: &Unit, options: &msl_fmt::Options) -> Outcome {
    let path = root.join(&u.path);
    let mut out = Outcome { path: u.path.clone(), ..Outcome::default() };
    let text = match std::fs::read(&path) {
        Ok(b) => match String::from_utf8(b) {
            Ok(t) => t,
            Err(_) => {
                out.kept = Some("not UTF-8".into());
                return out;
            }
        },
        Err(e) => {
            out.kept = Some(format!("cannot read: {e}"));
            return out;
        }
    };
    out.bytes = text.len();
    let width = options.print.line_width;
    out.long_lines_before = long_lines(&text, width);
    let mut analysis = msl_hir::Analysis::with_disk();
    let main = analysis.set_file(&path, text.clone().into());
    let unit = analysis.unit(main, u.config.clone());
    let before = diagnostics(&analysis, unit);
    let formatted = match msl_fmt::format_parse(&analysis.parse(unit), &text, options) {
        Ok(f) => f,
        Err(e) => {
            out.kept = Some(e.to_string());
            out.long_lines_after = out.long_lines_before;
            out.long_lines_forced = out.long_lines_before;
            return out;
        }
    };
    out.changed = formatted != text;
    out.not_whitespace_only = without_whitespace(&text) != without_whitespace(&formatted);
    analysis.set_file(&path, formatted.clone().into());
    let long = msl_fmt::long_lines(&analysis.parse(unit), &formatted, options);
    out.long_lines_after = long.total;
    out.long_lines_forced = long.forced;
    let lines: Vec<&str> = formatted.lines().collect();
    out.long_others =
        long.others.iter().filter_map(|&l| lines.get(l).map(|t| format!("{}:{}: {t}", u.path, l + 1))).collect();
    let after = diagnostics(&analysis, unit);
    if before != after {
        let first = after.iter().find(|d| !before.contains(d)).or_else(|| before.iter().find(|d| !after.contains(d)));
        out.diagnostics_differ = Some(first.cloned().unwrap_or_else(|| "their order".into()));
    }
    match msl_fmt::format_parse(&analysis.parse(unit), &formatted, options) {
        Ok(again) => out.not_idempotent = again != formatted,
        Err(_) => out.not_idempotent = true,
    }
    out
}

/// The unit's diagnostics as code, severity and message (places move with formatting).
fn diagnostics(analysis: &msl_hir::Analysis, unit: msl_hir::Unit) -> Vec<String> {
    let mut d: Vec<String> = analysis
        .diagnostics(unit, false)
        .into_iter()
        .map(|d| format!("{} {:?} {}", d.diagnostic.code, d.diagnostic.severity, d.diagnostic.message))
        .collect();
    d.sort();
    d
}

/// The text without whitespace, except inside string and character literals.
fn without_whitespace(text: &str) -> String {
    let (tokens, _) = msl_syntax::lexer::lex(text);
    let mut s = String::with_capacity(text.len());
    for t in tokens {
        let piece = &text[t.range()];
        if matches!(t.kind, SyntaxKind::STRING_LIT | SyntaxKind::CHAR_LIT) {
            s.push_str(piece);
        } else {
            s.extend(piece.chars().filter(|c| !c.is_whitespace()));
        }
    }
    s
}

fn long_lines(text: &str, width: usize) -> usize {
    text.lines().filter(|l| l.chars().count() > width).count()
}
