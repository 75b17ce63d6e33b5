//! The system headers Apple's SDK ships and the predefined macros of the Metal compiler.
//!
//! `<metal_stdlib>` and friends never come from the disk: their declarations are modelled
//! by the standard-library crate. Here they only contribute the macros they define, so
//! that `#if`, `#ifdef` and macro-using code behave as they do with Apple's compiler.

use crate::config::{MetalVersion, Platform, PpConfig};

/// How an angle-bracket include is answered without touching the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SystemHeader {
    /// A header of the Metal standard library (or a companion such as `<simd/simd.h>`).
    Modelled,
    /// Not one we model (a framework header, a C/C++ library header); only reachable
    /// through `-I`.
    Unknown,
}

/// The Metal standard library headers.
pub const METAL_HEADERS: &[&str] = &[
    "metal_stdlib",
    "metal_array",
    "metal_assert",
    "metal_atomic",
    "metal_command_buffer",
    "metal_common",
    "metal_compute",
    "metal_config",
    "metal_extended_vector",
    "metal_functional",
    "metal_geometric",
    "metal_graphics",
    "metal_imageblocks",
    "metal_initializer_list",
    "metal_integer",
    "metal_interpolate",
    "metal_limits",
    "metal_logging",
    "metal_math",
    "metal_matrix",
    "metal_mesh",
    "metal_numeric",
    "metal_pack",
    "metal_packed_vector",
    "metal_quadgroup",
    "metal_raytracing",
    "metal_relational",
    "metal_sampler",
    "metal_simdgroup",
    "metal_simdgroup_matrix",
    "metal_tensor",
    "metal_texture",
    "metal_type_traits",
    "metal_types",
    "metal_uniform",
    "metal_utility",
    "metal_variable_rasterization_rate",
    "metal_visible_function_table",
    "metal_cooperative_tensor",
];

/// Classifies an angle-bracket header name.
pub fn classify(name: &str) -> SystemHeader {
    let name = name.trim();
    if METAL_HEADERS.contains(&name)
        || name == "TargetConditionals.h"
        || (name.starts_with("simd/") && name.ends_with(".h"))
        || name.starts_with("MetalPerformancePrimitives/")
    {
        SystemHeader::Modelled
    } else {
        SystemHeader::Unknown
    }
}

/// The macro definitions a modelled system header contributes, as directive text.
pub fn header_text(name: &str, config: &PpConfig) -> String {
    let name = name.trim();
    let mut s = String::from("#pragma once\n");
    let all = name == "metal_stdlib";
    if name.starts_with("metal_") {
        // every Metal header pulls in the common configuration macros
        s.push_str(CONFIG_MACROS);
        s.push_str(if config.fast_math {
            "#define __METAL_MAYBE_FAST_MATH__ __METAL_FAST_MATH__\n"
        } else {
            "#define __METAL_MAYBE_FAST_MATH__ __METAL_PRECISE_MATH__\n"
        });
    }
    if all || name == "metal_math" || name == "metal_types" || name == "metal_limits" {
        s.push_str(LIMIT_MACROS);
    }
    if all || name == "metal_math" {
        s.push_str(MATH_MACROS);
        if config.version >= MetalVersion::V3_1 {
            s.push_str(BFLOAT_MATH_MACROS);
        }
    }
    if all || name == "metal_assert" {
        // `assert` is a function-like macro; the condition is not compiled unless the
        // build enables assertions, so it is not analysed either
        s.push_str("#define assert(condition) ((void)0)\n");
    }
    if name == "TargetConditionals.h" {
        let p = config.platform;
        let flag = |b: bool| if b { 1 } else { 0 };
        let mac = matches!(p, Platform::MacOS);
        let ios_family = !mac;
        s.push_str(&format!(
            "#define TARGET_OS_MAC 1\n#define TARGET_OS_OSX {}\n#define TARGET_OS_IPHONE {}\n#define TARGET_OS_IOS {}\n#define TARGET_OS_TV {}\n#define TARGET_OS_VISION {}\n#define TARGET_OS_MACCATALYST 0\n#define TARGET_OS_SIMULATOR 0\n#define TARGET_OS_EMBEDDED {}\n",
            flag(mac),
            flag(ios_family),
            flag(p == Platform::IOS),
            flag(p == Platform::TvOS),
            flag(p == Platform::VisionOS),
            flag(ios_family),
        ));
    }
    s
}

/// Macros Apple's headers define for their own declarations, which real code uses too.
const CONFIG_MACROS: &str = "\
#define METAL_FUNC inline __attribute__((__always_inline__))
#define METAL_INTERNAL
#define METAL_CONST_ARG(A) __attribute__((__const_arg__(A)))
#define __METAL_FAST_MATH__ true
#define __METAL_PRECISE_MATH__ false
";

