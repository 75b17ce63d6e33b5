//! Salsa incrementality: editing inside one function body re-runs that function's checks
//! only; the other functions' results are reused, and their diagnostics still land on the
//! right (moved) lines.

use std::path::Path;
use std::sync::{Arc, Mutex};

use msl_hir::{Analysis, RootDatabase};
use msl_syntax::{LineIndex, PpConfig};

const BEFORE: &str = "\
kernel void a(device float *x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    x[i] = 1.0f;
}
kernel void b(device float *y [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    y[i] = 2.0f;
}
kernel float c(uint i [[thread_position_in_grid]]) {
    return 3.0f;
}
";

/// `a` gets two more lines in its body; `b` and `c` are unchanged but move down.
const AFTER: &str = "\
kernel void a(device float *x [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    float t = 1.0f;
    t = t * 2.0f;
    x[i] = t;
}
kernel void b(device float *y [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    y[i] = 2.0f;
}
kernel float c(uint i [[thread_position_in_grid]]) {
    return 3.0f;
}
";

fn executed(log: &Mutex<Vec<String>>, query: &str) -> usize {
    log.lock().unwrap().iter().filter(|e| e.starts_with(query)).count()
}

#[test]
fn editing_one_body_rechecks_only_that_function() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut analysis = Analysis::new(RootDatabase::with_event_log(log.clone()));
    let path = Path::new("/unit/k.metal");
    let file = analysis.set_file(path, BEFORE.into());
    let unit = analysis.unit(file, PpConfig::default());

    let first = analysis.diagnostics(unit, false);
    assert_eq!(executed(&log, "check_function"), 3, "{:?}", log.lock().unwrap());
    let line_of =
        |text: &str, d: &msl_hir::UnitDiagnostic| LineIndex::new(text).line_col(d.diagnostic.range.start()).line + 1;
    let e1106: Vec<u32> = first.iter().filter(|d| d.diagnostic.code == "E1106").map(|d| line_of(BEFORE, d)).collect();
    assert_eq!(e1106, [7]);

    log.lock().unwrap().clear();
    analysis.set_file(path, AFTER.into());
    let second = analysis.diagnostics(unit, false);
    // the text changed, so the unit is parsed again ...
    assert_eq!(executed(&log, "parse_unit"), 1);
    // ... but only the edited function is checked again
    assert_eq!(executed(&log, "check_function"), 1, "{:?}", log.lock().unwrap());
    // and the reused result of `c` is reported where `c` now is
    let e1106: Vec<u32> = second.iter().filter(|d| d.diagnostic.code == "E1106").map(|d| line_of(AFTER, d)).collect();
    assert_eq!(e1106, [9]);

    // changing a declaration outside bodies (a new function) changes the item tree,
    // and every function is checked again
    log.lock().unwrap().clear();
    analysis.set_file(path, format!("{AFTER}void helper() {{}}\n").into());
    analysis.diagnostics(unit, false);
    assert_eq!(executed(&log, "check_function"), 4);

    // the same text again changes nothing
    log.lock().unwrap().clear();
    analysis.set_file(path, format!("{AFTER}void helper() {{}}\n").into());
    analysis.diagnostics(unit, false);
    assert_eq!(executed(&log, "check_function"), 0);
}

/// An edit inside a body is reparsed from the previous parse, and the analysis then says
/// exactly what a fresh analysis of the new text says.
#[test]
fn body_edits_reparse_locally_and_agree_with_a_fresh_analysis() {
    use msl_hir::Db;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/reparse/kernels.metal");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut analysis = Analysis::new(RootDatabase::default());
    let file = analysis.set_file(&path, text.as_str().into());
    let unit = analysis.unit(file, PpConfig::default());
    analysis.diagnostics(unit, false);
    let edits = [
        ("acc /= float(TILE);", "acc /= float(TILE) * 2.0f;"),
        ("float s = simd_sum(acc.total);", "float s = simd_sum(acc.total); goto out;"),
        ("return float4(p * detail::soft(p.x), 0.0f, 1.0f);", "return float4(p, 0.0f, 1.0f);"),
    ];
    let mut current = text.clone();
    for (from, to) in edits {
        current = current.replacen(from, to, 1);
        let (_, local_before) = analysis.db.parse_cache().unwrap().counts();
        let items_before = msl_hir::item_tree(&analysis.db, unit).clone();
        analysis.set_file(&path, current.as_str().into());
        let incremental = analysis.diagnostics(unit, false);
        let (_, local_after) = analysis.db.parse_cache().unwrap().counts();
        assert_eq!(local_after, local_before + 1, "`{to}` was reparsed locally");
        // the declarations did not change: the item tree is the previous one, not a copy
        assert!(Arc::ptr_eq(&items_before, msl_hir::item_tree(&analysis.db, unit)), "after `{to}`");

        let mut fresh = Analysis::new(RootDatabase::default());
        let f = fresh.set_file(&path, current.as_str().into());
        let u = fresh.unit(f, PpConfig::default());
        assert_eq!(incremental, fresh.diagnostics(u, false), "after `{to}`");
    }
    // the `goto` is found in the edited function
    assert!(analysis.diagnostics(unit, false).iter().any(|d| d.diagnostic.code == "E1201"));
}

