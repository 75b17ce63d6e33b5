//! msl-fmt: formats Metal Shading Language sources, changing nothing but layout.
//!
//! [`format_text`] parses a file, lays its main-file tokens out (see [`format`]) and
//! checks the result before returning it: the output must read as the same tokens,
//! comments and directives as the input (whitespace aside). When it does not, the file is
//! left as it is and the error names the first place where the two differ.

mod doc;
mod format;

pub use doc::PrintOptions;
pub use format::Style;

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
    let doc = format::document(parse, &options.style);
    let out = doc::print(&doc, &options.print);
    verify(text, &out)?;
    Ok(out)
}

/// Checks that `output` is `input` with other whitespace: the same tokens (comments
/// included), each with the same text.
pub fn verify(input: &str, output: &str) -> Result<(), FormatError> {
    let (a, _) = msl_syntax::lexer::lex(input);
    let (b, _) = msl_syntax::lexer::lex(output);
    let significant = |t: &&msl_syntax::lexer::Token| !matches!(t.kind, SyntaxKind::WHITESPACE | SyntaxKind::NEWLINE);
    let mut a = a.iter().filter(significant);
    let mut b = b.iter().filter(significant);
    loop {
        match (a.next(), b.next()) {
            (None, None) => return Ok(()),
            (Some(x), Some(y)) => {
                let tx = &input[x.range()];
                let ty = &output[y.range()];
                let same =
                    x.kind == y.kind && (tx == ty || x.kind == SyntaxKind::COMMENT && tx.trim_end() == ty.trim_end());
                if !same {
                    return Err(FormatError {
                        offset: x.start as usize,
                        message: format!("formatting would change `{tx}` into `{ty}`; the file is left as it is"),
                    });
                }
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
}
