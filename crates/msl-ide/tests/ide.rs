//! IDE features on `$0`-marked fixtures: the position of `$0` in a program is where the
//! request is made; the answer is compared with an expected snapshot
//! (`UPDATE_EXPECT=1 cargo test -p msl-ide --test ide` rewrites them).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use expect_test::{Expect, expect};
use msl_ide::{AnalysisHost, FileSettings, Snapshot, TextSize};

/// Opens `text` (with `$0` removed) as `/fixture/main.metal`; returns the snapshot, the
/// path and the offset of `$0`.
fn fixture(text: &str) -> (Snapshot, PathBuf, TextSize) {
    let at = text.find("$0").expect("the fixture marks a position with $0");
    let clean = text.replacen("$0", "", 1);
    let path = PathBuf::from("/fixture/main.metal");
    let mut host = AnalysisHost::new();
    host.open(&path, Arc::from(clean.as_str()), FileSettings::default());
    (host.snapshot(), path, TextSize::from(at as u32))
}

fn hover(text: &str) -> String {
    let (snap, path, at) = fixture(text);
    snap.hover(&path, at).unwrap().map(|h| h.markdown).unwrap_or_else(|| "(no hover)".to_string())
}

fn check_hover(text: &str, expected: Expect) {
    expected.assert_eq(&hover(text));
}