const LIMIT_MACROS: &str = "\
#define CHAR_BIT 8
#define SCHAR_MAX 127
#define SCHAR_MIN (-127-1)
#define UCHAR_MAX 255
#define CHAR_MAX SCHAR_MAX
#define CHAR_MIN SCHAR_MIN
#define USHRT_MAX 65535
#define SHRT_MAX 32767
#define SHRT_MIN (-32767-1)
#define UINT_MAX 0xffffffff
#define INT_MAX 2147483647
#define INT_MIN (-2147483647-1)
#define ULONG_MAX 0xffffffffffffffffUL
#define LONG_MAX 0x7fffffffffffffffL
#define LONG_MIN (-0x7fffffffffffffffL-1)
#define FLT_DIG 6
#define FLT_MANT_DIG 24
#define FLT_MAX_10_EXP +38
#define FLT_MAX_EXP +128
#define FLT_MIN_10_EXP -37
#define FLT_MIN_EXP -125
#define FLT_RADIX 2
#define FLT_MAX 0x1.fffffep127f
#define FLT_MIN 0x1.0p-126f
#define FLT_EPSILON 0x1.0p-23f
#define HALF_DIG 3
#define HALF_MANT_DIG 11
#define HALF_MAX_10_EXP +4
#define HALF_MAX_EXP +16
#define HALF_MIN_10_EXP -4
#define HALF_MIN_EXP -13
#define HALF_RADIX 2
#define HALF_MAX 0x1.ffcp15h
#define HALF_MIN 0x1.0p-14h
#define HALF_EPSILON 0x1.0p-10h
";

const MATH_MACROS: &str = "\
#define MAXFLOAT 0x1.fffffep+127f
#define HUGE_VALF __builtin_huge_valf()
#define INFINITY __builtin_inff()
#define NAN __builtin_nanf(\"\")
#define M_E_F 2.71828182845904523536028747135266250f
#define M_LOG2E_F 1.44269504088896340735992468100189214f
#define M_LOG10E_F 0.434294481903251827651128918916605082f
#define M_LN2_F 0.693147180559945309417232121458176568f
#define M_LN10_F 2.30258509299404568401799145468436421f
#define M_PI_F 3.14159265358979323846264338327950288f
#define M_PI_2_F 1.57079632679489661923132169163975144f
#define M_PI_4_F 0.785398163397448309615660845819875721f
#define M_1_PI_F 0.318309886183790671537767526745028724f
#define M_2_PI_F 0.636619772367581343075535053490057448f
#define M_2_SQRTPI_F 1.12837916709551257389615890312154517f
#define M_SQRT2_F 1.41421356237309504880168872420969808f
#define M_SQRT1_2_F 0.707106781186547524400844362104849039f
#define MAXHALF 0x1.ffcp15h
#define HUGE_VALH ((half)__builtin_huge_valf())
#define M_E_H 2.71828182845904523536028747135266250h
#define M_LOG2E_H 1.44269504088896340735992468100189214h
#define M_LOG10E_H 0.434294481903251827651128918916605082h
#define M_LN2_H 0.693147180559945309417232121458176568h
#define M_LN10_H 2.30258509299404568401799145468436421h
#define M_PI_H 3.14159265358979323846264338327950288h
#define M_PI_2_H 1.57079632679489661923132169163975144h
#define M_PI_4_H 0.785398163397448309615660845819875721h
#define M_1_PI_H 0.318309886183790671537767526745028724h
#define M_2_PI_H 0.636619772367581343075535053490057448h
#define M_2_SQRTPI_H 1.12837916709551257389615890312154517h
#define M_SQRT2_H 1.41421356237309504880168872420969808h
#define M_SQRT1_2_H 0.707106781186547524400844362104849039h
";

const BFLOAT_MATH_MACROS: &str = "\
#define MAXBFLOAT 0x1.fep127bf
#define HUGE_VALBF ((bfloat)__builtin_huge_valf())
#define M_E_BF 2.71828182845904523536028747135266250bf
#define M_LOG2E_BF 1.44269504088896340735992468100189214bf
#define M_LOG10E_BF 0.434294481903251827651128918916605082bf
#define M_LN2_BF 0.693147180559945309417232121458176568bf
#define M_LN10_BF 2.30258509299404568401799145468436421bf
#define M_PI_BF 3.14159265358979323846264338327950288bf
#define M_PI_2_BF 1.57079632679489661923132169163975144bf
#define M_PI_4_BF 0.785398163397448309615660845819875721bf
#define M_1_PI_BF 0.318309886183790671537767526745028724bf
#define M_2_PI_BF 0.636619772367581343075535053490057448bf
#define M_2_SQRTPI_BF 1.12837916709551257389615890312154517bf
#define M_SQRT2_BF 1.41421356237309504880168872420969808bf
#define M_SQRT1_2_BF 0.707106781186547524400844362104849039bf
";

