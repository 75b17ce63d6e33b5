//! Reparsing one function body after an edit must give exactly what a full parse of the
//! new text gives. Random edits inside bodies of the fixtures (and, when present, of a
//! sample of the corpus) are applied one after another; every accepted reparse is
//! compared with a full parse: the tree, every token's origin and the diagnostics.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use msl_syntax::ast::{AstNode, Function};
use msl_syntax::{Origin, Parse, PpConfig, SyntaxKind, TextRange, TextSize, Vfs, parse_file};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn full_parse(path: &Path, text: &str, config: &PpConfig) -> Parse {
    let vfs = Vfs::with_disk();
    let id = vfs.add_file(path, text);
    parse_file(id, &vfs, config)
}

/// An origin without the invocation's index (indices differ after a reparse: the old
/// invocations of the body stay in the table).
fn origin_key(parse: &Parse, o: Option<Origin>) -> String {
    match o {
        None => "none".into(),
        Some(Origin::Spelled { file, range }) => format!("spelled {file} {range:?}"),
        Some(Origin::Macro { call, call_file, call_range, spelling }) => {
            let pp = parse.preprocessed();
            let def = pp.calls.get(call as usize).and_then(|c| pp.macros.get(c.def as usize));
            let name = def.map(|d| d.name.to_string()).unwrap_or_default();
            format!("macro {name} at {call_file} {call_range:?} spelled {spelling:?}")
        }
    }
}

fn diagnostics_key(parse: &Parse) -> Vec<String> {
    let mut v: Vec<String> = parse
        .diagnostics()
        .iter()
        .map(|d| format!("{} {:?} {} {:?} {}", d.file, d.range, d.code, d.severity, d.message))
        .collect();
    v.sort();
    v
}

/// Asserts that `inc` (a reparse) and `full` describe the same unit.
fn assert_same(inc: &Parse, full: &Parse, context: &str) {
    if inc.syntax().green() != full.syntax().green() {
        let (a, b) = (inc.debug_tree(), full.debug_tree());
        let at = a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or(0);
        let show = |t: &str| t.lines().skip(at.saturating_sub(8)).take(16).collect::<Vec<_>>().join("\n");
        panic!("tree differs: {context}\n--- reparsed:\n{}\n--- full:\n{}", show(&a), show(&b));
    }
    assert_eq!(diagnostics_key(inc), diagnostics_key(full), "diagnostics differ: {context}");
    let (a, b) = (inc.syntax(), full.syntax());
    for (ta, tb) in a
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .zip(b.descendants_with_tokens().filter_map(|e| e.into_token()))
    {
        let oa = origin_key(inc, inc.token_origin(&ta));
        let ob = origin_key(full, full.token_origin(&tb));
        assert_eq!(oa, ob, "origin of {:?} at {:?} differs: {context}", ta.text(), ta.text_range());
        assert_eq!(inc.map_range(ta.text_range()), full.map_range(tb.text_range()), "mapped range differs: {context}");
    }
    assert_eq!(inc.main_file_text_from_tree(), *full.files()[0].text, "main file text: {context}");
    assert_eq!(inc.files().len(), full.files().len());
    let (ra, rb) = (inc.reparse_records(), full.reparse_records());
    if ra != rb {
        let at = ra.lines().zip(rb.lines()).position(|(x, y)| x != y).unwrap_or(0);
        let show = |t: &str| t.lines().skip(at.saturating_sub(3)).take(8).collect::<Vec<_>>().join("\n");
        panic!("reparse records differ: {context}\n--- reparsed:\n{}\n--- full:\n{}", show(&ra), show(&rb));
    }
}

/// Byte ranges of the main file strictly inside function bodies.
fn body_interiors(parse: &Parse) -> Vec<TextRange> {
    parse
        .syntax()
        .descendants()
        .filter(|n| n.kind() == SyntaxKind::FUNCTION)
        .filter_map(|n| Function::cast(n)?.body())
        .filter_map(|b| {
            let (file, r) = parse.map_range(b.syntax().text_range());
            (file == 0 && r.len() > TextSize::from(2))
                .then(|| TextRange::new(r.start() + TextSize::from(1), r.end() - TextSize::from(1)))
        })
        .collect()
}

