//! Document links: the file each `#include` and `#import` of a file names, on the
//! quoted or bracketed name, for the files found on disk (the library's headers are built
//! in and have no file to open).

use std::path::PathBuf;

use msl_syntax::{TextRange, TextSize};

use crate::locate::FileCtx;

/// A range of the file that names another file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentLink {
    pub range: TextRange,
    pub target: PathBuf,
}

pub(crate) fn document_links(cx: &FileCtx) -> Vec<DocumentLink> {
    let text = cx.text();
    let files = cx.parse.files();
    let mut out = Vec::new();
    for inc in cx.parse.includes().iter().filter(|i| i.file == cx.focus) {
        let Some(target) = inc.target.and_then(|t| files.get(t as usize)) else { continue };
        if target.is_virtual {
            continue;
        }
        let Some(directive) = text.get(std::ops::Range::<usize>::from(inc.range)) else { continue };
        let (open, close) = if inc.angled { ('<', '>') } else { ('"', '"') };
        let Some(start) = directive.find(open) else { continue };
        let Some(len) = directive[start + 1..].find(close) else { continue };
        let from = inc.range.start() + TextSize::from((start + 1) as u32);
        out.push(DocumentLink { range: TextRange::at(from, TextSize::from(len as u32)), target: target.path.clone() });
    }
    out
}
