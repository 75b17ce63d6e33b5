//! The compiler's text output (clang's diagnostic format) parsed into data.
//!
//! Apple's `metal` is a clang. We run it with parseable fix-its and source-range
//! information, and keep caret lines on (they carry the extent of the primary range).
//! Every line is classified on its own; nothing the parser does not recognise stops it.

use std::path::{Path, PathBuf};

/// A position as the compiler prints it: 1-based line, 1-based column counted in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineCol {
    pub line: u32,
    pub column: u32,
}

impl LineCol {
    pub fn new(line: u32, column: u32) -> LineCol {
        LineCol { line, column }
    }

    /// The byte offset of this position in `text`, when it lies inside it. A column one
    /// past the end of a line is the line's end.
    pub fn offset_in(self, text: &str) -> Option<usize> {
        let mut start = 0usize;
        for _ in 1..self.line.max(1) {
            start += text[start..].find('\n')? + 1;
        }
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line_end = if line_end > start && text.as_bytes()[line_end - 1] == b'\r' { line_end - 1 } else { line_end };
        let off = start + (self.column.max(1) as usize - 1);
        if off > line_end {
            return None;
        }
        // never split a character
        let mut off = off;
        while !text.is_char_boundary(off) {
            off -= 1;
        }
        Some(off)
    }
}

/// A range in one file; `end` is exclusive.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Span {
    pub path: PathBuf,
    pub start: LineCol,
    pub end: LineCol,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
    Remark,
    Note,
}

impl Severity {
    fn parse(s: &str) -> Option<(Severity, bool)> {
        Some(match s {
            "error" => (Severity::Error, false),
            "fatal error" => (Severity::Error, true),
            "warning" => (Severity::Warning, false),
            "remark" => (Severity::Remark, false),
            "note" => (Severity::Note, false),
            _ => return None,
        })
    }
}

/// One diagnostic with everything attached to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// `fatal error:` (the compiler stopped there).
    pub fatal: bool,
    pub path: PathBuf,
    /// Where the compiler points; `None` when it gave only a line.
    pub at: Option<LineCol>,
    /// The line (always known).
    pub line: u32,
    /// The primary range (containing `at`), when the output says how far it reaches.
    pub range: Option<Span>,
    /// Further highlighted ranges (`{l:c-l:c}` groups that do not contain `at`).
    pub other_ranges: Vec<Span>,
    pub message: String,
    /// The warning option, e.g. `-Wunused-variable`.
    pub option: Option<String>,
    /// Where the file was included from, innermost first: `(includer, line)`.
    pub include_stack: Vec<(PathBuf, u32)>,
    pub notes: Vec<Note>,
    pub fixits: Vec<FixIt>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoteKind {
    Note,
    /// `expanded from macro 'NAME'`.
    MacroExpansion(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub kind: NoteKind,
    pub path: PathBuf,
    pub at: Option<LineCol>,
    pub line: u32,
    pub range: Option<Span>,
    pub message: String,
    pub include_stack: Vec<(PathBuf, u32)>,
    pub fixits: Vec<FixIt>,
}

/// A replacement the compiler proposes: put `text` in place of `span`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FixIt {
    pub span: Span,
    pub text: String,
}

/// A message of the compiler driver (or of `xcrun`) that has no source location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolMessage {
    /// The program that printed it (`metal`, `xcrun`, ...), when the line names one.
    pub tool: Option<String>,
    pub severity: Severity,
    pub message: String,
}

/// Everything read from one run's output.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    pub diagnostics: Vec<Diagnostic>,
    pub tool_messages: Vec<ToolMessage>,
    /// The Metal Toolchain component is not installed: the command that installs it.
    pub missing_toolchain: Option<String>,
    /// The compiler crashed: what it said about it.
    pub crash: Option<String>,
    /// The closing `N errors generated.` counts: (errors, warnings).
    pub summary: Option<(u32, u32)>,
}

/// The command that installs the Metal Toolchain component (Xcode 16 and later).
pub const INSTALL_TOOLCHAIN: &str = "xcodebuild -downloadComponent MetalToolchain";

