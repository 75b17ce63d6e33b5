//! Code actions: the quick fixes of the diagnostics in a range.

use std::path::PathBuf;
use std::sync::Arc;

use msl_syntax::TextRange;

use crate::locate::FileCtx;

/// Replacements in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdit {
    pub path: PathBuf,
    /// The file's text, so that callers can convert offsets of files they have not opened.
    pub text: Arc<str>,
    pub edits: Vec<(TextRange, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeAction {
    pub title: String,
    /// The diagnostic it fixes: its code, range and message (to match the client's).
    pub fixes: Option<(&'static str, TextRange, String)>,
    pub edits: Vec<FileEdit>,
    /// The first fix of a diagnostic: what an editor applies for "fix this".
    pub preferred: bool,
}

pub(crate) fn code_actions(cx: &FileCtx, range: TextRange) -> Vec<CodeAction> {
    let mut out = Vec::new();
    for d in crate::diagnostics::file_diagnostics(cx) {
        let touches =
            d.range.intersect(range).is_some() || d.range.contains_range(range) || range.contains_range(d.range);
        if !touches || d.fixes.is_empty() {
            continue;
        }
        for (i, (label, edits)) in d.fixes.iter().enumerate() {
            out.push(CodeAction {
                title: label.clone(),
                fixes: Some((d.code, d.range, d.message.clone())),
                edits: edits.clone(),
                preferred: i == 0,
            });
        }
    }
    out
}
