//! `check_infer`: every expression's type (and every local's) in small programs, as a
//! snapshot. Each line is `start..end text: type`, ranges relative to the function.
//!
//! Besides the inline snapshots below, every program in `fixtures/infer/*.metal` is
//! dumped to the `.types` file next to it: each function that is not a template, then
//! each instantiation of a template the program makes. `UPDATE_EXPECT=1` rewrites them.

use std::path::Path;

use expect_test::{Expect, expect};
use msl_hir::{Analysis, RootDatabase};
use msl_syntax::PpConfig;

/// The dump of the last function of `text` (the one under test; others are helpers).
fn check_infer(text: &str, expected: Expect) {
    let mut analysis = Analysis::new(RootDatabase::default());
    let file = analysis.set_file(Path::new("/t/unit.metal"), text.into());
    let unit = analysis.unit(file, PpConfig::default());
    let db = &analysis.db;
    let functions = msl_hir::functions(db, unit);
    let f = *functions.last().expect("a function");
    let (body, map) = &**msl_hir::function_body(db, f);
    let result = msl_hir::infer_function(db, f);
    let green = msl_hir::function_green(db, f).clone().expect("syntax");
    let fn_text = msl_syntax::SyntaxNode::new_root(green.0.clone()).text().to_string();
    let mut out = msl_hir::infer::dump(body, map, result, &fn_text);
    for e in &result.unresolved_names {
        out.push_str(&format!("unresolved name: {}\n", snippet(&fn_text, map.expr_ranges[e.0 as usize])));
    }
    for e in &result.unresolved_calls {
        out.push_str(&format!("unresolved call: {}\n", snippet(&fn_text, map.expr_ranges[e.0 as usize])));
    }
    expected.assert_eq(&out);
}

fn snippet(text: &str, range: msl_syntax::TextRange) -> String {
    text[usize::from(range.start())..usize::from(range.end())].split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn literals_and_arithmetic() {
    check_infer(
        r#"
void f() {
    int i = 1;
    uint u = 2u;
    float x = 1.5;
    half h = 2.0h;
    auto a = i + u;
    auto b = x * h;
    auto c = h + i;
    auto d = i < u;
    auto e = 1ul << 3;
    bool n = !d;
}
"#,
        expect![[r#"
            19..20 local i: int
            23..24 1: int
            35..36 local u: uint
            39..41 2u: uint
            53..54 local x: float
            57..60 1.5: float
            71..72 local h: half
            75..79 2.0h: half
            90..91 local a: uint
            94..99 i + u: uint
            94..95 i: int &
            98..99 u: uint &
            110..111 local b: float
            114..119 x * h: float
            114..115 x: float &
            118..119 h: half &
            130..131 local c: half
            134..139 h + i: half
            134..135 h: half &
            138..139 i: int &
            150..151 local d: bool
            154..159 i < u: bool
            154..155 i: int &
            158..159 u: uint &
            170..171 local e: ulong
            174..182 1ul << 3: ulong
            174..177 1ul: ulong
            181..182 3: int
            193..194 local n: bool
            197..199 !d: bool
            198..199 d: bool &
        "#]],
    );
}

/// The dump of every function of `text` that is not a template, and of every
/// instantiation it makes.
fn dump_unit(text: &str) -> String {
    let mut analysis = Analysis::new(RootDatabase::default());
    let file = analysis.set_file(Path::new("/t/unit.metal"), text.into());
    let unit = analysis.unit(file, PpConfig::default());
    let db = &analysis.db;
    let defs = msl_hir::unit_defs(db, unit);
    let name_of = |f: msl_hir::FunctionId<'_>| {
        defs.function_defs
            .get(*f.index(db) as usize)
            .copied()
            .flatten()
            .map_or_else(|| "?".to_string(), |d| defs.qualified_name(d))
    };
    let mut out = String::new();
    let mut section = |title: String, f: msl_hir::FunctionId<'_>, result: &msl_hir::infer::InferenceResult| {
        let (body, map) = &**msl_hir::function_body(db, f);
        let Some(green) = msl_hir::function_green(db, f).clone() else { return };
        let fn_text = msl_syntax::SyntaxNode::new_root(green.0.clone()).text().to_string();
        if body.root.is_none() {
            return;
        }
        out.push_str(&title);
        out.push('\n');
        out.push_str(&msl_hir::infer::dump(body, map, result, &fn_text));
        for e in &result.unresolved_names {
            out.push_str(&format!("unresolved name: {}\n", snippet(&fn_text, map.expr_ranges[e.0 as usize])));
        }
        for e in &result.unresolved_calls {
            out.push_str(&format!("unresolved call: {}\n", snippet(&fn_text, map.expr_ranges[e.0 as usize])));
        }
        out.push('\n');
    };
    for f in msl_hir::functions(db, unit) {
        let result = msl_hir::infer_function(db, f);
        if !result.in_template {
            section(format!("fn {}", name_of(f)), f, result);
        }
    }
    for i in msl_hir::unit_instances(db, unit).iter() {
        let f = *i.function(db);
        let args: Vec<String> = i.args(db).iter().map(|(n, t)| format!("{n} = {t}")).collect();
        section(format!("fn {} [{}]", name_of(f), args.join(", ")), f, msl_hir::infer_instance(db, *i));
    }
    out
}

#[test]
fn fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/infer");
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/infer")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "metal"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 150, "{} programs in fixtures/infer", paths.len());
    let mut stale = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("a fixture");
        let actual = dump_unit(&text);
        let expected_path = path.with_extension("types");
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if actual != expected {
            if update {
                std::fs::write(&expected_path, &actual).expect("writable fixtures");
            } else {
                stale.push(path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "types differ for {stale:?}; UPDATE_EXPECT=1 cargo test -p msl-hir --test infer updates them"
    );
}