enum Last {
    None,
    Diagnostic,
    Note,
}

/// Parses the compiler's output (its standard error; standard output may be appended).
pub fn parse_output(text: &str) -> Output {
    let mut out = Output::default();
    let mut pending_stack: Vec<(PathBuf, u32)> = Vec::new();
    let mut collecting_stack = false;
    // clang prints an include stack only when it changed since the last diagnostic, so
    // remember the stack each file was last seen with
    let mut stack_of_file: Vec<(PathBuf, Vec<(PathBuf, u32)>)> = Vec::new();
    let mut last = Last::None;
    // the most recent source line shown under a diagnostic, for the caret line below it
    let mut snippet: Option<String> = None;
    let mut in_crash_report = false;

    for raw in text.lines() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        // clang prints one "In file included from" line per level, outermost first;
        // gcc-style output continues with "from" lines, innermost first
        if let Some(rest) = line.strip_prefix("In file included from ") {
            if !collecting_stack {
                pending_stack.clear();
            }
            collecting_stack = true;
            if let Some(entry) = parse_include_entry(rest) {
                pending_stack.insert(0, entry);
            }
            continue;
        }
        if collecting_stack && let Some(rest) = line.trim_start().strip_prefix("from ") {
            if let Some(entry) = parse_include_entry(rest) {
                pending_stack.push(entry);
            }
            continue;
        }
        collecting_stack = false;

        if let Some(rest) = line.strip_prefix("fix-it:") {
            if let Some(fix) = parse_fixit(rest) {
                match last {
                    Last::Note => {
                        if let Some(n) = out.diagnostics.last_mut().and_then(|d| d.notes.last_mut()) {
                            n.fixits.push(fix);
                        }
                    }
                    Last::Diagnostic => {
                        if let Some(d) = out.diagnostics.last_mut() {
                            d.fixits.push(fix);
                        }
                    }
                    Last::None => {}
                }
            }
            continue;
        }

        if let Some(loc) = parse_location_line(line) {
            snippet = None;
            let stack = if !pending_stack.is_empty() {
                let s = std::mem::take(&mut pending_stack);
                remember(&mut stack_of_file, &loc.path, &s);
                s
            } else {
                stack_of_file.iter().find(|(p, _)| *p == loc.path).map(|(_, s)| s.clone()).unwrap_or_default()
            };
            let range = loc.ranges.iter().find(|r| contains(r, loc.at)).cloned();
            let other_ranges: Vec<Span> = loc.ranges.iter().filter(|r| Some(*r) != range.as_ref()).cloned().collect();
            if loc.severity == Severity::Note {
                let kind = match macro_name(&loc.message) {
                    Some(m) => NoteKind::MacroExpansion(m),
                    None => NoteKind::Note,
                };
                let note = Note {
                    kind,
                    path: loc.path,
                    at: loc.at,
                    line: loc.line,
                    range,
                    message: loc.message,
                    include_stack: stack,
                    fixits: Vec::new(),
                };
                match out.diagnostics.last_mut() {
                    Some(d) => {
                        d.notes.push(note);
                        last = Last::Note;
                    }
                    None => {
                        // a note with nothing before it: keep it as a diagnostic of its own
                        out.diagnostics.push(note_as_diagnostic(note));
                        last = Last::Diagnostic;
                    }
                }
            } else {
                out.diagnostics.push(Diagnostic {
                    severity: loc.severity,
                    fatal: loc.fatal,
                    path: loc.path,
                    at: loc.at,
                    line: loc.line,
                    range,
                    other_ranges,
                    message: loc.message,
                    option: loc.option,
                    include_stack: stack,
                    notes: Vec::new(),
                    fixits: Vec::new(),
                });
                last = Last::Diagnostic;
            }
            continue;
        }

        if let Some(tm) = parse_tool_line(line) {
            snippet = None;
            if tm.message.contains("missing Metal Toolchain") {
                let cmd = tm
                    .message
                    .split_once("use: ")
                    .map(|(_, c)| c.trim().to_string())
                    .filter(|c| !c.is_empty())
                    .unwrap_or_else(|| INSTALL_TOOLCHAIN.to_string());
                out.missing_toolchain = Some(cmd);
            }
            if is_crash_message(&tm.message) && out.crash.is_none() {
                out.crash = Some(tm.message.clone());
            }
            // after a crash the driver prints "diagnostic msg" notes about reproducers
            if !(in_crash_report && tm.severity == Severity::Note) {
                out.tool_messages.push(tm);
            }
            continue;
        }

        if line.starts_with("PLEASE submit a bug report") || line.starts_with("Stack dump:") {
            in_crash_report = true;
            if out.crash.is_none() {
                out.crash = Some("the compiler crashed".to_string());
            }
            continue;
        }

        if let Some(counts) = parse_summary(line) {
            out.summary = Some(counts);
            continue;
        }

        // source snippets and caret lines under the last diagnostic or note
        if let Some(body) = snippet_body(line) {
            if is_caret_line(body) {
                if let Some(s) = snippet.take() {
                    apply_caret(&mut out, &last, &s, body);
                }
            } else if snippet.is_none() {
                snippet = Some(body.to_string());
            }
        }
    }
    // a crash report's "diagnostic msg" lines may precede our noticing; keep the summary
    if let Some(c) = &out.crash
        && c == "the compiler crashed"
        && let Some(tm) = out.tool_messages.iter().find(|t| is_crash_message(&t.message))
    {
        out.crash = Some(tm.message.clone());
    }
    out
}

