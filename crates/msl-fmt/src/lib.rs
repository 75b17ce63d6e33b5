//! msl-fmt: formats Metal Shading Language sources, changing nothing but layout.
//!
//! [`format_text`] parses a file, lays its main-file tokens out (see [`format`]) and
//! checks the result before returning it: the output must read as the same tokens,
//! comments and directives as the input (whitespace aside). When it does not, the file is
//! left as it is and the error names the first place where the two differ.

pub mod config;
mod doc;
mod format;

pub use config::{FormatConfig, OptionsFinder, Source};
pub use doc::PrintOptions;
pub use format::{LongLines, ShortFunctions, Style};

use msl_syntax::{Parse, PpConfig, SyntaxKind};

/// Everything that decides the layout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    pub print: PrintOptions,
    pub style: Style,
}

/// Why a file was left as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    /// Byte offset in the input.
    pub offset: usize,
    pub message: String,
}

impl std::fmt::Display for FormatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

/// Formats `text`, parsed on its own (includes that do not resolve are left unread).
pub fn format_text(text: &str, options: &Options) -> Result<String, FormatError> {
    let parse = msl_syntax::parse_text(text, &PpConfig::default());
    format_parse(&parse, text, options)
}

/// Formats the main file of `parse`, whose text is `text`.
pub fn format_parse(parse: &Parse, text: &str, options: &Options) -> Result<String, FormatError> {
    format_with_edits(parse, text, options).map(|(out, _)| out)
}

/// An edit of a text: a byte range and what replaces it.
pub type Edit = (std::ops::Range<usize>, String);

/// [`format_parse`], with the edits that turn `text` into the result: one per gap
/// between tokens that changed, in order (a comment whose trailing spaces went is
/// replaced whole).
pub fn format_with_edits(parse: &Parse, text: &str, options: &Options) -> Result<(String, Vec<Edit>), FormatError> {
    let doc = format::document(parse, text, &options.style);
    let out = doc::print(&doc, &options.print);
    let edits = compare(text, &out)?;
    Ok((out, edits))
}

/// The lines of the main file of `parse` (whose text is `text`) longer than the line width,
/// and how many of them text kept as written or a single long token makes long.
pub fn long_lines(parse: &Parse, text: &str, options: &Options) -> LongLines {
    format::long_lines(parse, text, &options.print)
}

/// The edits of [`format_with_edits`] joined into one per run of touched lines (lines
/// next to each other joined): each replaces the part of those lines that changes, from
/// the first byte that differs to the last, with what it becomes. An editor applies a few
/// thousand of these faster than tens of thousands of small ones, and they carry the same
/// result.
pub fn line_edits(input: &str, edits: &[Edit]) -> Vec<Edit> {
    let line_start = |at: usize| input[..at].rfind('\n').map_or(0, |n| n + 1);
    let line_end = |at: usize| input[at..].find('\n').map_or(input.len(), |n| at + n + 1);
    let mut out: Vec<Edit> = Vec::new();
    let mut i = 0;
    while i < edits.len() {
        let start = line_start(edits[i].0.start);
        let mut end = line_end(edits[i].0.end.max(start));
        let mut text = String::new();
        let mut at = start;
        // the edits on the lines of the run, and on the line right after it
        while let Some((range, new)) = edits.get(i).filter(|(r, _)| line_start(r.start) <= end) {
            text.push_str(&input[at..range.start]);
            text.push_str(new);
            at = range.end;
            end = end.max(line_end(range.end));
            i += 1;
        }
        text.push_str(&input[at..end]);
        // what stays the same at both ends is left out
        let old = &input[start..end];
        let mut head = old.bytes().zip(text.bytes()).take_while(|(a, b)| a == b).count();
        while !old.is_char_boundary(head) {
            head -= 1;
        }
        let room = old.len().min(text.len()) - head;
        let mut tail = old.bytes().rev().zip(text.bytes().rev()).take(room).take_while(|(a, b)| a == b).count();
        while !old.is_char_boundary(old.len() - tail) {
            tail -= 1;
        }
        text.truncate(text.len() - tail);
        text.drain(..head);
        out.push((start + head..end - tail, text));
    }
    out
}

/// Checks that `output` is `input` with other whitespace: the same tokens (comments
/// included), each with the same text.
pub fn verify(input: &str, output: &str) -> Result<(), FormatError> {
    compare(input, output).map(|_| ())
}

/// The edits that turn `input` into `output` when the two read as the same tokens (a
/// comment may lose trailing spaces); otherwise where they first differ.
fn compare(input: &str, output: &str) -> Result<Vec<Edit>, FormatError> {
    let significant = |t: &msl_syntax::lexer::Token| !matches!(t.kind, SyntaxKind::WHITESPACE | SyntaxKind::NEWLINE);
    let mut a = msl_syntax::lexer::tokens(input).filter(significant);
    let mut b = msl_syntax::lexer::tokens(output).filter(significant);
    let mut edits = Vec::new();
    let (mut ia, mut ib) = (0usize, 0usize);
    loop {
        match (a.next(), b.next()) {
            (None, None) => break,
            (Some(x), Some(y)) => {
                let (xs, xe) = (x.start as usize, (x.start + x.len) as usize);
                let (ys, ye) = (y.start as usize, (y.start + y.len) as usize);
                let (tx, ty) = (&input[xs..xe], &output[ys..ye]);
                let same =
                    x.kind == y.kind && (tx == ty || x.kind == SyntaxKind::COMMENT && tx.trim_end() == ty.trim_end());
                if !same {
                    return Err(FormatError {
                        offset: xs,
                        message: format!("formatting would change `{tx}` into `{ty}`; the file is left as it is"),
                    });
                }
                if input[ia..xs] != output[ib..ys] {
                    edits.push((ia..xs, output[ib..ys].to_string()));
                }
                if tx != ty {
                    edits.push((xs..xe, ty.to_string()));
                }
                ia = xe;
                ib = ye;
            }
            (Some(x), None) => {
                return Err(FormatError {
                    offset: x.start as usize,
                    message: "formatting would drop text here; the file is left as it is".into(),
                });
            }
            (None, Some(_)) => {
                return Err(FormatError {
                    offset: input.len(),
                    message: "formatting would add text at the end; the file is left as it is".into(),
                });
            }
        }
    }
    if input[ia..] != output[ib..] {
        edits.push((ia..input.len(), output[ib..].to_string()));
    }
    Ok(edits)
}