/// The completion labels, with their detail, in the order of their groups.
fn completions(text: &str) -> String {
    let (snap, path, at) = fixture(text);
    let mut items = snap.completions(&path, at).unwrap().items;
    items.sort_by(|a, b| (a.sort_group, &a.label).cmp(&(b.sort_group, &b.label)));
    items
        .iter()
        .map(|i| match &i.detail {
            Some(d) => format!("{} : {d}", i.label),
            None => i.label.clone(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn check_completions(text: &str, expected: Expect) {
    expected.assert_eq(&completions(text));
}

fn inlay_types(text: &str) -> String {
    let clean = text.replace("$0", "");
    let path = PathBuf::from("/fixture/main.metal");
    let mut host = AnalysisHost::new();
    host.open(&path, Arc::from(clean.as_str()), FileSettings::default());
    let snap = host.snapshot();
    let all = msl_ide::TextRange::up_to(TextSize::from(clean.len() as u32));
    snap.inlay_hints(&path, all)
        .unwrap()
        .into_iter()
        .filter(|h| h.kind == msl_ide::InlayKind::Type)
        .map(|h| {
            let at = usize::from(h.offset);
            let line_start = clean[..at].rfind('\n').map_or(0, |i| i + 1);
            format!("{}{}", clean[line_start..at].trim_start(), h.label)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn type_definition(text: &str) -> String {
    let (snap, path, at) = fixture(text);
    let targets = snap.type_definition(&path, at).unwrap();
    targets
        .iter()
        .map(|t| {
            let name = &t.text[t.focus];
            let file = t.path.file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default();
            format!("{file}: {name}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn path_is(p: &Path, name: &str) -> bool {
    p.file_name().is_some_and(|f| f == name)
}

// ---- hover -------------------------------------------------------------------------

#[test]
fn hover_on_an_auto_variable_shows_the_deduced_type() {
    check_hover(
        r#"
float shade(float x, float3 p) { return x * p.y; }
kernel void k(device float *out [[buffer(0)]], uint id [[thread_position_in_grid]]) {
    auto v$0 = shade(float(id), float3(1.0));
    out[id] = v;
}
"#,
        expect![[r#"
            ```metal
            // local variable
            auto v
            ```
            *type:* `float`"#]],
    );
}

#[test]
fn hover_on_a_use_of_an_auto_variable_shows_the_deduced_type() {
    check_hover(
        r#"
kernel void k(device float4 *out [[buffer(0)]], uint id [[thread_position_in_grid]]) {
    const auto scaled = out[id].xy * 2.0h;
    out[id].xy = scal$0ed;
}
"#,
        expect![[r#"
            ```metal
            // local variable
            const auto scaled
            ```
            *type:* `float2`"#]],
    );
}

#[test]
fn hover_on_a_field_puts_the_class_before_the_name() {
    check_hover(
        r#"
struct Params { float4x4 transform; device float *data[2]; };
float4 f(constant Params &p, float4 v) { return p.trans$0form * v; }
"#,
        expect![[r#"
            ```metal
            // field
            float4x4 Params::transform
            ```
            *offset* 0, *size* 64 bytes"#]],
    );
    check_hover(
        r#"
struct Params { float4x4 transform; device float *data[2]; };
float f(constant Params &p) { return p.da$0ta[0][0]; }
"#,
        expect![[r#"
            ```metal
            // field
            device float *Params::data[2]
            ```
            *address space:* `device`, device memory: readable and writable by every thread of the dispatch
            *offset* 64, *size* 16 bytes"#]],
    );
}

#[test]
fn hover_on_a_member_of_a_base_class_through_a_template() {
    check_hover(
        r#"
struct Base { float weight; };
template <typename T> struct Holder : Base { T value; };
float f(Holder<half> h) { return h.wei$0ght; }
"#,
        expect![[r#"
            ```metal
            // field
            float Base::weight
            ```
            *offset* 0, *size* 4 bytes"#]],
    );
}

#[test]
fn hover_on_a_swizzle_names_its_type() {
    check_hover(
        r#"
float2 f(float4 v) { return v.z$0x; }
"#,
        expect![[r#"
            ```metal
            float2 zx
            ```
            Components `zx` of a `float4`: a vector of 2 components."#]],
    );
}

// ---- completion --------------------------------------------------------------------

#[test]
fn completion_after_dot_on_a_struct_lists_fields_and_methods_with_types() {
    check_completions(
        r#"
struct Base { uint id; };
struct Light : Base { float3 color; float intensity; float power() const { return intensity; } };
float f(device Light *lights) { return lights[0].$0 }
"#,
        expect![[r#"
            color : float3
            id : uint
            intensity : float
            power : float ()"#]],
    );
}

#[test]
fn completion_after_arrow_on_a_pointer() {
    check_completions(
        r#"
struct P { half4 c; };
half f(device P *p) { return p->$0 }
"#,
        expect![[r#"
            c : half4"#]],
    );
}

#[test]
fn completion_after_dot_on_the_result_of_a_call() {
    check_completions(
        r#"
struct Ray { float3 origin; float3 dir; };
Ray make(float3 o) { Ray r; r.origin = o; r.dir = o; return r; }
float f(float3 o) { return make(o).$0 }
"#,
        expect![[r#"
            dir : float3
            origin : float3"#]],
    );
}

#[test]
fn completion_after_dot_on_a_texture_parameter_lists_its_methods() {
    let list = completions(
        r#"
kernel void k(texture2d<float, access::read> tex [[texture(0)]], uint2 gid [[thread_position_in_grid]]) {
    float4 c = tex.$0
}
"#,
    );
    for m in ["read", "get_width", "get_height"] {
        assert!(list.lines().any(|l| l.starts_with(&format!("{m} "))), "{m} missing in\n{list}");
    }
}

#[test]
fn completion_after_dot_on_a_tensor_slice() {
    let list = completions(
        r#"
#include <metal_tensor>
using namespace metal;
kernel void k(tensor<device half, dextents<int32_t, 2>> A [[buffer(0)]], uint2 gid [[thread_position_in_grid]]) {
    auto mA = A.slice(0, gid.y);
    half x = mA.$0
}
"#,
    );
    assert!(list.lines().any(|l| l.starts_with("get_extent")), "tensor methods missing in\n{list}");
}

#[test]
fn completion_after_dot_on_a_vector_lists_components() {
    check_completions(
        r#"
float f(half3 v) { return v.$0 }
"#,
        expect![[r#"
            b : half
            g : half
            r : half
            x : half
            y : half
            z : half
            rg : half2
            rgb : half3
            xy : half2
            xyz : half3"#]],
    );
}

// ---- inlay hints -------------------------------------------------------------------

#[test]
fn inlay_hints_show_the_model_types_of_deduced_variables() {
    let hints = inlay_types(
        r#"
struct S { float4 v; };
template <typename T> T twice(T x) { return x + x; }
kernel void k(device S *s [[buffer(0)]], uint id [[thread_position_in_grid]]) {
    auto a = s[id].v.xy;
    auto b = twice(3u);
    auto &c = s[id];
    auto d = float3x3(1.0);
    for (auto e : {1, 2}) { (void)e; }
}
"#,
    );
    expect![[r#"
        auto a: float2
        auto b: uint
        auto &c: device S &
        auto d: float3x3"#]]
    .assert_eq(&hints);
}

// ---- type definition ---------------------------------------------------------------

#[test]
fn type_definition_follows_aliases_and_function_results() {
    let text = r#"
struct Light { float3 color; };
typedef Light LightAlias;
LightAlias get(int i);
float f() { auto l = get(0); return l$0.color.x; }
"#;
    assert_eq!(type_definition(text), "main.metal: Light");
    assert!(path_is(Path::new("/fixture/main.metal"), "main.metal"));
}

// ---- the library's headers and tensors ----------------------------------------------

const MATMUL: &str = r#"
#include <metal_stdlib>
#include <metal_tensor>
#include <MetalPerformancePrimitives/MetalPerformancePrimitives.h>
using namespace metal;
using namespace mpp::tensor_ops;
kernel void k(tensor<device half, dextents<int32_t, 2>> A [[buffer(0)]],
              tensor<device half, dextents<int32_t, 2>> B [[buffer(1)]],
              tensor<device float, dextents<int32_t, 2>> C [[buffer(2)]],
              uint2 tgid [[threadgroup_position_in_grid]]) {
    constexpr auto desc = matmul2d_descriptor(64, 32, static_cast<int>(dynamic_extent));
    matmul2d<desc, execution_simdgroups<4>> op;
    auto mA = A.slice(0, tgid.y * 64);
    auto mB = B.slice(tgid.x * 32, 0);
    auto mC = C.slice(tgid.x * 32, tgid.y * 64);
    auto rD = op.get_destination_cooperative_tensor<decltype(mA), decltype(mB), float>();
    op.run(mA, mB, rD);
    rD.store(mC);
}
"#;

/// `MATMUL` with `$0` put at the `nth` occurrence (from 0) of `needle`, `delta` bytes in.
fn matmul_at(needle: &str, nth: usize, delta: usize) -> String {
    let at = MATMUL.match_indices(needle).nth(nth).map(|(i, _)| i).expect("needle in MATMUL") + delta;
    format!("{}$0{}", &MATMUL[..at], &MATMUL[at..])
}

#[test]
fn hover_on_the_library_headers_says_they_are_built_in() {
    for header in ["metal_stdlib>", "metal_tensor>", "MetalPerformancePrimitives.h>"] {
        let md = hover(&matmul_at(header, 0, 2));
        assert!(md.contains("built in"), "{header}: {md}");
        assert!(!md.contains("not found"), "{header}: {md}");
    }
}

#[test]
fn hover_on_a_tensor_slice_and_a_cooperative_tensor_shows_their_types() {
    let md = hover(&matmul_at("mA =", 0, 1));
    assert!(md.contains("*type:* `tensor<half, dextents<int, 2>"), "{md}");
    let md = hover(&matmul_at("rD =", 0, 1));
    assert!(md.contains("*type:* `cooperative_tensor"), "{md}");
}

#[test]
fn completion_after_dot_on_a_cooperative_tensor() {
    let text = matmul_at("rD.store", 0, 3).replacen("$0store(mC)", "$0", 1);
    let list = completions(&text);
    for m in ["store", "load", "begin"] {
        assert!(list.lines().any(|l| l.starts_with(&format!("{m} "))), "{m} missing in\n{list}");
    }
}

#[test]
fn hover_answers_on_library_names_in_every_context() {
    let text = r#"
#include <metal_stdlib>
using namespace metal;
template <typename T>
kernel void kernel_sum(device const T *src [[buffer(0)]], device float *dst [[buffer(1)]],
                       constant int &S_v [[buffer(2)]], threadgroup float *shmem [[threadgroup(0)]],
                       uint tid [[thread_position_in_threadgroup]]) {
    const float scale = 1.0f / sqrt((float)S_v);
    shmem[tid] = float(src[tid]) * scale;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    dst[tid] = min(shmem[tid], shmem[0]);
}
typedef decltype(kernel_sum<float>) kernel_sum_t;
template [[host_name("kernel_sum_f32")]] kernel kernel_sum_t kernel_sum<float>;
"#;
    for (needle, delta) in
        [("sqrt(", 1), ("threadgroup_barrier(", 1), ("min(", 1), ("host_name", 1), ("mem_threadgroup", 1)]
    {
        let at = text.find(needle).expect("needle") + delta;
        let md = hover(&format!("{}$0{}", &text[..at], &text[at..]));
        assert!(md != "(no hover)" && md.len() > 20, "no hover on {needle}: {md}");
    }
}

// ---- layout and constants ----------------------------------------------------------

#[test]
fn hover_on_a_struct_shows_its_size_alignment_and_offsets() {
    check_hover(
        r#"
struct Vert$0ex {
    float3 position;
    half2 uv;
    uchar flags;
};
"#,
        expect![[r#"
            ```metal
            // type
            struct Vertex {
                float3 position;
                half2 uv;
                uchar flags;
            }
            ```
            *size* 32 bytes, *alignment* 16

            | offset | size | member |
            |---:|---:|---|
            | 0 | 16 | `position` |
            | 16 | 4 | `uv` |
            | 20 | 1 | `flags` |"#]],
    );
}

#[test]
fn hover_on_a_field_shows_its_offset() {
    let md = hover(
        r#"
struct Light { packed_float3 dir; float power; };
float f(constant Light &l) { return l.pow$0er; }
"#,
    );
    assert!(md.contains("*offset* 12, *size* 4 bytes"), "{md}");
}

#[test]
fn hover_on_a_constant_shows_its_value() {
    let md = hover(
        r#"
constexpr int TILE = 16;
constexpr int area(int n) { return n * n; }
constant uint CELLS = area(TILE) + 1;
uint f() { return CEL$0LS; }
"#,
    );
    assert!(md.contains("*value* `257`"), "{md}");
}

#[test]
fn hover_on_a_kernel_shows_its_threadgroup_memory() {
    let md = hover(
        r#"
constexpr int TILE = 16;
kernel void blur$0(device float *out [[buffer(0)]], threadgroup float *scratch [[threadgroup(0)]],
                 uint tid [[thread_index_in_threadgroup]]) {
    threadgroup float4 tile[TILE * TILE];
    threadgroup atomic_uint counter;
    tile[tid] = float4(0);
    out[tid] = tile[tid].x + scratch[tid];
}
"#,
    );
    assert!(
        md.contains("*threadgroup memory:* 4100 bytes declared in the body, plus 1 `[[threadgroup(n)]]` buffer"),
        "{md}"
    );
}

// ---- signature help ----------------------------------------------------------------

fn signatures(text: &str) -> String {
    let (snap, path, at) = fixture(text);
    match snap.signature_help(&path, at).unwrap() {
        Some(h) => {
            let mut out = Vec::new();
            for (i, s) in h.signatures.iter().enumerate() {
                let mark = if i as u32 == h.active_signature { ">" } else { " " };
                let active = s.params.get(h.active_parameter as usize).map(|r| &s.label[*r]).unwrap_or("");
                out.push(format!("{mark} {}   [{active}]", s.label));
            }
            out.join("\n")
        }
        None => "(no signature help)".to_string(),
    }
}

#[test]
fn signature_help_for_vector_constructors() {
    expect![[r#"
          float3(float all)   []
          float3(float3 v)   []
        > float3(float x, float y, float z)   [float y]
          float3(float x, float2 yz)   [float2 yz]
          float3(float2 xy, float z)   [float z]"#]]
    .assert_eq(&signatures("float3 f(float a) { return float3(a, $0 }"));
}

#[test]
fn signature_help_for_matrix_constructors_and_scalar_casts() {
    let m = signatures("float2x2 f(float2 a) { return float2x2(a, $0 }");
    assert!(m.contains("float2x2(float2 c0, float2 c1)   [float2 c1]"), "{m}");
    assert!(m.contains("float2x2(float m00, float m01, float m10, float m11)"), "{m}");
    let c = signatures("float f(int a) { return float($0a); }");
    assert!(c.contains("float(value)   [value]"), "{c}");
}

#[test]
fn signature_help_for_a_class_constructor() {
    expect![[r#"
        > Ray(float3 o, float3 d)   [float3 d]
          Ray(float3 o)   []"#]]
    .assert_eq(&signatures(
        r#"
struct Ray {
    float3 origin, dir;
    Ray(float3 o, float3 d) : origin(o), dir(d) {}
    Ray(float3 o) : origin(o), dir(float3(0, 0, 1)) {}
};
Ray f(float3 a) { return Ray(a, $0 }
"#,
    ));
}

#[test]
fn names_in_a_reopened_namespace_are_looked_up_in_it() {
    let md = hover(
        r#"
namespace geo { struct Ray { float3 origin; float3 dir; }; }
struct Ray { int unrelated; };
namespace geo { float len(thread const Ra$0y &r); }
"#,
    );
    assert!(md.contains("float3 origin"), "{md}");
    assert!(!md.contains("unrelated"), "{md}");
}

#[test]
fn completion_after_colons_lists_a_namespace_through_its_blocks_and_inline_namespaces() {
    check_completions(
        r#"
namespace shading {
    constant float ambient = 0.1f;
    inline namespace v2 { float lambert(float3 n, float3 l) { return max(dot(n, l), 0.0f); } }
}
namespace shading { struct Material { float3 albedo; }; }
float f() { return shading::$0 }
"#,
        expect![[r#"
            Material
            ambient : float
            lambert : (float3 n, float3 l)
            v2"#]],
    );
}

#[test]
fn completion_after_colons_lists_class_members_enumerators_and_aliased_classes() {
    check_completions(
        r#"
struct Base { static constant int kBase = 1; };
struct Tile : Base {
    static constant int kSize = 16;
    enum Edge { left, right };
    using Index = ushort;
    float data[16];
};
using Alias = Tile;
int f() { return Alias::$0 }
"#,
        expect![[r#"
            Edge
            Index
            data : float[16]
            kBase : int
            kSize : int
            left
            right"#]],
    );
}

#[test]
fn completion_after_colons_selects_the_specialization_of_template_arguments() {
    check_completions(
        r#"
template <typename T, int N> struct Lanes { using type = vec<T, N>; static constant int count = N; };
template <typename T> struct Lanes<T, 1> { using scalar = T; };
float f() { return Lanes<float, 1>::$0 }
"#,
        expect![[r#"
            scalar"#]],
    );
}

#[test]
fn completion_after_colons_lists_a_scoped_enum_s_enumerators() {
    check_completions(
        r#"
enum class Mode : uint { fast, precise };
uint f() { return uint(Mode::$0) }
"#,
        expect![[r#"
            fast
            precise"#]],
    );
}

/// Only the locals in scope at the cursor: not those of a closed block, nor those
/// declared after it; a shadowing local hides the outer one; the template's parameters.
#[test]
fn completion_offers_the_locals_in_scope_as_the_model_scopes_them() {
    let text = r#"
template <typename T, int N>
T blend(T a, T b) {
    float weight = 0.5f;
    {
        int hidden = 1;
    }
    for (uint lane = 0; lane < 4; ++lane) {
        half weight = 1.0h;
        T mixed = a * T(weight);
        return mixed + $0;
    }
    uint later = 3;
    return b;
}
"#;
    let all = completions(text);
    let labels: Vec<&str> = all.lines().collect();
    for visible in ["weight : half", "lane : uint", "mixed : T", "a : T", "b : T", "T", "N"] {
        assert!(labels.contains(&visible), "{visible} missing from:\n{all}");
    }
    for hidden in ["weight : float", "hidden : int", "later : uint"] {
        assert!(!labels.contains(&hidden), "{hidden} offered in:\n{all}");
    }
}

/// Each `#include` of a file found on disk links to it, on its name; the library's
/// headers are built in and have none, nor has a header that is not found.
#[test]
fn document_links_cover_the_names_of_included_files() {
    let dir = std::env::temp_dir().join(format!("msl-ide-links-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    std::fs::write(dir.join("inc/common.h"), "#pragma once\ninline float gain(float x) { return x; }\n").unwrap();
    let main = "#include <metal_stdlib>\n#include \"inc/common.h\"\n#include \"missing.h\"\n#import \"inc/common.h\"\n";
    let path = dir.join("main.metal");
    let mut host = AnalysisHost::new();
    host.open(&path, Arc::from(main), FileSettings::default());
    let links = host.snapshot().document_links(&path).unwrap();
    let shown: Vec<(String, PathBuf)> =
        links.iter().map(|l| (main[std::ops::Range::<usize>::from(l.range)].to_string(), l.target.clone())).collect();
    let header = dir.join("inc/common.h");
    assert_eq!(shown, vec![("inc/common.h".to_string(), header.clone()), ("inc/common.h".to_string(), header)]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// After `#include "` the folders and headers next to the file and in the include
/// directories, in the folder typed so far; after `<` the library's headers too.
#[test]
fn include_paths_complete_from_the_file_s_folder_and_the_include_directories() {
    let dir = std::env::temp_dir().join(format!("msl-ide-include-completion-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("src/inc/deep")).unwrap();
    std::fs::create_dir_all(dir.join("third_party")).unwrap();
    std::fs::write(dir.join("src/inc/common.h"), "").unwrap();
    std::fs::write(dir.join("src/inc/notes.txt"), "").unwrap();
    std::fs::write(dir.join("src/shading.metal"), "").unwrap();
    std::fs::write(dir.join("third_party/vendor.hpp"), "").unwrap();
    let path = dir.join("src/main.metal");
    let labels = |text: &str| {
        let at = text.find("$0").unwrap();
        let clean = text.replacen("$0", "", 1);
        let mut host = AnalysisHost::new();
        let mut settings = FileSettings::default();
        settings.config.include_dirs.push(dir.join("third_party"));
        host.open(&path, Arc::from(clean.as_str()), settings);
        let mut labels: Vec<String> = host
            .snapshot()
            .completions(&path, TextSize::from(at as u32))
            .unwrap()
            .items
            .into_iter()
            .map(|i| i.label)
            .collect();
        labels.sort();
        labels
    };
    assert_eq!(labels("#include \"$0\n"), ["inc/", "shading.metal", "vendor.hpp"]);
    assert_eq!(labels("#include \"inc/$0\n"), ["common.h", "deep/"]);
    assert_eq!(labels("#include \"inc/co$0\n"), ["common.h"]);
    let angled = labels("#include <$0\n");
    assert!(angled.contains(&"metal_stdlib".to_string()) && angled.contains(&"vendor.hpp".to_string()), "{angled:?}");
    assert!(!angled.contains(&"inc/".to_string()), "a bracketed include does not look next to the file: {angled:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