/// A header's tokens are kept for the units that include it and the unit's later parses,
/// and an edit to the header is seen: its new text is lexed again.
#[test]
fn header_tokens_are_shared_until_the_header_changes() {
    use msl_hir::Db;
    let mut analysis = Analysis::new(RootDatabase::default());
    let header = Path::new("/unit/consts.h");
    analysis.set_file(header, "#define WIDTH 4\nstruct Pixel { float v[WIDTH]; };\n".into());
    let user = |name: &str| {
        format!("#include \"consts.h\"\nkernel void {name}(device Pixel *p [[buffer(0)]]) {{ p[0].v[0] = WIDTH; }}\n")
    };
    let a = analysis.set_file(Path::new("/unit/a.metal"), user("a").into());
    let b = analysis.set_file(Path::new("/unit/b.metal"), user("b").into());
    let (a, b) = (analysis.unit(a, PpConfig::default()), analysis.unit(b, PpConfig::default()));
    let errors = |analysis: &Analysis, unit| {
        analysis
            .diagnostics(unit, false)
            .into_iter()
            .filter(|d| d.diagnostic.severity == msl_syntax::Severity::Error)
            .count()
    };
    assert_eq!(errors(&analysis, a), 0);
    assert_eq!(errors(&analysis, b), 0);
    // the header, once; the main files are not kept
    let kept = |analysis: &Analysis| analysis.db.parse_cache().map(|c| c.headers_lexed());
    assert_eq!(kept(&analysis), Some(1));

    // the edited header (longer, and with a syntax error) is what both units see
    analysis.set_file(header, "// widths\n#define WIDTH 8\nstruct Pixel { float v[WIDTH]; };\nint broken = ;\n".into());
    assert_eq!(errors(&analysis, a), 1);
    assert_eq!(errors(&analysis, b), 1);
    assert_eq!(kept(&analysis), Some(1));
    let width = |analysis: &Analysis, unit| {
        let parse = analysis.parse(unit);
        parse
            .preprocessed()
            .pieces
            .iter()
            .filter(|p| p.kind == msl_syntax::SyntaxKind::INT_NUMBER)
            .map(|p| parse.preprocessed().text(p).to_string())
            .collect::<Vec<_>>()
    };
    // `WIDTH` in the header, `buffer(0)`, `p[0]`, `v[0]`, `WIDTH` in the body
    assert_eq!(width(&analysis, a), ["8", "0", "0", "0", "8"]);
}

/// A unit with namespaces, classes, constants and a constexpr function around the bodies
/// that are edited.
const MODEL: &str = "\
namespace geo {
struct Ray { float3 origin; float3 dir; };
constexpr int TILE = 8;
constexpr int twice(int v) { return v * 2; }
float len(Ray r) {
    return length(r.dir);
}
}
static_assert(geo::twice(geo::TILE) == 16, \"tile\");
kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    geo::Ray r;
    r.dir = float3(1.0f);
    out[i] = geo::len(r);
}
struct After { half4 c; };
";

