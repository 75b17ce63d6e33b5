//! Broken or adversarial declarations finish quickly and without a panic.

use std::path::Path;

use msl_hir::Analysis;
use msl_syntax::PpConfig;

fn diagnostics(text: &str) -> Vec<String> {
    let mut a = Analysis::new(msl_hir::RootDatabase::default());
    let f = a.set_file(Path::new("/p/robust.metal"), text.into());
    let unit = a.unit(f, PpConfig::default());
    a.diagnostics(unit, false).into_iter().map(|d| d.diagnostic.message).collect()
}

/// Classes deriving from themselves, and a lattice of bases where every class names the
/// next one four times: member lookup, base walks and conversions visit each class once.
#[test]
fn cyclic_and_repeated_bases_are_walked_once() {
    let mut text = String::from("struct A : A, A, A, A { float x; };\n");
    for i in 0..40 {
        let next = format!("B{}", i + 1);
        text.push_str(&format!("struct B{i} : {next}, {next}, {next}, {next} {{ float f{i}; }};\n"));
    }
    text.push_str("struct B40 { float4 deep; };\n");
    text.push_str(
        "kernel void k(device float4 *out [[buffer(0)]], device A *a [[buffer(1)]], device B0 *b [[buffer(2)]]) {
    A copy = *a;
    B0 other = *b;
    float4 v = float4(copy.y) + other.deep + float4(other.missing);
    B40 base = other;
    out[0] = v + base.deep;
}
",
    );
    let start = std::time::Instant::now();
    let found = diagnostics(&text);
    assert!(start.elapsed().as_secs() < 10, "took {:?}", start.elapsed());
    // nothing is known for sure about these members: no type errors
    assert!(found.iter().all(|m| !m.contains("cannot")), "{found:#?}");
}
