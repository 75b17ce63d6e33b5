//! Formatted fixtures (`fixtures/fmt/*.metal`, the expected output beside each as
//! `.metal.fmt`): each formats to its snapshot, and formatting the snapshot changes
//! nothing. Those in `fixtures/fmt/options/` are formatted with the `[format]` table of
//! the `.toml` file of the same name. Update with `UPDATE_EXPECT=1 cargo test -p msl-fmt
//! --test fixtures`.

use std::path::{Path, PathBuf};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/fmt");
    let mut files = metal_files(&dir);
    files.extend(metal_files(&dir.join("options")));
    files
}

fn metal_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixtures/fmt")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "metal"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    files
}

/// The options of a fixture: those of its `.toml` when it has one.
fn options_of(path: &Path) -> msl_fmt::Options {
    let toml = path.with_extension("toml");
    match std::fs::read_to_string(&toml) {
        Ok(text) => msl_fmt::config::format_table(&text)
            .and_then(|t| t.ok_or_else(|| "no [format] table".to_string()))
            .and_then(|t| t.options())
            .unwrap_or_else(|e| panic!("{}: {e}", toml.display())),
        Err(_) => msl_fmt::Options::default(),
    }
}

#[test]
fn fixtures_format_to_their_snapshots_and_stay_formatted() {
    for path in fixtures() {
        let options = options_of(&path);
        let text = std::fs::read_to_string(&path).expect("fixture");
        let out = msl_fmt::format_text(&text, &options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut snap = path.clone().into_os_string();
        snap.push(".fmt");
        expect_test::expect_file![PathBuf::from(snap)].assert_eq(&out);
        let again = msl_fmt::format_text(&out, &options).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(again, out, "{}: formatting the output changed it", path.display());
    }
}

#[test]
fn a_change_beyond_whitespace_is_refused() {
    let e = msl_fmt::verify("float a = b - -c;", "float a = b --c;").expect_err("`- -` became `--`");
    assert!(e.message.contains("left as it is"), "{}", e.message);
    assert!(msl_fmt::verify("float  a=b;", "float a = b;\n").is_ok());
}

#[test]
fn large_deep_and_wide_inputs_format_exactly_and_stay_formatted() {
    let options = msl_fmt::Options::default();
    let many: String = (0..5000)
        .map(|j| format!("kernel void k{j}(device float *o [[buffer(0)]], uint i [[thread_position_in_grid]]) {{ o[i] = o[i] * {j}.0f + float(i); }}\n"))
        .collect();
    let deep = format!(
        "float f(float a, float b) {{ return a + b; }}\nkernel void k(device float *o [[buffer(0)]]) {{ o[0] = {}2.0f{}; }}\n",
        "f(1.0f, ".repeat(120),
        ")".repeat(120)
    );
    let wide = format!(
        "constant float table[20000] = {{{}}};\nfloat g(float x) {{ return max({}); }}\n",
        (0..20000).map(|j| format!("{j}.0f")).collect::<Vec<_>>().join(", "),
        (0..3000).map(|_| "x").collect::<Vec<_>>().join(", ")
    );
    for (name, text) in [("many kernels", many), ("deep calls", deep), ("wide lists", wide)] {
        let out = msl_fmt::format_text(&text, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(msl_fmt::verify(&text, &out).is_ok(), "{name}");
        let again = msl_fmt::format_text(&out, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(again, out, "{name}: formatting the output changed it");
        assert!(out.lines().count() > text.lines().count(), "{name}: nothing was laid out");
    }
}

/// Applies edits (in order, not overlapping) to a text.
fn apply(text: &str, edits: &[msl_fmt::Edit]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for (range, new) in edits {
        assert!(range.start >= at, "edits overlap or are out of order at {range:?}");
        out.push_str(&text[at..range.start]);
        out.push_str(new);
        at = range.end;
    }
    out.push_str(&text[at..]);
    out
}

#[test]
fn edits_joined_by_lines_and_trimmed_give_the_same_result_with_fewer_edits() {
    for path in fixtures() {
        let options = options_of(&path);
        let text = std::fs::read_to_string(&path).expect("fixture");
        let parse = msl_syntax::parse_text(&text, &msl_syntax::PpConfig::default());
        let (out, edits) = msl_fmt::format_with_edits(&parse, &text, &options).expect("formats");
        assert_eq!(apply(&text, &edits), out, "{}: the edits", path.display());
        let lines = msl_fmt::line_edits(&text, &edits);
        assert_eq!(apply(&text, &lines), out, "{}: the line edits", path.display());
        assert!(lines.len() <= edits.len(), "{}", path.display());
        for (i, (range, new)) in lines.iter().enumerate() {
            // no two on one line
            let line = |at: usize| text[..at].matches('\n').count();
            if let Some((next, _)) = lines.get(i + 1) {
                assert!(line(range.end) < line(next.start), "{}: {range:?} and {next:?} share a line", path.display());
            }
            // each starts and ends where the text changes
            let old = &text[range.clone()];
            let differ = |a: Option<u8>, b: Option<u8>| a.is_none() || b.is_none() || a != b;
            assert!(differ(old.bytes().next(), new.bytes().next()), "{}: {range:?} starts early", path.display());
            assert!(differ(old.bytes().last(), new.bytes().last()), "{}: {range:?} ends late", path.display());
        }
    }
    // a gap at the very end, and one that spans lines
    let text = "float a=b;\n\n\n\nfloat c=d;   ";
    let parse = msl_syntax::parse_text(text, &msl_syntax::PpConfig::default());
    let (out, edits) = msl_fmt::format_with_edits(&parse, text, &msl_fmt::Options::default()).expect("formats");
    assert_eq!(apply(text, &msl_fmt::line_edits(text, &edits)), out);
}