/// The predefined macros, as directive text processed before the main file.
pub fn predefines(config: &PpConfig) -> String {
    let v = config.version;
    let mut s = String::new();
    let mut def = |name: &str, value: &str| {
        s.push_str("#define ");
        s.push_str(name);
        s.push(' ');
        s.push_str(value);
        s.push('\n');
    };
    def("__METAL_VERSION__", &v.macro_value().to_string());
    if v >= MetalVersion::V3_0 {
        def("__METAL__", "1");
    }
    match config.platform {
        Platform::MacOS => def("__METAL_MACOS__", "1"),
        Platform::IOS | Platform::TvOS | Platform::VisionOS => def("__METAL_IOS__", "1"),
    }
    if v >= MetalVersion::V3_1 {
        def("__HAVE_BFLOAT__", "1");
    }
    def("__cplusplus", if v >= MetalVersion::V4_0 { "201703L" } else { "201402L" });
    def("__clang__", "1");
    def("__clang_major__", "17");
    def("__clang_minor__", "0");
    def("__clang_patchlevel__", "0");
    def("__APPLE__", "1");
    def("__APPLE_CC__", "6000");
    def("__AIR64__", "1");
    def("__air__", "1");
    def("__LITTLE_ENDIAN__", "1");
    def("__CHAR_BIT__", "8");
    def("__SIZEOF_INT__", "4");
    def("__SIZEOF_LONG__", "8");
    def("__SIZEOF_POINTER__", "8");
    def("__STDC_HOSTED__", "0");
    if config.fast_math {
        def("__FAST_MATH__", "1");
    }
    for (name, value) in &config.defines {
        def(name, value.as_deref().unwrap_or("1"));
    }
    for name in &config.undefines {
        s.push_str("#undef ");
        s.push_str(name);
        s.push('\n');
    }
    s
}

/// Answers `__has_attribute(name)` for the attributes the Metal compiler understands.
pub fn has_attribute(name: &str) -> bool {
    matches!(
        name.trim_start_matches("__").trim_end_matches("__"),
        "always_inline"
            | "noinline"
            | "packed"
            | "aligned"
            | "unused"
            | "used"
            | "const"
            | "pure"
            | "noreturn"
            | "deprecated"
            | "visibility"
            | "overloadable"
            | "nodiscard"
            | "maybe_unused"
            | "fallthrough"
            | "likely"
            | "unlikely"
            | "warn_unused_result"
            | "ext_vector_type"
            | "host_name"
            | "function_constant"
            | "visible"
            | "stitchable"
    )
}

/// Answers `__has_feature` / `__has_extension`: conservative, the GPU target has no
/// sanitizers, exceptions or RTTI.
pub fn has_feature(name: &str) -> bool {
    matches!(
        name,
        "cxx_static_assert"
            | "cxx_constexpr"
            | "cxx_decltype"
            | "cxx_alias_templates"
            | "cxx_variadic_templates"
            | "cxx_rvalue_references"
            | "cxx_auto_type"
            | "cxx_nullptr"
            | "cxx_lambdas"
            | "cxx_attributes"
            | "cxx_default_function_template_args"
            | "cxx_deleted_functions"
            | "cxx_defaulted_functions"
            | "cxx_explicit_conversions"
            | "cxx_range_for"
            | "cxx_strong_enums"
            | "cxx_trailing_return"
            | "cxx_unicode_literals"
            | "attribute_ext_vector_type"
    )
}

/// Answers `__has_builtin`: the clang builtins Metal code commonly tests for.
pub fn has_builtin(name: &str) -> bool {
    name.starts_with("__builtin_")
        && matches!(
            name,
            "__builtin_expect"
                | "__builtin_assume"
                | "__builtin_unreachable"
                | "__builtin_huge_valf"
                | "__builtin_inff"
                | "__builtin_nanf"
                | "__builtin_bitreverse32"
                | "__builtin_bitreverse64"
                | "__builtin_popcount"
                | "__builtin_clz"
                | "__builtin_ctz"
                | "__builtin_offsetof"
                | "__builtin_is_constant_evaluated"
        )
}