#[test]
fn a_body_edit_keeps_the_definitions_and_reinfers_only_that_body() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut analysis = Analysis::new(RootDatabase::with_event_log(log.clone()));
    let path = Path::new("/unit/model.metal");
    let file = analysis.set_file(path, MODEL.into());
    let unit = analysis.unit(file, PpConfig::default());
    let infer_all = |a: &Analysis| {
        for f in msl_hir::functions(&a.db, unit) {
            msl_hir::infer_function(&a.db, f);
        }
        msl_hir::check_static_asserts(&a.db, unit).len()
    };
    assert_eq!(infer_all(&analysis), 0);
    assert_eq!(executed(&log, "infer_function"), 3, "{:?}", log.lock().unwrap());

    // an edit inside `len`'s body: more text, so everything after it moves
    let edited = MODEL.replace("return length(r.dir);", "float l = length(r.dir);\n    return l * 1.0f;");
    log.lock().unwrap().clear();
    analysis.set_file(path, edited.clone().into());
    assert_eq!(infer_all(&analysis), 0);
    assert_eq!(executed(&log, "infer_function"), 1, "only the edited body: {:?}", log.lock().unwrap());
    // the definitions are those of a fresh collection, places included
    let (defs, sources) = msl_hir::unit_defs_with_source(&analysis.db, unit);
    let fresh = msl_hir::defs::collect_with_source(&msl_hir::parse_unit(&analysis.db, unit).syntax());
    assert_eq!(**defs, fresh.0);
    assert_eq!(**sources, fresh.1);
    let after = sources.def_named_at(msl_syntax::TextRange::at(
        msl_syntax::TextSize::from(edited.find("After").unwrap() as u32),
        msl_syntax::TextSize::from(5),
    ));
    assert!(after.is_some(), "the moved class is found at its new place");

    // an edit of the constexpr function's body changes what constants evaluate to
    let broken = edited.replace("return v * 2;", "return v * 3;");
    analysis.set_file(path, broken.into());
    assert_eq!(infer_all(&analysis), 1, "the assertion now fails");
}

/// The findings about the unit's declarations (redefinitions, host names, `typename`,
/// program-scope variables, specializations after a use) move with an edit in a body before them, are made again when the body
/// gains a syntax error, and always agree with a fresh analysis.
#[test]
fn program_findings_move_with_a_body_edit() {
    const TEXT: &str = "\
#include <metal_stdlib>
using namespace metal;
template <typename T> T dec(uint r) { return T(r); }
kernel void a(device float *o [[buffer(0)]]) { o[0] = 1.0f; }
template <> half dec<half>(uint r) { return half(r); }
float twice(float x) { return x * 2.0f; }
float twice(float x) { return x + x; }
template <typename T> kernel void fill(device T *p [[buffer(0)]]) { p[0] = T(0); }
template kernel void fill(device int *p);
template kernel void fill(device float *p);
template <typename T> T::value_type first(T t) { T::value_type v = t.v; return v; }
float scale = 2.0f;
";
    let path = Path::new("/virtual/program.metal");
    let mut analysis = Analysis::new(RootDatabase::default());
    let file = analysis.set_file(path, TEXT.into());
    let unit = analysis.unit(file, PpConfig::default());
    let codes = |d: &[msl_hir::UnitDiagnostic]| {
        let mut c: Vec<&str> = d.iter().map(|d| d.diagnostic.code).collect();
        c.sort_unstable();
        c
    };
    assert_eq!(codes(&analysis.diagnostics(unit, false)), ["E1114", "E1407", "E1412", "E1412", "E1604"]);
    for to in ["o[0] = 1.0f;\n    o[1] = 2.0f;", "o[0] = 1.0f +;", "o[0] = float(dec<half>(1u));", "o[0] = 3.0f;"] {
        let text = TEXT.replacen("o[0] = 1.0f;", to, 1);
        analysis.set_file(path, text.as_str().into());
        let incremental = analysis.diagnostics(unit, false);
        let mut fresh = Analysis::new(RootDatabase::default());
        let f = fresh.set_file(path, text.as_str().into());
        let u = fresh.unit(f, PpConfig::default());
        assert_eq!(incremental, fresh.diagnostics(u, false), "after `{to}`");
        assert!(codes(&incremental).contains(&"E1114"), "after `{to}`");
        assert!(codes(&incremental).contains(&"E1604"), "after `{to}`");
        // the specialization comes after a use only while the body makes one
        let late = incremental.iter().any(|d| d.diagnostic.message.contains("specialized after a use"));
        assert_eq!(late, to.contains("dec<half>"), "after `{to}`");
    }
}
