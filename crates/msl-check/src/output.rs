//! Output formats: human, JSON, SARIF 2.1.0 and GitHub workflow commands.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use msl_hir::code_info;
use msl_syntax::Severity;
use serde_json::{Value, json};

/// A diagnostic ready to print: positions are 1-based, columns count characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The path as shown (relative to the working directory when possible).
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub severity: Severity,
    pub code: String,
    pub message: String,
    /// How to fix it, when the check knows.
    pub hint: Option<String>,
    /// The source line, for the human format.
    pub line_text: String,
    /// Other places that explain it (where a template was instantiated, say).
    pub related: Vec<RelatedPlace>,
}

/// A place related to a finding, with what it has to do with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelatedPlace {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

pub fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// Human output: `path:line:col: severity[code]: message`, the line, a caret underline.
pub fn human(out: &mut impl Write, f: &Finding, color: bool) -> std::io::Result<()> {
    let (sev_color, bold, reset, blue) = if color {
        let c = match f.severity {
            Severity::Error => "\x1b[1;31m",
            Severity::Warning => "\x1b[1;33m",
            Severity::Note => "\x1b[1;36m",
        };
        (c, "\x1b[1m", "\x1b[0m", "\x1b[1;34m")
    } else {
        ("", "", "", "")
    };
    writeln!(
        out,
        "{bold}{}:{}:{}:{reset} {sev_color}{}[{}]{reset}{bold}: {}{reset}",
        f.path,
        f.line,
        f.column,
        severity_name(f.severity),
        f.code,
        f.message
    )?;
    let gutter = f.line.to_string().len();
    let col = (f.column as usize).saturating_sub(1);
    let width = if f.end_line == f.line { (f.end_column.saturating_sub(f.column)).max(1) as usize } else { 1 };
    let (shown, pad, width) = excerpt(&f.line_text, col, width);
    writeln!(out, "{blue}{:>gutter$} |{reset}", "")?;
    writeln!(out, "{blue}{} |{reset} {}", f.line, shown)?;
    writeln!(out, "{blue}{:>gutter$} |{reset} {}{sev_color}{}{reset}", "", " ".repeat(pad), "^".repeat(width))?;
    for r in &f.related {
        writeln!(out, "{blue}{:>gutter$} = {reset}note: {}:{}:{}: {}", "", r.path, r.line, r.column, r.message)?;
    }
    if let Some(hint) = &f.hint {
        writeln!(out, "{blue}{:>gutter$} = {reset}help: {hint}", "")?;
    }
    if let Some(info) = code_info(&f.code) {
        writeln!(out, "{blue}{:>gutter$} = {reset}help: {} (see `msl-check --explain {}`)", "", info.summary, f.code)?;
    }
    writeln!(out)
}

/// How many characters of a source line are shown under a finding.
const SHOWN: usize = 120;

/// The part of a source line shown under a finding, with tabs as spaces, and where the
/// carets go in it: a column (in characters) and a width. A line longer than [`SHOWN`]
/// (minified or generated code, or not source at all) is cut to a window that starts a
/// little before the column, with `...` where text was left out, so that thousands of
/// findings on one long line print thousands of short lines.
fn excerpt(line: &str, col: usize, width: usize) -> (String, usize, usize) {
    let len = line.chars().count();
    let (from, to) = if len <= SHOWN {
        (0, len)
    } else {
        let from = col.saturating_sub(SHOWN / 4).min(len - SHOWN);
        (from, from + SHOWN)
    };
    let mut shown = String::with_capacity(SHOWN + 6);
    if from > 0 {
        shown.push_str("...");
    }
    shown.extend(line.chars().skip(from).take(to - from).map(|c| if c == '\t' { ' ' } else { c }));
    if to < len {
        shown.push_str("...");
    }
    let pad = col.saturating_sub(from) + if from > 0 { 3 } else { 0 };
    // carets stop at the end of the window (the window always reaches past the column of
    // a cut line, so a column at or past `to` is past the end of the line)
    let width = if col < to { width.min(to - col) } else { width };
    (shown, pad, width.max(1))
}

