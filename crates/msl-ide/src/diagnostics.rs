//! The diagnostics of an open file: its own problems after rule levels and suppression
//! comments, errors of the headers it includes (at the `#include`), and inactive
//! preprocessor regions.

use std::path::PathBuf;
use std::sync::Arc;

use msl_syntax::{Severity, SyntaxKind, TextRange};

use crate::actions::FileEdit;
use crate::locate::FileCtx;
use crate::rules::Suppressions;

/// A diagnostic of the open file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiagnostic {
    pub range: TextRange,
    /// `None` for hints (inactive regions).
    pub severity: Option<Severity>,
    pub code: &'static str,
    pub message: String,
    pub hint: Option<String>,
    /// The region is unused (inactive `#if` branches): editors grey it out.
    pub unnecessary: bool,
    pub related: Vec<Related>,
    /// Quick fixes: a label and the edits.
    pub fixes: Vec<(String, Vec<FileEdit>)>,
}

/// A place related to a diagnostic (the real location of an error in a header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub path: PathBuf,
    pub range: TextRange,
    pub message: String,
    pub text: Arc<str>,
}

pub(crate) const INACTIVE_CODE: &str = "inactive";

pub(crate) fn file_diagnostics(cx: &FileCtx) -> Vec<FileDiagnostic> {
    let text = cx.text();
    let suppressions = Suppressions::scan(text);
    let line_starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let line_of = |off: usize| (line_starts.partition_point(|&l| l <= off).saturating_sub(1)) as u32;
    let rules = &cx.settings.rules;
    let includes = cx.parse.includes();
    let mut out = Vec::new();
    // the include directive of the main file through which each file was reached
    let mut reached_by: Vec<Option<usize>> = vec![None; cx.parse.files().len()];
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 64 {
        changed = false;
        rounds += 1;
        for (i, inc) in includes.iter().enumerate() {
            let Some(t) = inc.target else { continue };
            let via = if inc.file == cx.focus { Some(i) } else { reached_by.get(inc.file as usize).copied().flatten() };
            if let Some(v) = via
                && reached_by.get(t as usize).is_some_and(|r| r.is_none())
                && t != cx.focus
            {
                reached_by[t as usize] = Some(v);
                changed = true;
            }
        }
    }
    let mut header_errors: Vec<usize> = vec![0; includes.len()];
    for d in msl_hir::unit_diagnostics(cx.db, cx.unit, false) {
        let diag = d.diagnostic;
        let Some(severity) = rules.apply(diag.code, diag.severity) else { continue };
        if diag.file != cx.focus {
            // an error in a header: once per include directive, with the place as related
            if severity != Severity::Error {
                continue;
            }
            let Some(Some(via)) = reached_by.get(diag.file as usize) else { continue };
            header_errors[*via] += 1;
            if header_errors[*via] > 1 {
                continue;
            }
            let inc = &includes[*via];
            let header = cx.path_of(diag.file);
            let shown = header.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            out.push(FileDiagnostic {
                range: inc.range,
                severity: Some(Severity::Error),
                code: diag.code,
                message: format!("in included file `{shown}`: {}", diag.message),
                hint: None,
                unnecessary: false,
                related: vec![Related {
                    path: header,
                    range: diag.range,
                    message: diag.message.clone(),
                    text: cx.text_of(diag.file),
                }],
                fixes: Vec::new(),
            });
            continue;
        }
        if suppressions.covers(diag.code, line_of(usize::from(diag.range.start()))) {
            continue;
        }
        let fixes = d
            .fixes
            .into_iter()
            .map(|f| {
                let mut edits: Vec<FileEdit> = Vec::new();
                for (file, range, new_text) in f.edits {
                    match edits.iter_mut().find(|e| e.path == cx.path_of(file)) {
                        Some(e) => e.edits.push((range, new_text)),
                        None => edits.push(FileEdit {
                            path: cx.path_of(file),
                            text: cx.text_of(file),
                            edits: vec![(range, new_text)],
                        }),
                    }
                }
                (f.label, edits)
            })
            .collect();
        out.push(FileDiagnostic {
            range: diag.range,
            severity: Some(severity),
            code: diag.code,
            message: diag.message,
            hint: d.hint,
            unnecessary: false,
            related: d
                .related
                .into_iter()
                .map(|(file, range, message)| Related {
                    path: cx.path_of(file),
                    range,
                    message,
                    text: cx.text_of(file),
                })
                .collect(),
            fixes,
        });
    }
    // count the further errors of each header in its message
    for d in &mut out {
        if let Some(i) =
            includes.iter().position(|inc| inc.file == cx.focus && inc.range == d.range && !d.related.is_empty())
            && header_errors[i] > 1
        {
            d.message.push_str(&format!(" (and {} more)", header_errors[i] - 1));
        }
    }
    for p in cx.parse.pieces_of_file(cx.focus).filter(|p| p.kind == SyntaxKind::PP_INACTIVE) {
        out.push(FileDiagnostic {
            range: p.range,
            severity: None,
            code: INACTIVE_CODE,
            message: "inactive preprocessor branch: its condition is false with the current configuration".into(),
            hint: None,
            unnecessary: true,
            related: Vec::new(),
            fixes: Vec::new(),
        });
    }
    out
}