fn remember(map: &mut Vec<(PathBuf, Vec<(PathBuf, u32)>)>, path: &Path, stack: &[(PathBuf, u32)]) {
    match map.iter_mut().find(|(p, _)| p == path) {
        Some(e) => e.1 = stack.to_vec(),
        None => map.push((path.to_path_buf(), stack.to_vec())),
    }
}

fn note_as_diagnostic(n: Note) -> Diagnostic {
    Diagnostic {
        severity: Severity::Note,
        fatal: false,
        path: n.path,
        at: n.at,
        line: n.line,
        range: n.range,
        other_ranges: Vec::new(),
        message: n.message,
        option: None,
        include_stack: n.include_stack,
        notes: Vec::new(),
        fixits: n.fixits,
    }
}

fn contains(r: &Span, at: Option<LineCol>) -> bool {
    at.is_some_and(|at| r.start <= at && at < r.end)
}

/// `PATH:LINE:` or `PATH:LINE,` at the end of an include-stack line.
fn parse_include_entry(rest: &str) -> Option<(PathBuf, u32)> {
    let rest = rest.trim_end();
    let rest = rest.strip_suffix(':').or_else(|| rest.strip_suffix(',')).unwrap_or(rest);
    let (path, line) = rest.rsplit_once(':')?;
    let line: u32 = line.parse().ok()?;
    (!path.is_empty()).then(|| (PathBuf::from(path), line))
}

struct LocLine {
    path: PathBuf,
    line: u32,
    at: Option<LineCol>,
    ranges: Vec<Span>,
    severity: Severity,
    fatal: bool,
    message: String,
    option: Option<String>,
}

const MARKERS: [&str; 5] = [": fatal error: ", ": error: ", ": warning: ", ": remark: ", ": note: "];

/// `PATH:LINE[:COL][:{L:C-L:C}...]: SEVERITY: MESSAGE [-Wflag]`. The path may hold
/// colons and spaces, so every severity marker is tried from the left.
fn parse_location_line(line: &str) -> Option<LocLine> {
    let mut best: Option<(usize, &str)> = None;
    for m in MARKERS {
        let mut from = 0;
        while let Some(i) = line[from..].find(m) {
            let at = from + i;
            if best.is_none_or(|(b, _)| at < b) && parse_prefix(&line[..at]).is_some() {
                best = Some((at, m));
                break;
            }
            from = at + 1;
        }
    }
    let (at, marker) = best?;
    let (path, line_no, col, ranges) = parse_prefix(&line[..at])?;
    let sev_text = marker.trim_matches(|c| c == ':' || c == ' ');
    let (severity, fatal) = Severity::parse(sev_text)?;
    let (message, option) = split_option(&line[at + marker.len()..]);
    let path = PathBuf::from(path);
    let ranges = ranges.into_iter().map(|(s, e)| Span { path: path.clone(), start: s, end: e }).collect();
    Some(LocLine {
        path,
        line: line_no,
        at: col.map(|c| LineCol::new(line_no, c)),
        ranges,
        severity,
        fatal,
        message,
        option,
    })
}

