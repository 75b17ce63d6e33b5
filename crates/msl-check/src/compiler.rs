//! `--compiler`, `--emit-air` and `--version --verbose`: Apple's compiler beside our
//! own checks, where it exists.

use std::path::{Path, PathBuf};
use std::time::Duration;

use msl_compiler::{Compiler, Discover, Discovery, Job, RunError, Severity as CSeverity};
use msl_syntax::line_index::char_col;
use msl_syntax::{Platform, PpConfig, Severity};
use rustc_hash::FxHashMap;

use crate::output::Finding;

/// What `--compiler` asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    Off,
    Auto,
    Path(PathBuf),
}

impl Choice {
    pub fn parse(s: &str) -> Choice {
        match s {
            "off" | "none" | "" => Choice::Off,
            "auto" => Choice::Auto,
            p => Choice::Path(PathBuf::from(p)),
        }
    }
}

/// How long one compiler run may take.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// Discovery for a choice (`Off` asks nothing).
pub fn discover(choice: &Choice, platform: Platform) -> Discovery {
    match choice {
        Choice::Off => Discovery::default(),
        Choice::Auto => Discover::from_env(None, platform).run(),
        Choice::Path(p) => Discover::from_env(Some(p.clone()), platform).run(),
    }
}

/// The lines `--version --verbose` prints about the compiler.
pub fn describe(d: &Discovery) -> Vec<String> {
    let mut lines = Vec::new();
    match &d.compiler {
        Some(c) => lines.push(format!("Metal compiler: {}", c.describe())),
        None => lines.push("Metal compiler: none found".to_string()),
    }
    if !d.tried.is_empty() {
        lines.push(format!("  looked at: {}", d.tried.join("; ")));
    }
    if let Some(p) = &d.problem {
        lines.push(format!("  problem: {p}"));
    }
    lines
}

/// Runs the compiler on one file; its diagnostics as findings. `text` is the file's
/// content when it does not come from the disk (standard input).
pub fn check_file(
    compiler: &Compiler,
    path: &Path,
    text: Option<&str>,
    pp: &PpConfig,
    display: &dyn Fn(&Path) -> String,
) -> Result<Vec<Finding>, RunError> {
    let job =
        Job { main: path, main_text: text, unsaved: &[], config: pp, timeout: TIMEOUT, cancel: None, temp_dir: None };
    let checked = msl_compiler::check(compiler, &job)?;
    Ok(findings(&checked.diagnostics, display))
}

/// Compiler diagnostics as findings: code `metal` (or the warning option), notes as the hint.
pub fn findings(diagnostics: &[msl_compiler::Diagnostic], display: &dyn Fn(&Path) -> String) -> Vec<Finding> {
    // each file is read once, however many diagnostics it has
    let mut texts: FxHashMap<PathBuf, String> = FxHashMap::default();
    let mut out = Vec::new();
    for d in diagnostics {
        let severity = match d.severity {
            CSeverity::Error => Severity::Error,
            CSeverity::Warning => Severity::Warning,
            CSeverity::Remark | CSeverity::Note => Severity::Note,
        };
        let text = texts.entry(d.path.clone()).or_insert_with(|| std::fs::read_to_string(&d.path).unwrap_or_default());
        let line = |n: u32| text.lines().nth(n.saturating_sub(1) as usize).unwrap_or("").to_string();
        let line_text = line(d.line);
        let col = d.at.map_or(1, |a| a.column);
        let (end_line, end_col) = match &d.range {
            Some(r) => (r.end.line, r.end.column),
            None => (d.line, col + 1),
        };
        let end_text = if end_line == d.line { line_text.clone() } else { line(end_line) };
        let mut hints: Vec<String> = d
            .notes
            .iter()
            .map(|n| match n.at {
                Some(at) => format!("{} ({}:{}:{})", n.message, display(&n.path), at.line, at.column),
                None => format!("{} ({}:{})", n.message, display(&n.path), n.line),
            })
            .collect();
        for f in &d.fixits {
            hints.push(if f.text.is_empty() {
                format!("remove {}:{}-{}", f.span.start.line, f.span.start.column, f.span.end.column)
            } else {
                format!("replace with `{}`", f.text)
            });
        }
        out.push(Finding {
            path: display(&d.path),
            line: d.line,
            column: char_col(&line_text, col.saturating_sub(1)) + 1,
            end_line,
            end_column: char_col(&end_text, end_col.saturating_sub(1)) + 1,
            severity,
            code: d.option.clone().map_or_else(|| "metal".to_string(), |o| format!("metal{o}")),
            message: d.message.clone(),
            hint: (!hints.is_empty()).then(|| hints.join("; ")),
            line_text,
            related: Vec::new(),
        });
    }
    out
}

/// Drops the compiler's findings that say what one of ours says at the same place.
pub fn merge(ours: &mut Vec<Finding>, theirs: Vec<Finding>) {
    let same_place = |a: &Finding, b: &Finding| {
        a.path == b.path
            && a.line == b.line
            && a.severity == b.severity
            && a.column <= b.end_column.max(b.column + 1)
            && b.column <= a.end_column.max(a.column + 1)
            && msl_compiler::same_problem(&a.message, &b.message)
    };
    let kept: Vec<Finding> = theirs.into_iter().filter(|t| !ours.iter().any(|o| same_place(o, t))).collect();
    ours.extend(kept);
    ours.sort_by(|a, b| (a.path.as_str(), a.line, a.column).cmp(&(b.path.as_str(), b.line, b.column)));
}
