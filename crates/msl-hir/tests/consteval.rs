//! Constant evaluation and layout, as `static_assert`s in MSL programs
//! (`fixtures/consteval/`): in `layout.metal` and `values.metal` every assertion must
//! hold; in `failing.metal` exactly the lines marked `// E18xx` get that error.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use msl_hir::{Analysis, unit_diagnostics};

fn fixture(name: &str) -> (PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/consteval").join(name);
    let text = std::fs::read_to_string(&path).expect("fixture");
    (path, text)
}

/// `(line, code, message)` of every constant-evaluation error of the program.
fn errors(path: &Path, text: &str) -> Vec<(usize, String, String)> {
    let mut a = Analysis::new(Default::default());
    let f = a.set_file(path, Arc::from(text));
    let unit = a.unit(f, Default::default());
    let mut out: Vec<(usize, String, String)> = unit_diagnostics(&a.db, unit, false)
        .into_iter()
        .filter(|d| d.diagnostic.code.starts_with("E18"))
        .map(|d| {
            let line = text[..usize::from(d.diagnostic.range.start())].matches('\n').count() + 1;
            (line, d.diagnostic.code.to_string(), d.diagnostic.message)
        })
        .collect();
    out.sort();
    out
}

/// The value of every `static_assert` outside functions: each must be computed (a
/// condition that is not constant would pass silently) and hold.
fn values_of_asserts(path: &Path, text: &str) -> Vec<(String, Result<i64, msl_hir::consteval::EvalError>)> {
    let mut a = Analysis::new(Default::default());
    let f = a.set_file(path, Arc::from(text));
    let unit = a.unit(f, Default::default());
    let defs = msl_hir::unit_defs(&a.db, unit);
    defs.static_asserts
        .iter()
        .map(|s| {
            let r = msl_hir::infer::Resolver::new(defs, s.scope, None);
            let v = msl_hir::consteval::Evaluator::new(&r).eval_const(&s.cond);
            (s.message.as_deref().unwrap_or("").to_string(), v)
        })
        .collect()
}

#[test]
fn every_assertion_about_layout_holds() {
    let (path, text) = fixture("layout.metal");
    assert_eq!(errors(&path, &text), Vec::new());
    let values = values_of_asserts(&path, &text);
    assert!(values.len() >= 25);
    let not_true: Vec<_> = values.iter().filter(|(_, v)| *v != Ok(1)).collect();
    assert!(not_true.is_empty(), "computed and true, each: {not_true:#?}");
}

#[test]
fn every_assertion_about_values_holds() {
    let (path, text) = fixture("values.metal");
    assert_eq!(errors(&path, &text), Vec::new());
    // every one outside functions is computed and true, but the one on a specialization,
    // which is left undecided on purpose
    let not_true: Vec<_> = values_of_asserts(&path, &text)
        .into_iter()
        .filter(|(m, v)| *v != Ok(1) && m != "the specialization says so")
        .collect();
    assert!(not_true.is_empty(), "computed and true, each: {not_true:#?}");
}

#[test]
fn false_assertions_and_runaway_evaluation_are_reported_at_their_place() {
    let (path, text) = fixture("failing.metal");
    let expected: Vec<(usize, String)> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            l.split("// ").nth(1).filter(|c| c.starts_with("E18")).map(|c| (i + 1, c.trim().to_string()))
        })
        .collect();
    let got = errors(&path, &text);
    let got_lines: Vec<(usize, String)> = got.iter().map(|(l, c, _)| (*l, c.clone())).collect();
    assert_eq!(got_lines, expected, "{got:#?}");
    let messages: Vec<&str> = got.iter().map(|(_, _, m)| m.as_str()).collect();
    expect_test::expect![[r#"
        [
            "static assertion failed: float3 is 16 bytes",
            "static assertion failed",
            "constant evaluation stopped after 1048576 steps: a loop that does not end?",
            "constant evaluation stopped at 512 nested calls: a recursion without a base case?",
            "static assertion failed (in the instantiation with T = int): only floating types",
            "static assertion failed (in the instantiation with N = 12): N stays small",
        ]
    "#]]
    .assert_debug_eq(&messages);
}

#[test]
fn self_referential_and_overflowing_constants_end_quickly() {
    let text = "\
constant int N = sizeof(int[N][N]);
constant int M = sizeof(float[M][M][M][M][M][M]);
enum Big : long { top = 0x7fffffffffffffff, after };
struct Huge { char a[0x7fffffffffffffff]; char b[0x7fffffffffffffff]; int c; };
static_assert(sizeof(Huge) > 0, \"too large to lay out\");
kernel void k(device float *out [[buffer(0)]]) {
    float a[N];
    float b[M];
    out[0] = a[0] + b[0] + float(after) + float(sizeof(Huge));
}
";
    let start = std::time::Instant::now();
    let found = errors(Path::new("/unit/cycle.metal"), text);
    assert!(start.elapsed().as_secs() < 5, "took {:?}", start.elapsed());
    assert_eq!(found, Vec::new());
}

#[test]
fn deep_constexpr_recursion_fits_a_small_stack() {
    // the checks run on a helper thread with the default stack
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let (path, text) = fixture("failing.metal");
            errors(&path, &text).len()
        })
        .expect("thread");
    assert!(handle.join().expect("no overflow") >= 6);
}