type Prefix<'a> = (&'a str, u32, Option<u32>, Vec<(LineCol, LineCol)>);

fn parse_prefix(prefix: &str) -> Option<Prefix<'_>> {
    let mut p = prefix;
    let mut ranges = Vec::new();
    if p.ends_with('}') {
        let i = p.find(":{")?;
        ranges = parse_range_groups(&p[i + 1..])?;
        p = &p[..i];
    }
    let (head, last) = p.rsplit_once(':')?;
    let last: u32 = last.parse().ok()?;
    let (path, line, col) = match head.rsplit_once(':') {
        Some((path, l)) if !path.is_empty() && l.bytes().all(|b| b.is_ascii_digit()) && !l.is_empty() => {
            (path, l.parse().ok()?, Some(last))
        }
        _ => (head, last, None),
    };
    if path.is_empty() {
        return None;
    }
    Some((path, line, col, ranges))
}

/// `{l:c-l:c}{l:c-l:c}...`
fn parse_range_groups(s: &str) -> Option<Vec<(LineCol, LineCol)>> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let inner = rest.strip_prefix('{')?;
        let close = inner.find('}')?;
        out.push(parse_range(&inner[..close])?);
        rest = &inner[close + 1..];
    }
    Some(out)
}

fn parse_range(s: &str) -> Option<(LineCol, LineCol)> {
    let (a, b) = s.split_once('-')?;
    Some((parse_linecol(a)?, parse_linecol(b)?))
}

fn parse_linecol(s: &str) -> Option<LineCol> {
    let (l, c) = s.split_once(':')?;
    Some(LineCol::new(l.trim().parse().ok()?, c.trim().parse().ok()?))
}

/// Splits a trailing `[-Wflag]` (or `[-Werror,-Wflag]`) from a message.
fn split_option(msg: &str) -> (String, Option<String>) {
    let trimmed = msg.trim_end();
    if trimmed.ends_with(']')
        && let Some(open) = trimmed.rfind(" [")
    {
        let inner = &trimmed[open + 2..trimmed.len() - 1];
        if inner.starts_with('-') && !inner.contains(' ') {
            let flag = inner.split(',').rfind(|f| *f != "-Werror").unwrap_or(inner);
            return (trimmed[..open].to_string(), Some(flag.to_string()));
        }
    }
    (trimmed.to_string(), None)
}

fn macro_name(message: &str) -> Option<String> {
    let rest = message.strip_prefix("expanded from macro '")?;
    Some(rest.strip_suffix('\'')?.to_string())
}

/// `fix-it:"PATH":{L:C-L:C}:"TEXT"`; both strings escaped the way LLVM's
/// `write_escaped` does (backslash escapes and three-digit octal bytes).
fn parse_fixit(rest: &str) -> Option<FixIt> {
    let (path, rest) = read_escaped(rest)?;
    let rest = rest.strip_prefix(":{")?;
    let close = rest.find('}')?;
    let (start, end) = parse_range(&rest[..close])?;
    let rest = rest[close + 1..].strip_prefix(':')?;
    let (text, _) = read_escaped(rest)?;
    Some(FixIt { span: Span { path: PathBuf::from(path), start, end }, text })
}

