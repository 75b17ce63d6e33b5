//! The unit's definitions: scopes, names, and their stability while bodies are edited.

use std::path::Path;

use expect_test::{Expect, expect};
use msl_hir::{Analysis, RootDatabase};
use msl_syntax::PpConfig;

fn check(text: &str, expected: Expect) {
    let mut analysis = Analysis::new(RootDatabase::default());
    let file = analysis.set_file(Path::new("/t/unit.metal"), text.into());
    let unit = analysis.unit(file, PpConfig::default());
    let defs = msl_hir::unit_defs(&analysis.db, unit);
    // every function of the unit is linked to its definition's place
    assert_eq!(defs.function_defs.len(), msl_hir::functions(&analysis.db, unit).len());
    expected.assert_eq(&defs.dump());
}

#[test]
fn namespaces_classes_enums_and_functions() {
    check(
        r#"
namespace geo {
struct Ray { float3 origin; float3 dir; float t(float s) const { return s; } static constexpr constant int kind = 2; };
enum class Hit : uint { none, tri = 4, box };
enum Plain { a, b };
float dot3(float3 x, float3 y);
namespace inner { inline namespace v1 { int deep; } }
}
namespace geo::inner { using Real = float; }
namespace { constant int hidden = 3; }
using namespace geo;
template <typename T, int N> struct Buf : geo::Ray { T v[N]; };
template <typename T> T twice(T x) { return x + x; }
float geo::Ray::t(float s) const;
kernel void k(device float *o [[buffer(0)]]) { o[0] = 1; }
typedef struct { int x; } Anon;
template [[host_name("k_f")]] kernel void kk<float>(device float *o [[buffer(0)]]);
"#,
        expect![[r#"
            using namespace geo
            geo : namespace
              Ray : Struct bases [] fields [origin, dir]
                origin : field
                dir : field
                t : fn(1) #0
                kind : variable = Some(2)
                t : fn(1) #3 out-of-class
              Hit : enum class
                none : enumerator = Some(0)
                tri : enumerator = Some(4)
                box : enumerator = Some(5)
              Plain : enum
                a : enumerator = Some(0)
                b : enumerator = Some(1)
              dot3 : fn(2) #1
              inner : namespace
                v1 : namespace
                  deep : variable = None
                Real : alias
            <unnamed> : namespace
              hidden : variable = Some(3)
            template<T, N> Buf : Struct bases [geo::Ray] fields [v]
              template<T, N> v : field
            template<T> twice : fn(1) #2
            k : fn(1) #4 Kernel
            <unnamed> : Struct bases [] fields [x]
              x : field
            Anon : alias
        "#]],
    );
}
