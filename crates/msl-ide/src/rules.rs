//! Rule levels (from `msl.toml` and `--rule`) and inline suppressions.

use msl_syntax::{Severity, SyntaxKind, lexer};
use rustc_hash::FxHashMap;

/// What to do with a diagnostic code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Off,
}

impl Level {
    pub fn parse(s: &str) -> Option<Level> {
        match s.trim().to_ascii_lowercase().as_str() {
            "error" | "deny" => Some(Level::Error),
            "warning" | "warn" => Some(Level::Warning),
            "off" | "allow" | "ignore" => Some(Level::Off),
            _ => None,
        }
    }
}

/// Levels by code; codes not listed keep their own severity.
#[derive(Debug, Clone, Default)]
pub struct RuleLevels {
    levels: FxHashMap<String, Level>,
}

impl RuleLevels {
    pub fn set(&mut self, code: &str, level: Level) {
        self.levels.insert(code.trim().to_ascii_uppercase(), level);
    }

    /// The severity to report `code` with, or `None` to drop it.
    pub fn apply(&self, code: &str, severity: Severity) -> Option<Severity> {
        match self.levels.get(code) {
            None => Some(severity),
            Some(Level::Off) => None,
            Some(Level::Error) => Some(Severity::Error),
            Some(Level::Warning) => Some(Severity::Warning),
        }
    }
}

/// Suppression comments in one file.
///
/// - `// msl-check-ignore: E0100, W0030 -- reason` silences those codes on the next line
///   when the comment stands alone on its line, or on its own line after code.
/// - `// msl-check-ignore-file: W0030 -- reason` silences them in the whole file.
/// - `all` stands for every code.
#[derive(Debug, Default)]
pub struct Suppressions {
    /// (0-based line, codes)
    lines: Vec<(u32, Vec<String>)>,
    file: Vec<String>,
    /// Comments without a reason: (byte offset, length).
    pub missing_reason: Vec<(u32, u32)>,
}

impl Suppressions {
    pub fn scan(text: &str) -> Suppressions {
        let mut s = Suppressions::default();
        if !text.contains("msl-check-ignore") {
            return s;
        }
        let (tokens, _) = lexer::lex(text);
        let line_starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        let line_of = |off: usize| line_starts.partition_point(|&l| l <= off) - 1;
        for (i, tok) in tokens.iter().enumerate() {
            if tok.kind != SyntaxKind::COMMENT {
                continue;
            }
            let raw = &text[tok.start as usize..tok.end() as usize];
            let body = raw.trim_start_matches("//").trim_start_matches("/*").trim_end_matches("*/").trim();
            let (file_wide, rest) = if let Some(r) = body.strip_prefix("msl-check-ignore-file:") {
                (true, r)
            } else if let Some(r) = body.strip_prefix("msl-check-ignore:") {
                (false, r)
            } else {
                continue;
            };
            let (codes_part, reason) = match rest.split_once("--") {
                Some((c, r)) => (c, r.trim()),
                None => (rest, ""),
            };
            let codes: Vec<String> =
                codes_part.split([',', ' ']).map(|c| c.trim().to_ascii_uppercase()).filter(|c| !c.is_empty()).collect();
            if codes.is_empty() {
                continue;
            }
            if reason.is_empty() {
                s.missing_reason.push((tok.start, tok.len));
            }
            if file_wide {
                s.file.extend(codes);
                continue;
            }
            let line = line_of(tok.start as usize);
            let standalone = text[line_starts[line]..tok.start as usize].trim().is_empty();
            let target = if standalone {
                // the next line holding something other than whitespace or comments
                tokens[i + 1..]
                    .iter()
                    .find(|t| !matches!(t.kind, SyntaxKind::WHITESPACE | SyntaxKind::NEWLINE | SyntaxKind::COMMENT))
                    .map(|t| line_of(t.start as usize))
                    .unwrap_or(line + 1)
            } else {
                line
            };
            s.lines.push((target as u32, codes));
        }
        s
    }

    /// Whether a diagnostic with `code` starting on `line` (0-based) is silenced.
    pub fn covers(&self, code: &str, line: u32) -> bool {
        let matches = |codes: &Vec<String>| codes.iter().any(|c| c == "ALL" || c == code);
        matches(&self.file) || self.lines.iter().any(|(l, codes)| *l == line && matches(codes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suppression_comments() {
        let text = "// msl-check-ignore-file: W0030 -- framework header\n\
                    int a; // msl-check-ignore: E0100 -- same line\n\
                    // msl-check-ignore: E0001, E0022\n\
                    \n\
                    int b;\n\
                    /* msl-check-ignore: all -- block comment */ int c;\n";
        let s = Suppressions::scan(text);
        assert!(s.covers("W0030", 40));
        assert!(s.covers("E0100", 1));
        assert!(!s.covers("E0100", 2));
        assert!(s.covers("E0022", 4), "a standalone comment covers the next code line");
        assert!(!s.covers("E0022", 3));
        assert!(s.covers("E9999", 5));
        assert_eq!(s.missing_reason.len(), 1);
    }

    #[test]
    fn levels() {
        let mut r = RuleLevels::default();
        r.set("w0030", Level::Error);
        r.set("E0100", Level::Off);
        assert_eq!(r.apply("W0030", Severity::Warning), Some(Severity::Error));
        assert_eq!(r.apply("E0100", Severity::Error), None);
        assert_eq!(r.apply("E0001", Severity::Error), Some(Severity::Error));
        assert_eq!(Level::parse("allow"), Some(Level::Off));
        assert_eq!(Level::parse("loud"), None);
    }
}
