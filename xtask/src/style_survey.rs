//! `cargo xtask style-survey`: how the hand-written Metal code of the corpus is laid out,
//! per project. The formatter's defaults follow the majority of projects (see
//! docs/formatter.md). Generated units (Tint's, SPIRV-Cross's and naga's) are left out.
//! Lines are read one by one, leaving out directives and `#define` bodies; the counts are
//! approximate, the choices they support are not close.

use std::collections::BTreeMap;
use std::path::Path;

/// The sources whose units a program generated.
const GENERATED: [&str; 3] = ["dawn", "spirv-cross", "naga"];

/// What is counted, in the order printed.
const KEYS: [&str; 16] = [
    "files",
    "indent 2",
    "indent 4",
    "tab-indented lines",
    "fn { next line",
    "fn { same line",
    "control { same line",
    "control { next line",
    "} else",
    "}\\n else",
    "float *p",
    "float* p",
    "float * p",
    "case indented",
    "case flush",
    "[[ spaced ]]",
];

pub fn run(root: &Path) -> Result<u8, String> {
    let tsv = std::fs::read_to_string(root.join("FILES.tsv")).map_err(|e| format!("FILES.tsv: {e}"))?;
    let mut projects: BTreeMap<String, BTreeMap<&'static str, usize>> = BTreeMap::new();
    let (mut lines, mut over80, mut over100) = (0usize, 0usize, 0usize);
    let mut attributes = 0usize;
    for row in tsv.lines().skip(1) {
        let f: Vec<&str> = row.split('\t').collect();
        if f.len() < 3 || GENERATED.contains(&f[0]) {
            continue;
        }
        // the samples' authors as one project each
        let project = if f[0].starts_with("samples/") {
            f[0].to_string()
        } else {
            f[0].split('/').next().unwrap_or("").to_string()
        };
        let Ok(text) = std::fs::read_to_string(root.join(f[1])) else { continue };
        let c = projects.entry(project).or_default();
        *c.entry("files").or_default() += 1;
        let mut prev = String::new();
        let mut prev_indent: Option<usize> = None;
        let mut in_define = false;
        let mut switch_indent: Option<usize> = None;
        for raw in text.lines() {
            let line = raw.trim_end();
            if in_define || line.trim_start().starts_with('#') {
                in_define = line.ends_with('\\');
                continue;
            }
            let t = line.trim_start();
            if t.is_empty() {
                continue;
            }
            lines += 1;
            let width = line.replace('\t', "    ").chars().count();
            over80 += (width > 80) as usize;
            over100 += (width > 100) as usize;
            let indent = &line[..line.len() - t.len()];
            if indent.starts_with('\t') {
                *c.entry("tab-indented lines").or_default() += 1;
            } else if let Some(p) = prev_indent
                && prev.ends_with('{')
                && indent.len() > p
            {
                match indent.len() - p {
                    2 => *c.entry("indent 2").or_default() += 1,
                    4 => *c.entry("indent 4").or_default() += 1,
                    _ => {}
                }
            }
            if !indent.contains('\t') {
                prev_indent = Some(indent.len());
            }
            let control = |s: &str| {
                let s = s.trim_start().trim_start_matches('}').trim_start();
                ["if", "for", "while", "switch", "else", "do"].iter().any(|k| {
                    s.strip_prefix(k)
                        .is_some_and(|r| r.is_empty() || !r.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
                })
            };
            let declares_type = ["struct", "class", "enum", "namespace", "typedef", "union"]
                .iter()
                .any(|k| t.strip_prefix(k).is_some_and(|r| r.starts_with([' ', '{'])));
            if t == "{" {
                let p = prev.trim_end();
                if control(p) {
                    *c.entry("control { next line").or_default() += 1;
                } else if p.ends_with(')') || p.ends_with("]]") || p.ends_with("const") {
                    *c.entry("fn { next line").or_default() += 1;
                }
            } else if t.ends_with('{') && !declares_type && !t.contains('=') {
                if control(t) {
                    *c.entry("control { same line").or_default() += 1;
                } else if t.contains('(') && !t.starts_with('}') {
                    *c.entry("fn { same line").or_default() += 1;
                }
            }
            if t.starts_with('}') && t[1..].trim_start().starts_with("else") {
                *c.entry("} else").or_default() += 1;
            } else if t.starts_with("else") && prev.trim() == "}" {
                *c.entry("}\\n else").or_default() += 1;
            }
            for (style, n) in pointer_styles(t) {
                *c.entry(style).or_default() += n;
            }
            if t.starts_with("switch") {
                switch_indent = Some(indent.len());
            }
            if (t.starts_with("case ") || t.starts_with("default:") || t.starts_with("default :"))
                && let Some(s) = switch_indent
            {
                *c.entry(if indent.len() > s { "case indented" } else { "case flush" }).or_default() += 1;
            }
            if t.contains("[[") {
                attributes += 1;
                if t.contains("[[ ") {
                    *c.entry("[[ spaced ]]").or_default() += 1;
                }
            }
            prev = line.to_string();
        }
    }
    let short = |k: &str| k.replace("}\\n else", "}/else");
    print!("{:<44}", "project");
    for k in KEYS {
        print!(" {:>9}", short(k).chars().take(9).collect::<String>());
    }
    println!();
    for (p, c) in &projects {
        print!("{:<44}", p.chars().take(44).collect::<String>());
        for k in KEYS {
            print!(" {:>9}", c.get(k).copied().unwrap_or(0));
        }
        println!();
    }
    // each project's choice, then how many projects made each one
    let pairs = [
        ("indentation", "indent 4", "indent 2"),
        ("function braces", "fn { next line", "fn { same line"),
        ("control braces", "control { same line", "control { next line"),
        ("else", "} else", "}\\n else"),
        ("pointers (right vs left)", "float *p", "float* p"),
        ("case labels", "case indented", "case flush"),
    ];
    for (what, a, b) in pairs {
        let (mut for_a, mut for_b, mut total_a, mut total_b) = (0, 0, 0, 0);
        for c in projects.values() {
            let (x, y) = (c.get(a).copied().unwrap_or(0), c.get(b).copied().unwrap_or(0));
            total_a += x;
            total_b += y;
            if x > y {
                for_a += 1;
            } else if y > x {
                for_b += 1;
            }
        }
        println!(
            "{what}: `{}` in {for_a} projects ({total_a} lines), `{}` in {for_b} ({total_b} lines)",
            short(a),
            short(b)
        );
    }
    let spaced: usize = projects.values().map(|c| c.get("[[ spaced ]]").copied().unwrap_or(0)).sum();
    println!(
        "style-survey: {} projects, {lines} lines of code; {spaced} of {attributes} lines with attributes space them inside; {:.1}% of lines over 80 columns, {:.1}% over 100",
        projects.len(),
        100.0 * over80 as f64 / lines.max(1) as f64,
        100.0 * over100 as f64 / lines.max(1) as f64
    );
    Ok(0)
}

/// The pointer and reference declarators after an address space on a line (`device
/// float *p`, `constant Params& p`, `thread half * p`), by where their spaces are.
fn pointer_styles(t: &str) -> Vec<(&'static str, usize)> {
    let mut out = Vec::new();
    for space in ["device ", "constant ", "threadgroup ", "thread "] {
        let mut from = 0;
        while let Some(k) = t[from..].find(space) {
            let at = from + k;
            from = at + space.len();
            // a whole word
            if at > 0 && t[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &t[from..];
            let Some(op) = rest.find(['*', '&']) else { continue };
            let ty = &rest[..op];
            if ty.trim().is_empty() || ty.contains([';', '(', ')', '{', '}', '=']) || ty.len() > 60 {
                continue;
            }
            let after = &rest[op + 1..];
            let name_follows = after.trim_start().starts_with(|c: char| c.is_alphabetic() || c == '_');
            if !name_follows {
                continue;
            }
            let before_space = ty.ends_with(' ');
            let after_space = after.starts_with(' ');
            let style = match (before_space, after_space) {
                (true, false) => "float *p",
                (false, true) => "float* p",
                (true, true) => "float * p",
                (false, false) => continue,
            };
            out.push((style, 1));
        }
    }
    out
}