pub fn json_item(f: &Finding) -> Value {
    let mut item = json!({
        "path": f.path,
        "line": f.line,
        "column": f.column,
        "end_line": f.end_line,
        "end_column": f.end_column,
        "severity": severity_name(f.severity),
        "code": f.code,
        "message": f.message,
    });
    if let Some(hint) = &f.hint {
        item["hint"] = json!(hint);
    }
    if !f.related.is_empty() {
        item["related"] = f
            .related
            .iter()
            .map(|r| json!({ "path": r.path, "line": r.line, "column": r.column, "message": r.message }))
            .collect();
    }
    item
}

/// A SARIF 2.1.0 log with one run, rule metadata for every code that occurs.
pub fn sarif(findings: &[Finding], root: &Path) -> Value {
    let mut rule_ids: Vec<&str> = findings.iter().map(|f| f.code.as_str()).collect();
    rule_ids.sort();
    rule_ids.dedup();
    let rules: Vec<Value> = rule_ids
        .iter()
        .map(|id| match code_info(id) {
            Some(info) => json!({
                "id": info.code,
                "name": info.name,
                "shortDescription": { "text": info.summary },
                "fullDescription": { "text": info.explanation },
                "help": {
                    "text": format!("{}\n\nExample that triggers it:\n{}\n\nFixed:\n{}", info.explanation, info.bad, info.good),
                    "markdown": format!("{}\n\nTriggers it:\n```metal\n{}\n```\nFixed:\n```metal\n{}\n```", info.explanation, info.bad, info.good),
                },
                "defaultConfiguration": { "level": sarif_level(info.severity) },
            }),
            None => json!({ "id": id, "shortDescription": { "text": id } }),
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let mut result = json!({
                "ruleId": f.code,
                "ruleIndex": rule_ids.iter().position(|r| *r == f.code).unwrap_or(0),
                "level": sarif_level(f.severity),
                "message": { "text": f.message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri_path(&f.path), "uriBaseId": "%SRCROOT%" },
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.column,
                            "endLine": f.end_line,
                            "endColumn": f.end_column,
                        }
                    }
                }],
            });
            if let Some(hint) = &f.hint {
                result["properties"] = json!({ "hint": hint });
            }
            if !f.related.is_empty() {
                result["relatedLocations"] = f
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, r)| {
                        json!({
                            "id": i,
                            "message": { "text": r.message },
                            "physicalLocation": {
                                "artifactLocation": { "uri": uri_path(&r.path), "uriBaseId": "%SRCROOT%" },
                                "region": { "startLine": r.line, "startColumn": r.column },
                            }
                        })
                    })
                    .collect();
            }
            result
        })
        .collect();
    let root_uri = format!("file://{}/", uri_path(&root.display().to_string()).trim_end_matches('/'));
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "msl-check",
                    "version": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": rules,
                }
            },
            "originalUriBaseIds": { "%SRCROOT%": { "uri": root_uri } },
            "results": results,
        }]
    })
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// A path as a URI reference: forward slashes, spaces and other unsafe bytes escaped.
fn uri_path(p: &str) -> String {
    let mut s = String::new();
    for b in p.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// GitHub Actions workflow command: `::error file=...,line=...::message`.
pub fn github(f: &Finding) -> String {
    let kind = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    let title = match code_info(&f.code) {
        Some(info) => format!("{} ({})", f.code, info.name),
        None => f.code.clone(),
    };
    format!(
        "::{kind} file={},line={},col={},endLine={},endColumn={},title={}::{}",
        escape_property(&f.path),
        f.line,
        f.column,
        f.end_line,
        f.end_column,
        escape_property(&title),
        escape_data(&f.message)
    )
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Counts per code, most frequent first.
pub fn statistics(findings: &[Finding]) -> Vec<(String, usize)> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for f in findings {
        *counts.entry(f.code.as_str()).or_default() += 1;
    }
    let mut v: Vec<(String, usize)> = counts.into_iter().map(|(c, n)| (c.to_string(), n)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_escaping() {
        let f = Finding {
            path: "dir,a/b:c.metal".into(),
            line: 2,
            column: 3,
            end_line: 2,
            end_column: 4,
            severity: Severity::Error,
            code: "E0100".into(),
            message: "100% wrong\nsecond line".into(),
            hint: None,
            line_text: String::new(),
            related: Vec::new(),
        };
        assert_eq!(
            github(&f),
            "::error file=dir%2Ca/b%3Ac.metal,line=2,col=3,endLine=2,endColumn=4,title=E0100 (syntax-error)::100%25 wrong%0Asecond line"
        );
    }

    fn finding(line_text: &str, column: u32, end_column: u32) -> Finding {
        Finding {
            path: "a.metal".into(),
            line: 7,
            column,
            end_line: 7,
            end_column,
            severity: Severity::Error,
            code: "E0100".into(),
            message: "expected `;`".into(),
            hint: None,
            line_text: line_text.into(),
            related: Vec::new(),
        }
    }

    fn render(f: &Finding) -> String {
        let mut out = Vec::new();
        human(&mut out, f, false).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The source line and the caret line of a rendered finding.
    fn snippet(f: &Finding) -> (String, String) {
        let text = render(f);
        let lines: Vec<&str> = text.lines().collect();
        (lines[2].trim_start_matches("7 | ").to_string(), lines[3].trim_start_matches("  | ").to_string())
    }

    #[test]
    fn short_lines_are_shown_whole_with_tabs_as_spaces() {
        let (src, carets) = snippet(&finding("\tx = y z;", 9, 10));
        assert_eq!(src, " x = y z;");
        assert_eq!(carets, "        ^");
    }

    #[test]
    fn long_lines_are_cut_around_the_caret() {
        // `@` at character 5,000 of a 10,000-character line, in a line of wide characters
        let line: String = "é".repeat(4_999) + "@" + &"ü".repeat(5_000);
        let (src, carets) = snippet(&finding(&line, 5_000, 5_001));
        assert_eq!(src.chars().count(), SHOWN + 6, "{src}");
        assert!(src.starts_with("...") && src.ends_with("..."));
        let at = carets.find('^').unwrap();
        assert_eq!(src.chars().nth(at), Some('@'), "the caret is under the finding\n{src}\n{carets}");
        assert_eq!(carets.trim(), "^");
        // near the start: no leading `...`; near the end: no trailing one
        let (src, carets) = snippet(&finding(&("x".repeat(10) + "@" + &"y".repeat(500)), 11, 12));
        assert!(src.starts_with("xxxxxxxxxx@") && src.ends_with("y..."), "{src}");
        assert_eq!(src.chars().nth(carets.find('^').unwrap()), Some('@'));
        let (src, carets) = snippet(&finding(&("y".repeat(500) + "@;"), 501, 502));
        assert!(src.starts_with("...y") && src.ends_with("@;"), "{src}");
        assert_eq!(src.chars().nth(carets.find('^').unwrap()), Some('@'));
        // a span running past the window gets carets up to its end only
        let (src, carets) = snippet(&finding(&"z".repeat(1_000), 1, 900));
        assert_eq!(carets.len(), SHOWN);
        assert_eq!(src.len(), SHOWN + 3);
        // a finding at the end of a long line (a missing `;`)
        let (src, carets) = snippet(&finding(&"w".repeat(1_000), 1_001, 1_002));
        assert_eq!(carets.find('^'), Some(src.len()), "{src}\n{carets}");
    }

    #[test]
    fn uris() {
        assert_eq!(uri_path("a b/é.metal"), "a%20b/%C3%A9.metal");
    }
}