/// Reads one double-quoted, escaped string; returns it and what follows it.
fn read_escaped(s: &str) -> Option<(String, &str)> {
    let b = s.as_bytes();
    if b.first() != Some(&b'"') {
        return None;
    }
    let mut bytes = Vec::new();
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'"' => return Some((String::from_utf8_lossy(&bytes).into_owned(), &s[i + 1..])),
            b'\\' => {
                let c = *b.get(i + 1)?;
                match c {
                    b'n' => bytes.push(b'\n'),
                    b't' => bytes.push(b'\t'),
                    b'\\' | b'"' => bytes.push(c),
                    b'0'..=b'7' => {
                        let digits = &b[i + 1..(i + 4).min(b.len())];
                        let n = digits.iter().take_while(|d| (b'0'..=b'7').contains(d)).count();
                        let v = digits[..n].iter().fold(0u32, |acc, d| acc * 8 + u32::from(d - b'0'));
                        bytes.push(v as u8);
                        i += n + 1;
                        continue;
                    }
                    other => bytes.push(other),
                }
                i += 2;
            }
            other => {
                bytes.push(other);
                i += 1;
            }
        }
    }
    None
}

/// `TOOL: error: MESSAGE`, `error: MESSAGE`, `TOOL: note: ...` (no source location).
fn parse_tool_line(line: &str) -> Option<ToolMessage> {
    for (sev, word) in [
        (Severity::Error, "fatal error: "),
        (Severity::Error, "error: "),
        (Severity::Warning, "warning: "),
        (Severity::Note, "note: "),
        (Severity::Remark, "remark: "),
    ] {
        if let Some(msg) = line.strip_prefix(word) {
            return Some(ToolMessage { tool: None, severity: sev, message: strip_repeated(msg, word) });
        }
        if let Some(i) = line.find(&format!(": {word}")) {
            let tool = &line[..i];
            // a tool name, not a path with a location (those were handled already)
            if !tool.is_empty() && !tool.contains(char::is_whitespace) || tool.ends_with("metal") {
                let msg = &line[i + 2 + word.len()..];
                return Some(ToolMessage {
                    tool: Some(tool.to_string()),
                    severity: sev,
                    message: strip_repeated(msg, word),
                });
            }
        }
    }
    None
}

/// `xcrun` repeats the severity of the tool it forwards (`error: error: ...`).
fn strip_repeated(msg: &str, word: &str) -> String {
    let mut m = msg;
    while let Some(r) = m.strip_prefix(word) {
        m = r;
    }
    m.trim_end().to_string()
}

fn is_crash_message(m: &str) -> bool {
    const SIGNALS: [&str; 6] =
        ["Segmentation fault", "Abort trap", "Illegal instruction", "Bus error", "Killed", "Trace/BPT trap"];
    m.contains("command failed due to signal")
        || m.contains("frontend command failed")
        || (m.contains("unable to execute command") && SIGNALS.iter().any(|s| m.contains(s)))
}

/// `3 errors generated.`, `1 warning generated.`, `2 warnings and 1 error generated.`
fn parse_summary(line: &str) -> Option<(u32, u32)> {
    let body = line.strip_suffix(" generated.")?;
    let (mut errors, mut warnings) = (0, 0);
    for part in body.split(" and ") {
        let (n, what) = part.trim().split_once(' ')?;
        let n: u32 = n.parse().ok()?;
        match what {
            "error" | "errors" => errors = n,
            "warning" | "warnings" => warnings = n,
            _ => return None,
        }
    }
    Some((errors, warnings))
}

/// The text of a snippet or caret line: after the `  12 | ` gutter of newer compilers,
/// or the whole line for older ones.
fn snippet_body(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let digits = t.bytes().take_while(|b| b.is_ascii_digit()).count();
    let after = &t[digits..];
    if let Some(body) = after.strip_prefix(" | ").or_else(|| after.strip_prefix(" |")) {
        return Some(body);
    }
    if digits == 0
        && let Some(body) = after.strip_prefix("| ").or_else(|| after.strip_prefix('|'))
    {
        return Some(body);
    }
    Some(line)
}

fn is_caret_line(body: &str) -> bool {
    body.contains('^') && body.bytes().all(|b| matches!(b, b' ' | b'^' | b'~'))
}

