//! Quick fixes of the checks, applied to the text: the result is what a user would write.

use std::path::Path;

use msl_hir::Analysis;
use msl_syntax::PpConfig;

/// The text after applying the first fix of the diagnostic with `code` on the line holding
/// `marker`.
fn fixed(text: &str, code: &str, marker: &str) -> String {
    let mut a = Analysis::new(msl_hir::RootDatabase::default());
    let f = a.set_file(Path::new("/p/fix.metal"), text.into());
    let unit = a.unit(f, PpConfig::default());
    let at = text.find(marker).expect("marker");
    let line = (text[..at].rfind('\n').map_or(0, |i| i + 1), text[at..].find('\n').map_or(text.len(), |i| at + i));
    let d = a
        .diagnostics(unit, false)
        .into_iter()
        .find(|d| {
            let s = usize::from(d.diagnostic.range.start());
            d.diagnostic.code == code && s >= line.0 && s <= line.1
        })
        .unwrap_or_else(|| panic!("no {code} on the line of {marker:?}"));
    let fix = d.fixes.first().unwrap_or_else(|| panic!("{code} without a fix"));
    let mut out = text.to_string();
    let mut edits = fix.edits.clone();
    edits.sort_by_key(|e| std::cmp::Reverse(e.1.start()));
    for (file, range, new) in edits {
        assert_eq!(file, 0);
        out.replace_range(usize::from(range.start())..usize::from(range.end()), &new);
    }
    out
}

/// Asserts that `text` checks without diagnostics.
fn assert_clean(text: &str) {
    let mut a = Analysis::new(msl_hir::RootDatabase::default());
    let f = a.set_file(Path::new("/p/fix.metal"), text.into());
    let unit = a.unit(f, PpConfig::default());
    let left: Vec<_> = a.diagnostics(unit, false).into_iter().map(|d| d.diagnostic.message).collect();
    assert!(left.is_empty(), "{left:#?}\n{text}");
}

const KERNEL: &str = "\
#include <metal_stdlib>
using namespace metal;
static float luminance(float3 rgb) { return rgb.x; }
kernel void k(device float4 *out [[buffer(0)]], device half4 *h [[buffer(1)]], uint i [[thread_position_in_grid]]) {
    float4 c = out[i];
    float3 rgb = c; // A
    float x = c * 2.0f; // B
    float4 f = h[i]; // C
    float l = luminance(c); // D
    float3 g = h[i]; // E
    out[i] = float4(rgb, x) + f + float4(l) + float4(g, 0.0f);
}
";

#[test]
fn conversions_select_components_or_convert() {
    assert!(fixed(KERNEL, "E1702", "// A").contains("float3 rgb = c.xyz; // A"));
    assert!(fixed(KERNEL, "E1702", "// B").contains("float x = (c * 2.0f).x; // B"));
    assert!(fixed(KERNEL, "E1702", "// C").contains("float4 f = float4(h[i]); // C"));
    assert!(fixed(KERNEL, "E1702", "// D").contains("float l = luminance(c.xyz); // D"));
    assert!(fixed(KERNEL, "E1702", "// E").contains("float3 g = float3(h[i].xyz); // E"));
}

#[test]
fn fixed_text_checks_clean() {
    let mut text = KERNEL.to_string();
    for marker in ["// A", "// B", "// C", "// D", "// E"] {
        text = fixed(&text, "E1702", marker);
    }
    assert_clean(&text);
}

#[test]
fn const_writes_drop_the_const() {
    let text = "\
kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    const float scale = 2.0f;
    scale *= 0.5f; // A
    out[i] = scale;
}
";
    let fixed = fixed(text, "E1704", "// A");
    assert!(fixed.contains("    float scale = 2.0f;\n"), "{fixed}");
    assert_clean(&fixed);
}

#[test]
fn pointers_take_the_address_space_they_point_into() {
    let text = "\
kernel void k(device float *buf [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    thread float *p = buf + i; // A
    *p = 1.0f;
}
";
    let fixed = fixed(text, "E1706", "// A");
    assert!(fixed.contains("    device float *p = buf + i; // A"), "{fixed}");
    assert_clean(&fixed);
}

#[test]
fn member_operators_swap() {
    let text = "\
struct P { float mass; };
kernel void k(device P *ps [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    ps.mass = 1.0f; // A
    P copy = ps[i];
    copy->mass = 2.0f; // B
}
";
    let once = fixed(text, "E1707", "// A");
    assert!(once.contains("    ps->mass = 1.0f; // A"), "{once}");
    let twice = fixed(&once, "E1707", "// B");
    assert!(twice.contains("    copy.mass = 2.0f; // B"), "{twice}");
    assert_clean(&twice);
}

#[test]
fn names_of_other_namespaces_get_qualified() {
    let text = "\
namespace tuning {
    constant float kGain = 1.5f;
    namespace detail { constant int kTaps = 4; }
}
kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) {
    float g = kGain; // A
    int t = kTaps; // B
    out[i] = g + float(t);
}
";
    let once = fixed(text, "E1401", "// A");
    assert!(once.contains("float g = tuning::kGain; // A"), "{once}");
    let twice = fixed(&once, "E1401", "// B");
    assert!(twice.contains("int t = tuning::detail::kTaps; // B"), "{twice}");
    assert_clean(&twice);
}