const SNIPPETS: &[&str] = &[
    " ",
    "x",
    "1",
    ";",
    "\n",
    "\n    ",
    "float q = 2.0f;",
    "int",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    "*",
    "&",
    "//",
    "/*",
    "*/",
    "\"",
    "'",
    "#",
    "\\",
    "TILE",
    "SQUARE(",
    "SQUARE(3)",
    "CLAMP01(x)",
    "LATE_VALUE",
    "__LINE__",
    "__COUNTER__",
    "struct L { int a; };",
    "typedef int I2;",
    "auto f = [](int a) { return a; };",
    "return;",
    "if (x) {",
    "} else {",
    "for (;;) {}",
    "template",
    "T",
    "::",
    "metal::",
    "é",
    "->",
    ".xyzw",
    "?",
    ":",
    "0x1p3f",
    "1.5h",
    "CAT(a, b)",
    "STR(x)",
    "LOG_ARGS(1, 2)",
    "FOR_EACH_LANE(j, 4) {}",
    "kernel void k2() {}",
];

#[derive(Default)]
struct Outcome {
    accepted: usize,
    declined: usize,
    reasons: std::collections::BTreeMap<&'static str, usize>,
}

/// Applies `steps` random edits inside bodies, comparing every accepted reparse.
fn fuzz_file(path: &Path, config: &PpConfig, seed: u64, steps: usize) -> Outcome {
    let mut text: String = std::fs::read_to_string(path).expect("readable fixture");
    let mut current = full_parse(path, &text, config);
    let mut rng = Rng(seed | 1);
    let mut outcome = Outcome::default();
    for step in 0..steps {
        let bodies = body_interiors(&current);
        if bodies.is_empty() {
            break;
        }
        let body = bodies[rng.below(bodies.len())];
        let (lo, hi) = (usize::from(body.start()), usize::from(body.end()));
        let mut at = lo + rng.below(hi - lo + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let mut new_text = text.clone();
        match rng.below(3) {
            0 => new_text.insert_str(at, SNIPPETS[rng.below(SNIPPETS.len())]),
            1 => {
                let mut end = (at + 1 + rng.below(12)).min(hi);
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                new_text.replace_range(at..end.max(at), "");
            }
            _ => {
                let mut end = (at + 1 + rng.below(6)).min(hi);
                while !text.is_char_boundary(end) {
                    end += 1;
                }
                new_text.replace_range(at..end.max(at), SNIPPETS[rng.below(SNIPPETS.len())]);
            }
        }
        let shared: Arc<str> = new_text.as_str().into();
        let full = full_parse(path, &new_text, config);
        match current.try_reparse(&shared) {
            Ok(inc) => {
                let context = format!("{} step {step} seed {seed}", path.display());
                if std::env::var_os("MSL_REPARSE_DUMP").is_some() {
                    let _ = std::fs::write("/tmp/reparse_old.metal", &text);
                    let _ = std::fs::write("/tmp/reparse_new.metal", &new_text);
                }
                assert_same(&inc, &full, &context);
                outcome.accepted += 1;
                current = inc;
            }
            Err(reason) => {
                outcome.declined += 1;
                *outcome.reasons.entry(reason).or_default() += 1;
                current = full;
            }
        }
        text = new_text;
    }
    outcome
}

fn fixture_files() -> Vec<PathBuf> {
    let root = workspace().join("fixtures");
    let mut files = Vec::new();
    for dir in ["reparse", "syntax/ok", "syntax/err", "check"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "metal") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// An offset for the random edits' seeds (`MSL_REPARSE_SEED`), to explore other edits.
fn seed_base() -> u64 {
    std::env::var("MSL_REPARSE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0)
}

#[test]
fn reparsed_bodies_equal_full_parses_on_fixtures() {
    let mut total = Outcome::default();
    for (i, path) in fixture_files().iter().enumerate() {
        let mut config = PpConfig::default();
        config.include_dirs.push(path.parent().unwrap().join("inc"));
        let o = fuzz_file(path, &config, seed_base() + 0x9e37_79b9 + i as u64 * 7919, 300);
        total.accepted += o.accepted;
        total.declined += o.declined;
        for (r, n) in o.reasons {
            *total.reasons.entry(r).or_default() += n;
        }
    }
    eprintln!("fixtures: {} reparses compared, {} declined: {:#?}", total.accepted, total.declined, total.reasons);
    // the edits are hostile (braces, quotes, comments, directives): still, a good share
    // must take the fast path
    assert!(total.accepted * 4 > total.declined, "accepted {} declined {}", total.accepted, total.declined);
}

#[test]
fn a_one_character_edit_is_reparsed_locally() {
    let path = workspace().join("fixtures/reparse/kernels.metal");
    let text = std::fs::read_to_string(&path).unwrap();
    let config = PpConfig::default();
    let parse = full_parse(&path, &text, &config);
    let at = text.find("acc /= float(TILE);").unwrap();
    let edited: Arc<str> =
        format!("{}acc *= float(TILE);{}", &text[..at], &text[at + "acc /= float(TILE);".len()..]).into();
    let inc = parse.try_reparse(&edited).unwrap_or_else(|e| panic!("declined: {e}"));
    assert_same(&inc, &full_parse(&path, &edited, &config), "kernels.metal");
    // and a chain of edits keeps working
    let again: Arc<str> = edited.replacen("acc *= float(TILE);", "acc *= float(TILE) + 1.0f;", 1).into();
    let inc2 = inc.reparse(&again).expect("a second edit too");
    assert_same(&inc2, &full_parse(&path, &again, &config), "kernels.metal, second edit");
}

#[test]
fn bodies_holding_directives_are_reparsed_alone() {
    let path = workspace().join("fixtures/reparse/directives.metal");
    let text = std::fs::read_to_string(&path).unwrap();
    let config = PpConfig::default();
    let parse = full_parse(&path, &text, &config);
    // one edit after the directives at the top of each body, one between two of them,
    // and one inside a region switched off by `#if 0`
    for (needle, replacement) in [
        ("float v = src", "float  v = src"),
        ("dst[AT(tid.x, tid.y)] = v;", "dst[AT(tid.x, tid.y)] = v + 1.0f;"),
        ("    v = v * v;", "    v = v * v * v;"),
        ("float acc = 0.0f;", "float acc = 1.0f;"),
        ("acc *= args.scale;", "acc *= args.scale * 2.0f;"),
        ("dst[tid] = acc + float(NR);", "dst[tid] = acc - float(NR);"),
        ("const float d = amax", "const float d =  amax"),
        ("dst[tid] = FILL_VALUE;", "dst[tid] = FILL_VALUE * 2.0f;"),
        ("dst[tid] = FILL_VALUE + float(NR_AFTER);", "dst[tid] = FILL_VALUE;"),
    ] {
        assert!(text.contains(needle), "{needle}");
        let edited: Arc<str> = text.replacen(needle, replacement, 1).into();
        let inc = parse.try_reparse(&edited).unwrap_or_else(|e| panic!("`{needle}` declined: {e}"));
        assert_same(&inc, &full_parse(&path, &edited, &config), needle);
        // and back again, from the reparsed state
        let back: Arc<str> = text.as_str().into();
        let inc2 = inc.try_reparse(&back).unwrap_or_else(|e| panic!("`{needle}` undone: declined: {e}"));
        assert_same(&inc2, &parse, needle);
    }
    // edits that change what the directives do are not reparsed alone
    for (needle, replacement) in [
        ("#undef NC\n#undef NR\n}\n\nvoid", "#undef NC\n}\n\nvoid"),
        ("#define NC (FC_cols)\n    float acc", "#define NC (FC_cols + 1)\n    float acc"),
        ("    float acc = 0.0f;", "#define EXTRA 1\n    float acc = 0.0f;"),
        ("#ifdef HAS_FAST_PATH", "#ifndef HAS_FAST_PATH"),
        ("    acc /= float(NR);\n#endif", "    acc /= float(NR);\n"),
        ("    float v = src", "#include \"other.h\"\n    float v = src"),
    ] {
        assert!(text.contains(needle), "{needle}");
        let edited: Arc<str> = text.replacen(needle, replacement, 1).into();
        assert!(parse.try_reparse(&edited).is_err(), "`{needle}` -> `{replacement}` was reparsed alone");
    }
    // a space typed at the start of every statement line inside a body (as an editor
    // session would), each from the original text
    let interiors = body_interiors(&parse);
    let mut checked = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let indent = line.len() - line.trim_start().len();
        if indent == 0 || line.trim_start().starts_with('#') || !line.trim_end().ends_with(';') {
            continue;
        }
        let at = start + indent;
        if !interiors.iter().any(|r| r.contains(TextSize::from(at as u32))) {
            continue;
        }
        let edited: Arc<str> = format!("{} {}", &text[..at], &text[at..]).into();
        let inc = parse.try_reparse(&edited).unwrap_or_else(|e| panic!("space before {:?} declined: {e}", line.trim()));
        assert_same(&inc, &full_parse(&path, &edited, &config), line.trim());
        checked += 1;
    }
    assert!(checked >= 15, "{checked} lines");
}

#[test]
fn edits_that_could_change_other_code_are_declined() {
    let path = workspace().join("fixtures/reparse/kernels.metal");
    let text = std::fs::read_to_string(&path).unwrap();
    let parse = full_parse(&path, &text, &PpConfig::default());
    let edit = |from: &str, to: &str| -> Arc<str> { text.replacen(from, to, 1).into() };
    // a body using a macro defined after it: reparsed with the table as it stood at the
    // body (where the macro is not defined yet), the same as a full parse
    let late = edit("half(LATE_VALUE)", "half(LATE_VALUE) ");
    let inc = parse.reparse(&late).expect("reparsed with the macro table of the body's start");
    assert_same(&inc, &full_parse(&path, &late, &PpConfig::default()), "macro defined after the body");
    // a directive typed into a body
    assert!(parse.reparse(&edit("acc /= float(TILE);", "#define X 1\n")).is_none());
    // an unbalanced brace: the body now ends at the next top-level declaration, as in a
    // full parse; the result must be the same
    let open: Arc<str> = edit("acc /= float(TILE);", "acc /= float(TILE); {");
    if let Some(inc) = parse.reparse(&open) {
        assert_same(&inc, &full_parse(&path, &open, &PpConfig::default()), "unbalanced brace");
    }
    // a `{` before the body that the file never closes: recovery at the end of the file
    // decides what it encloses, and the body's tokens take part
    let unclosed = format!("namespace open {{\n{text}");
    let parse_unclosed = full_parse(&path, &unclosed, &PpConfig::default());
    let edited: Arc<str> = unclosed.replacen("acc /= float(TILE);", "acc /= float(TILE) ;", 1).into();
    assert_eq!(parse_unclosed.try_reparse(&edited).err(), Some("a `{` before the body is never closed"));
    // a local type declared in the body
    assert!(parse.reparse(&edit("acc /= float(TILE);", "struct Q { int a; };")).is_none());
    // an edit outside any body
    assert!(parse.reparse(&edit("uint width;", "uint width2;")).is_none());
    // a new line before a `__LINE__`
    assert!(parse.reparse(&edit("acc /= float(TILE);", "acc /= float(TILE);\n")).is_none());
    // the same line count before `__LINE__` is fine
    assert!(parse.reparse(&edit("acc /= float(TILE);", "acc /= float(TILE) ;")).is_some());
}

/// A sample of the corpus, when it is available.
#[test]
fn reparsed_bodies_equal_full_parses_on_corpus_sample() {
    let root = workspace().join("../shared/corpus");
    let Ok(list) = std::fs::read_to_string(root.join("FILES.tsv")) else {
        eprintln!("corpus not found; skipped");
        return;
    };
    let mut files: Vec<PathBuf> = list
        .lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols.len() > 2 && cols[2] == "tu").then(|| root.join(cols[1]))
        })
        .collect();
    files.sort();
    let step = (files.len() / 60).max(1);
    let (mut accepted, mut declined) = (0, 0);
    let mut reasons = std::collections::BTreeMap::new();
    for (i, path) in files.iter().step_by(step).enumerate() {
        let mut config = PpConfig::default();
        if let Some(dir) = path.parent() {
            config.include_dirs.push(dir.to_path_buf());
        }
        let o = fuzz_file(path, &config, seed_base() + 0x5151 + i as u64, 40);
        accepted += o.accepted;
        declined += o.declined;
        for (r, n) in o.reasons {
            *reasons.entry(r).or_insert(0) += n;
        }
    }
    eprintln!("corpus sample: {accepted} reparses compared, {declined} declined: {reasons:#?}");
    assert!(accepted > 0);
}