/// Reads the extent of the primary range from the tildes that touch the caret, when
/// the source line shown is plain ASCII without tabs (otherwise display columns and
/// byte columns differ).
fn apply_caret(out: &mut Output, last: &Last, snippet: &str, caret_line: &str) {
    if !snippet.is_ascii() || snippet.contains('\t') {
        return;
    }
    let Some(caret) = caret_line.find('^') else { return };
    let bytes = caret_line.as_bytes();
    let left = bytes[..caret].iter().rev().take_while(|b| **b == b'~').count() as u32;
    let right = bytes[caret + 1..].iter().take_while(|b| **b == b'~').count() as u32;
    let (path, at, range) = match last {
        Last::Diagnostic => match out.diagnostics.last_mut() {
            Some(d) => (d.path.clone(), d.at, &mut d.range),
            None => return,
        },
        Last::Note => match out.diagnostics.last_mut().and_then(|d| d.notes.last_mut()) {
            Some(n) => (n.path.clone(), n.at, &mut n.range),
            None => return,
        },
        Last::None => return,
    };
    let Some(at) = at else { return };
    if range.is_some() {
        return;
    }
    let start = LineCol::new(at.line, at.column.saturating_sub(left).max(1));
    let end = LineCol::new(at.line, at.column + 1 + right);
    *range = Some(Span { path, start, end });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_to_offsets() {
        let text = "ab\r\ncd\nef";
        assert_eq!(LineCol::new(1, 1).offset_in(text), Some(0));
        assert_eq!(LineCol::new(1, 3).offset_in(text), Some(2));
        assert_eq!(LineCol::new(1, 4).offset_in(text), None);
        assert_eq!(LineCol::new(2, 2).offset_in(text), Some(5));
        assert_eq!(LineCol::new(3, 3).offset_in(text), Some(9));
        assert_eq!(LineCol::new(4, 1).offset_in(text), None);
        // inside a multi-byte character: moved to its start
        assert_eq!(LineCol::new(1, 2).offset_in("é"), Some(0));
    }

    #[test]
    fn locations_with_colons_and_spaces_in_paths() {
        let d = parse_location_line(
            r"C:\Users\me\my shaders\a.metal:3:7: warning: unused variable 'x' [-Wunused-variable]",
        )
        .expect("parsed");
        assert_eq!(d.path, PathBuf::from(r"C:\Users\me\my shaders\a.metal"));
        assert_eq!(d.at, Some(LineCol::new(3, 7)));
        assert_eq!(d.option.as_deref(), Some("-Wunused-variable"));
        assert_eq!(d.message, "unused variable 'x'");
        let d = parse_location_line("/a/b: c.metal:12: error: oops: error: nested").expect("parsed");
        assert_eq!(d.path, PathBuf::from("/a/b: c.metal"));
        assert_eq!((d.line, d.at), (12, None));
        assert_eq!(d.message, "oops: error: nested");
    }

    #[test]
    fn werror_options_keep_the_warning_flag() {
        let (m, o) = split_option("unused variable 'x' [-Werror,-Wunused-variable]");
        assert_eq!(m, "unused variable 'x'");
        assert_eq!(o.as_deref(), Some("-Wunused-variable"));
        let (m, o) = split_option("array index [3] is past the end");
        assert_eq!((m.as_str(), o), ("array index [3] is past the end", None));
    }

    #[test]
    fn escaped_strings() {
        let (s, rest) = read_escaped(r#""/tmp/d\303\251 j/\"q\".metal":x"#).expect("read");
        assert_eq!(s, "/tmp/dé j/\"q\".metal");
        assert_eq!(rest, ":x");
        assert!(read_escaped("\"unterminated").is_none());
    }

    #[test]
    fn summaries() {
        assert_eq!(parse_summary("3 errors generated."), Some((3, 0)));
        assert_eq!(parse_summary("1 warning and 2 errors generated."), Some((2, 1)));
        assert_eq!(parse_summary("lots generated."), None);
    }
}
