//! The expansion of the macro invocation at a place, laid out for reading: what the
//! compiler sees in its place, after every macro inside it is expanded too.

use msl_syntax::{TextRange, TextSize};

use crate::locate::FileCtx;

/// A macro invocation and the code it expands to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MacroExpansion {
    pub name: String,
    /// The invocation in the file.
    pub range: TextRange,
    /// The expansion, one statement or brace per line.
    pub expansion: String,
}

/// At most this many tokens are laid out (a macro can expand to a whole kernel).
const MAX_TOKENS: usize = 100_000;

pub(crate) fn expand_macro(cx: &FileCtx, offset: TextSize) -> Option<MacroExpansion> {
    // the innermost invocation written in the file around the offset
    let (call, c) = cx
        .parse
        .macro_calls()
        .iter()
        .enumerate()
        .filter(|(_, c)| c.file == cx.focus && c.range.contains_inclusive(offset))
        .min_by_key(|(_, c)| c.range.len())?;
    let name = cx.parse.macros().get(c.def as usize)?.name.to_string();
    let tokens = cx.parse.macro_expansion(call as u32, MAX_TOKENS);
    Some(MacroExpansion { name, range: c.range, expansion: layout(&tokens) })
}

/// Tokens as lines: a line ends after `;` (outside parentheses), `{` and `}`, and a
/// block's lines are indented by four spaces.
fn layout(tokens: &[&str]) -> String {
    let mut out = String::new();
    let mut line: Vec<&str> = Vec::new();
    let mut depth = 0usize;
    let mut parens = 0usize;
    let flush = |line: &mut Vec<&str>, out: &mut String, depth: usize| {
        if !line.is_empty() {
            out.push_str(&"    ".repeat(depth));
            out.push_str(&crate::locate::join_tokens(line.iter().copied()));
            out.push('\n');
            line.clear();
        }
    };
    for &t in tokens {
        match t {
            "(" | "[" => {
                parens += 1;
                line.push(t);
            }
            ")" | "]" => {
                parens = parens.saturating_sub(1);
                line.push(t);
            }
            "{" if parens == 0 => {
                line.push(t);
                flush(&mut line, &mut out, depth);
                depth += 1;
            }
            "}" if parens == 0 => {
                flush(&mut line, &mut out, depth);
                depth = depth.saturating_sub(1);
                line.push(t);
            }
            ";" if parens == 0 => {
                line.push(t);
                flush(&mut line, &mut out, depth);
            }
            _ => {
                if line.last() == Some(&"}") {
                    flush(&mut line, &mut out, depth);
                }
                line.push(t);
            }
        }
    }
    flush(&mut line, &mut out, depth);
    out
}

#[cfg(test)]
mod tests {
    use super::layout;

    #[test]
    fn statements_and_blocks_take_a_line_each() {
        let tokens = ["if", "(", "x", ")", "{", "a", "=", "f", "(", "b", ";", ")", ";", "b", "++", ";", "}", "c", ";"];
        assert_eq!(layout(&tokens), "if(x) {\n    a = f(b;);\n    b ++;\n}\nc;\n");
    }
}
