//! Folding ranges and selection ranges.

use msl_syntax::{SyntaxKind, TextRange, TextSize};

use crate::locate::FileCtx;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoldKind {
    /// Braces: bodies, struct members, initializer lists, parameter lists.
    Region,
    Comment,
    /// `#if` ... `#endif`.
    Preprocessor,
    /// A run of `#include`s.
    Imports,
}

/// A foldable range of lines, as byte offsets of its first and last characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fold {
    pub range: TextRange,
    pub kind: FoldKind,
}

pub(crate) fn folding_ranges(cx: &FileCtx) -> Vec<Fold> {
    let text = cx.text();
    let mut out = Vec::new();
    let spans_lines = |r: TextRange| text.get(std::ops::Range::<usize>::from(r)).is_some_and(|s| s.contains('\n'));
    // braces and lists
    for node in cx.root.descendants() {
        if !matches!(
            node.kind(),
            SyntaxKind::COMPOUND_STMT
                | SyntaxKind::MEMBER_LIST
                | SyntaxKind::ENUMERATOR_LIST
                | SyntaxKind::DECL_LIST
                | SyntaxKind::INIT_LIST
                | SyntaxKind::PARAM_LIST
                | SyntaxKind::ARG_LIST
        ) {
            continue;
        }
        let r = node.text_range();
        let Some(range) = cx.file_range(r) else { continue };
        // both ends spelled in the main file
        if cx.tree_offset(range.start()) != Some(r.start()) || !spans_lines(range) {
            continue;
        }
        let end_ok = range.end() > range.start() && cx.tree_offset(range.end() - TextSize::from(1)).is_some();
        if end_ok {
            out.push(Fold { range, kind: FoldKind::Region });
        }
    }
    // comment blocks: a block comment over several lines, or consecutive line comments
    let mut run: Option<(TextRange, u32)> = None;
    let line_of = |off: u32| text[..(off as usize).min(text.len())].matches('\n').count() as u32;
    let flush = |run: &mut Option<(TextRange, u32)>, out: &mut Vec<Fold>| {
        if let Some((r, count)) = run.take()
            && (count > 1 || spans_lines(r))
        {
            out.push(Fold { range: r, kind: FoldKind::Comment });
        }
    };
    let mut last_line = u32::MAX;
    let mut directive_stack: Vec<TextSize> = Vec::new();
    let mut include_run: Option<(TextRange, u32)> = None;
    for p in cx.parse.pieces_of_file(0).filter(|p| p.macro_call.is_none()) {
        match p.kind {
            SyntaxKind::COMMENT => {
                let line = line_of(p.range.start().into());
                let is_line_comment = p.text.starts_with("//");
                match &mut run {
                    Some((r, count)) if is_line_comment && line == last_line + 1 => {
                        *r = r.cover(p.range);
                        *count += 1;
                    }
                    _ => {
                        flush(&mut run, &mut out);
                        run = Some((p.range, 1));
                    }
                }
                last_line = line + p.text.matches('\n').count() as u32;
                if !is_line_comment {
                    flush(&mut run, &mut out);
                }
            }
            SyntaxKind::WHITESPACE | SyntaxKind::NEWLINE => {}
            _ => {
                flush(&mut run, &mut out);
            }
        }
        if p.kind == SyntaxKind::PP_DIRECTIVE {
            let t = p.text.trim_start_matches('#').trim_start();
            let word = t.split(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or("");
            match word {
                "if" | "ifdef" | "ifndef" => directive_stack.push(p.range.start()),
                "elif" | "else" | "elifdef" | "elifndef" | "endif" => {
                    // the branch that ends here folds up to the line before this directive
                    if let Some(start) = directive_stack.pop() {
                        let end = line_end_before(text, usize::from(p.range.start()));
                        if end > start && spans_lines(TextRange::new(start, end)) {
                            out.push(Fold { range: TextRange::new(start, end), kind: FoldKind::Preprocessor });
                        }
                    }
                    if word != "endif" {
                        directive_stack.push(p.range.start());
                    }
                }
                "include" | "import" => {
                    let line = line_of(p.range.start().into());
                    match &mut include_run {
                        Some((r, last)) if line == *last + 1 => {
                            *r = r.cover(p.range);
                            *last = line;
                        }
                        _ => {
                            if let Some((r, _)) = include_run.take()
                                && spans_lines(r)
                            {
                                out.push(Fold { range: r, kind: FoldKind::Imports });
                            }
                            include_run = Some((p.range, line));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    flush(&mut run, &mut out);
    if let Some((r, _)) = include_run
        && spans_lines(r)
    {
        out.push(Fold { range: r, kind: FoldKind::Imports });
    }
    out.sort_by_key(|f| (f.range.start(), f.range.end()));
    out.dedup();
    out
}

/// The end of the line before the one containing `at`.
fn line_end_before(text: &str, at: usize) -> TextSize {
    let line_start = text[..at.min(text.len())].rfind('\n').unwrap_or(0);
    TextSize::from(line_start as u32)
}

pub(crate) fn selection_ranges(cx: &FileCtx, offsets: &[TextSize]) -> Vec<Vec<TextRange>> {
    offsets
        .iter()
        .map(|&offset| {
            let mut out: Vec<TextRange> = Vec::new();
            let Some(tree) = cx.tree_offset(offset) else {
                return vec![TextRange::empty(offset)];
            };
            let Some(tok) = cx.root.token_at_offset(tree).right_biased() else { return vec![TextRange::empty(offset)] };
            let mut push = |r: TextRange| {
                if let Some(fr) = cx.file_range(r)
                    && fr.contains(offset) | (fr.end() == offset)
                    && out.last().is_none_or(|l| fr.contains_range(*l) && fr != *l)
                {
                    out.push(fr);
                }
            };
            push(tok.text_range());
            for a in tok.parent_ancestors() {
                push(a.text_range());
            }
            if out.is_empty() {
                out.push(TextRange::empty(offset));
            }
            out
        })
        .collect()
}
