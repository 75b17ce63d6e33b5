//! The codes of the semantic checks, documented like the syntax layer's.

use msl_syntax::Severity;
use msl_syntax::codes::CodeInfo;

/// Documentation for a code of any layer.
pub fn code_info(code: &str) -> Option<&'static CodeInfo> {
    CODES.iter().find(|c| c.code.eq_ignore_ascii_case(code)).or_else(|| msl_syntax::codes::code_info(code))
}

/// Every documented code: the syntax layer's and the checker's.
pub fn all_codes() -> impl Iterator<Item = &'static CodeInfo> {
    msl_syntax::codes::CODES.iter().chain(CODES.iter())
}

pub static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "W1101",
        name: "unknown-attribute",
        severity: Severity::Warning,
        summary: "An attribute name that Metal does not define",
        explanation: "The compiler ignores attributes it does not know, so a misspelt `[[buffer(0)]]` or \
                      `[[thread_position_in_grid]]` silently loses its meaning and the argument gets a \
                      default binding or none at all. The message suggests the closest Metal attribute.",
        bad: "kernel void k(device float *a [[bufer(0)]]) {}",
        good: "kernel void k(device float *a [[buffer(0)]]) {}",
    },
    CodeInfo {
        code: "E1102",
        name: "attribute-wrong-stage",
        severity: Severity::Error,
        summary: "A built-in input attribute used on a parameter of a stage that does not provide it",
        explanation: "Built-in inputs belong to particular stages: `[[thread_position_in_grid]]` exists in \
                      kernels, `[[vertex_id]]` in vertex functions, `[[front_facing]]` in fragment \
                      functions. Used elsewhere, the compiler rejects the function.",
        bad: "vertex float4 v(uint tid [[thread_position_in_grid]]) { return 0; }",
        good: "vertex float4 v(uint vid [[vertex_id]]) { return 0; }",
    },
    CodeInfo {
        code: "E1103",
        name: "attribute-type-mismatch",
        severity: Severity::Error,
        summary: "A built-in input attribute on a parameter whose type it cannot have",
        explanation: "Each built-in input has a fixed set of types: thread positions are `uint`, `uint2`, \
                      `uint3` or their `ushort` forms, `[[front_facing]]` is `bool`, and so on. The \
                      message lists the types the attribute accepts.",
        bad: "kernel void k(float tid [[thread_position_in_grid]]) {}",
        good: "kernel void k(uint tid [[thread_position_in_grid]]) {}",
    },
    CodeInfo {
        code: "E1104",
        name: "duplicate-binding-index",
        severity: Severity::Error,
        summary: "Two arguments of one function use the same buffer, texture, sampler or threadgroup index",
        explanation: "Each `[[buffer(n)]]`, `[[texture(n)]]`, `[[sampler(n)]]` and `[[threadgroup(n)]]` \
                      index names one binding slot; two arguments cannot share it. Arguments controlled \
                      by function constants are exempt, since only one of them exists at a time.",
        bad: "kernel void k(device float *a [[buffer(0)]], device float *b [[buffer(0)]]) {}",
        good: "kernel void k(device float *a [[buffer(0)]], device float *b [[buffer(1)]]) {}",
    },
    CodeInfo {
        code: "E1105",
        name: "multiple-stage-in",
        severity: Severity::Error,
        summary: "More than one `[[stage_in]]` parameter, or more than one `[[payload]]` of an object function",
        explanation: "A vertex or fragment function receives its per-vertex or per-fragment inputs through \
                      at most one `[[stage_in]]` argument; gather them into one struct. Likewise an object \
                      function exports one `[[payload]]` buffer to the mesh functions it launches (MSL 4.1 \
                      section 5.1.7).",
        bad: "fragment half4 f(A a [[stage_in]], B b [[stage_in]]) { return 0; }",
        good: "fragment half4 f(AB ab [[stage_in]]) { return 0; }",
    },
    CodeInfo {
        code: "E1106",
        name: "kernel-return-type",
        severity: Severity::Error,
        summary: "A kernel, mesh or object function that returns something other than `void`",
        explanation: "Kernels produce their results by writing to buffers or textures; their return type \
                      must be `void`. So must that of the mesh pipeline's object and mesh functions, which \
                      hand on their results through a `[[payload]]` and a `mesh<...>` parameter (MSL 4.1 \
                      sections 5.1.7 and 5.1.8).",
        bad: "kernel float k(uint i [[thread_position_in_grid]]) { return 1; }",
        good: "kernel void k(device float *out [[buffer(0)]], uint i [[thread_position_in_grid]]) { out[i] = 1; }",
    },
    CodeInfo {
        code: "E1107",
        name: "entry-point-missing-address-space",
        severity: Severity::Error,
        summary: "A pointer or reference argument of an entry point without an address space",
        explanation: "Arguments of kernel, vertex and fragment functions that point to memory must say which \
                      memory: `device` for read-write buffers, `constant` for read-only uniform data, \
                      `threadgroup` for memory shared in a threadgroup.",
        bad: "kernel void k(float *data [[buffer(0)]]) {}",
        good: "kernel void k(device float *data [[buffer(0)]]) {}",
    },
    CodeInfo {
        code: "E1108",
        name: "entry-point-argument-without-attribute",
        severity: Severity::Error,
        summary: "A scalar or vector argument of an entry point with no attribute",
        explanation: "Buffers, textures and samplers may omit their index attribute (the compiler assigns \
                      one), but a plain value such as `uint id` must say what it receives: a built-in \
                      input like `[[thread_position_in_grid]]`, or pass it in a buffer.",
        bad: "kernel void k(device float *a [[buffer(0)]], uint id) {}",
        good: "kernel void k(device float *a [[buffer(0)]], uint id [[thread_position_in_grid]]) {}",
    },
    CodeInfo {
        code: "E1109",
        name: "entry-point-size-type",
        severity: Severity::Error,
        summary: "An entry-point argument of type `size_t` or `ptrdiff_t`",
        explanation: "These types have no fixed size shared with the host, so entry points cannot take them.",
        bad: "kernel void k(size_t n [[buffer(0)]]) {}",
        good: "kernel void k(constant uint &n [[buffer(0)]]) {}",
    },
    CodeInfo {
        code: "E1110",
        name: "entry-argument-thread-space",
        severity: Severity::Error,
        summary: "A pointer or reference argument of an entry point in the `thread` address space",
        explanation: "An entry point receives memory the host or the pipeline provides: buffers in `device` or `constant` memory, \
                      and in kernels `threadgroup` memory. Memory of the `thread` address space belongs to one \
                      invocation and cannot be bound, so a `thread` pointer or reference argument is rejected \
                      (MSL 4.1 sections 4.3 and 5.2.1).",
        bad: "kernel void k(thread const float *w [[buffer(0)]]) {}",
        good: "kernel void k(constant float *w [[buffer(0)]]) {}",
    },
    CodeInfo {
        code: "E1111",
        name: "early-tests-not-fragment",
        severity: Severity::Error,
        summary: "`[[early_fragment_tests]]` on a function that is not a fragment function",
        explanation: "The attribute asks for the depth and stencil tests to run before a fragment function; it means nothing \
                      for kernels, vertex functions or helpers, and the compiler rejects it there (MSL 4.1 \
                      section 5.1.2).",
        bad: "[[early_fragment_tests]] kernel void k() {}",
        good: "[[early_fragment_tests]] fragment float4 f() { return 0; }",
    },
    CodeInfo {
        code: "E1112",
        name: "post-depth-coverage-without-early-tests",
        severity: Severity::Error,
        summary: "A `[[post_depth_coverage]]` input of a fragment function without `[[early_fragment_tests]]`",
        explanation: "The coverage after the depth and stencil tests exists only when those tests run before the fragment \
                      function, so an input marked `post_depth_coverage` requires the function to carry \
                      `[[early_fragment_tests]]` (MSL 4.1 section 5.2.3.4).",
        bad: "fragment float4 f(uint m [[sample_mask, post_depth_coverage]]) { return 0; }",
        good: "[[early_fragment_tests]] fragment float4 f(uint m [[sample_mask, post_depth_coverage]]) { return 0; }",
    },
    CodeInfo {
        code: "E1113",
        name: "overloaded-entry-point",
        severity: Severity::Error,
        summary: "Two entry points of one name",
        explanation: "The host finds an entry point by its name, so kernel, vertex and fragment functions cannot be \
                      overloaded: two of them with one name and different parameters are rejected (MSL 4.1 \
                      section 5.1).",
        bad: "kernel void blur(device float *a [[buffer(0)]]) {}\nkernel void blur(device half *a [[buffer(0)]]) {}",
        good: "kernel void blur_f(device float *a [[buffer(0)]]) {}\nkernel void blur_h(device half *a [[buffer(0)]]) {}",
    },
    CodeInfo {
        code: "E1114",
        name: "duplicate-host-name",
        severity: Severity::Error,
        summary: "Two entry points that the Metal API would find under one name",
        explanation: "The Metal API looks an entry point up by its host name: the string of its \
                      `[[host_name(\"...\")]]` attribute (Metal 2.2 and later), else the function's own \
                      name. Explicit instantiations of a template entry point all carry the template's \
                      name unless each is given a host name (MSL 4.1 section 5.1). Two entry points with \
                      one host name are rejected.",
        bad: "template <typename T> kernel void fill(device T* p) { p[0] = T(0); }\ntemplate kernel void fill(device int*);\ntemplate kernel void fill(device float*);",
        good: "template <typename T> kernel void fill(device T* p) { p[0] = T(0); }\ntemplate [[host_name(\"fill_i\")]] kernel void fill(device int*);\ntemplate [[host_name(\"fill_f\")]] kernel void fill(device float*);",
    },
    CodeInfo {
        code: "E1201",
        name: "goto-not-supported",
        severity: Severity::Error,
        summary: "`goto` is not part of Metal",
        explanation: "Metal leaves `goto` out of its C++ dialect.",
        bad: "for (;;) { if (done) goto out; }\nout:;",
        good: "for (;;) { if (done) break; }",
    },
    CodeInfo {
        code: "E1202",
        name: "virtual-not-supported",
        severity: Severity::Error,
        summary: "Virtual functions are not part of Metal",
        explanation: "GPU code has no virtual dispatch; use templates, or visible function tables for \
                      dynamic calls.",
        bad: "struct Shape { virtual float area() const; };",
        good: "struct Circle { float r; float area() const { return M_PI_F * r * r; } };",
    },
    CodeInfo {
        code: "E1203",
        name: "exceptions-not-supported",
        severity: Severity::Error,
        summary: "`try`, `catch` and `throw` are not part of Metal",
        explanation: "Metal has no exceptions. Report failures through return values or an output buffer.",
        bad: "if (i >= n) throw 1;",
        good: "if (i >= n) { status[0] = 1; return; }",
    },
    CodeInfo {
        code: "E1204",
        name: "dynamic-allocation-not-supported",
        severity: Severity::Error,
        summary: "`new` without a placement address, or `delete`",
        explanation: "GPU functions cannot allocate memory. Placement new (Metal 4.1) constructs an object \
                      in memory you already have.",
        bad: "device int *p = new int;",
        good: "device int *p = new (mem) device int;",
    },
    CodeInfo {
        code: "E1205",
        name: "dynamic-cast-not-supported",
        severity: Severity::Error,
        summary: "`dynamic_cast` is not part of Metal",
        explanation: "There is no runtime type information on the GPU.",
        bad: "auto d = dynamic_cast<thread Derived *>(b);",
        good: "auto d = static_cast<thread Derived *>(b);",
    },
    CodeInfo {
        code: "E1206",
        name: "typeid-not-supported",
        severity: Severity::Error,
        summary: "`typeid` is not part of Metal",
        explanation: "There is no runtime type information on the GPU; compare types at compile time with \
                      `is_same_v`.",
        bad: "bool f = typeid(T) == typeid(float);",
        good: "constexpr bool f = metal::is_same_v<T, float>;",
    },
    CodeInfo {
        code: "E1207",
        name: "double-not-supported",
        severity: Severity::Error,
        summary: "`double`, `long double` or `long long`: types Metal does not have",
        explanation: "Metal GPUs have no 64-bit floating point; `float` is the widest floating type. The \
                      widest integers are `long` and `ulong`, which are 64 bits wide, so `long long` has \
                      no place either.",
        bad: "double x = 1.0;",
        good: "float x = 1.0f;",
    },
    CodeInfo {
        code: "E1208",
        name: "placement-new-version",
        severity: Severity::Error,
        summary: "Placement `new` before Metal 4.1",
        explanation: "Placement new became part of Metal in version 4.1.",
        bad: "// --std metal3.2\ndevice int *p = new (mem) device int;",
        good: "// --std metal4.1\ndevice int *p = new (mem) device int;",
    },
    CodeInfo {
        code: "E1209",
        name: "lambda-version",
        severity: Severity::Error,
        summary: "A lambda expression before Metal 3.2",
        explanation: "Lambda expressions became part of Metal in version 3.2.",
        bad: "// --std metal3.1\nauto twice = [](float x) { return 2 * x; };",
        good: "// --std metal3.2\nauto twice = [](float x) { return 2 * x; };",
    },
    CodeInfo {
        code: "E1210",
        name: "noexcept-operator-not-supported",
        severity: Severity::Error,
        summary: "The `noexcept(expression)` operator is not part of Metal",
        explanation: "Metal has no exceptions, and leaves out the operator that asks whether an expression \
                      may throw. A `noexcept` specifier on a function is still accepted.",
        bad: "constexpr bool safe = noexcept(f());",
        good: "constexpr bool safe = true;",
    },
    CodeInfo {
        code: "E1211",
        name: "storage-class-not-supported",
        severity: Severity::Error,
        summary: "`register` or `thread_local`: storage classes Metal does not have",
        explanation: "Metal removes both storage classes. Where a variable lives is said by its address \
                      space (`thread`, `threadgroup`, `device`, `constant`) instead.",
        bad: "thread_local int counter = 0;",
        good: "int counter = 0;",
    },
    CodeInfo {
        code: "W1212",
        name: "cxx17-feature-before-metal-4",
        severity: Severity::Warning,
        summary: "A C++17 feature in a file checked as a Metal version before 4.0",
        explanation: "Metal 4.0 is based on C++17; earlier versions are based on C++14. Apple's compiler \
                      accepts structured bindings, `if constexpr`, init-statements in `if` and `switch`, \
                      fold expressions, deduction guides, nested namespace definitions, inline variables, \
                      `auto` template parameters, `static_assert` without a message, using-declarations \
                      of several names and `[[using ns: ...]]` under the older versions too, but only as \
                      extensions, with a warning. (The C++17 attributes such as `[[maybe_unused]]` are \
                      accepted without one.)",
        bad: "// --std metal3.2\nif constexpr (N > 4) { return 1; }",
        good: "// --std metal4.0\nif constexpr (N > 4) { return 1; }",
    },
    CodeInfo {
        code: "W1301",
        name: "function-newer-than-target",
        severity: Severity::Warning,
        summary: "A library function documented for a newer Metal version than the file is checked as",
        explanation: "Every library function first appears in some Metal version. Code that calls a newer \
                      one may not build, or may not run, on the older targets it is meant for (compilers \
                      accept some such uses, so this is a warning). Raise `--std` (or `std` in `msl.toml`) \
                      if you target that version, or guard the call with `#if __METAL_VERSION__ >= ...`.",
        bad: "// --std metal2.3\nfloat v = simd_shuffle_and_fill_down(x, y, 1u);",
        good: "#if __METAL_VERSION__ >= 240\nfloat v = simd_shuffle_and_fill_down(x, y, 1u);\n#endif",
    },
    CodeInfo {
        code: "W1302",
        name: "type-newer-than-target",
        severity: Severity::Warning,
        summary: "A library type documented for a newer Metal version than the file is checked as",
        explanation: "Types such as `bfloat` (Metal 3.1) or `tensor` (Metal 4) are documented for newer \
                      versions; code using them may not build for older targets.",
        bad: "// --std metal3.0\nbfloat b = 1.0bf;",
        good: "// --std metal3.1\nbfloat b = 1.0bf;",
    },
    CodeInfo {
        code: "E1401",
        name: "undeclared-name",
        severity: Severity::Error,
        summary: "A name used in an expression that nothing declares",
        explanation: "The name is not a local variable or parameter of the function, not declared anywhere in \
                      the file or the headers it includes, and not part of the Metal library. Usually a typo \
                      (the message suggests the closest known name) or a missing `#include`. The check stays \
                      silent where it cannot see every declaration: in files that include headers it could not \
                      find or does not model, in members of classes with base classes, and for calls in \
                      templates (those may be found when the template is instantiated).",
        bad: "float4 c = float4(colour.rgb, 1.0f); // declared as `color`",
        good: "float4 c = float4(color.rgb, 1.0f);",
    },
    CodeInfo {
        code: "E1406",
        name: "redeclared-local",
        severity: Severity::Error,
        summary: "A local variable or parameter declared twice in one scope",
        explanation: "Within one block a name can be declared once (C++17 [basic.scope.block]). The same \
                      holds between a function's parameters and the outermost block of its body, and \
                      between the variable of a `for` statement or of an `if`, `while` or `switch` \
                      condition and the outermost block of the statement's body: declaring the name again \
                      there is an error, not a new variable that hides the first. A name declared in an \
                      inner block does hide the outer one, and is not reported.",
        bad: "float fade(float t) {\n    float t = t * t;\n    return t;\n}",
        good: "float fade(float t) {\n    float t2 = t * t;\n    return t2;\n}",
    },
    CodeInfo {
        code: "E1407",
        name: "redefinition",
        severity: Severity::Error,
        summary: "A function, class, variable, enumerator or member defined twice in one scope",
        explanation: "A function may be declared many times but given one body per parameter list, and a member function \
                      is declared once in its class (C++17 [basic.def.odr], [class.mem]). A class, a variable \
                      of a namespace, an enumerator or a data member is defined once in its scope; the \
                      enumerators of an unscoped enum belong to the enclosing scope, so two such enums cannot \
                      share one. Templates and `extern` declarations are not judged.",
        bad: "constant float kGamma = 2.2f;\nconstant float kGamma = 2.4f;",
        good: "constant float kGamma = 2.2f;\nconstant float kGammaOut = 2.4f;",
    },
    CodeInfo {
        code: "E1408",
        name: "overload-by-return-type",
        severity: Severity::Error,
        summary: "Two functions of one scope that differ only in their return type",
        explanation: "Overloads are told apart by their parameters, never by what they return (C++17 [over.load]): two \
                      declarations with the same parameters and different return types conflict.",
        bad: "float luma(float3 c);\nhalf luma(float3 c);",
        good: "float luma(float3 c);\nhalf luma_h(float3 c);",
    },
    CodeInfo {
        code: "E1409",
        name: "definition-without-declaration",
        severity: Severity::Error,
        summary: "A member function defined outside its class that the class does not declare",
        explanation: "A member function defined outside its class (`float S::f(float x) const { ... }`) must match one the \
                      class declares, with the same number of parameters and the same `const` (C++17 \
                      [class.mfct]). A definition that matches none, or names a member the class does not \
                      have, is rejected. Members of class templates and of classes with bases are not judged.",
        bad: "struct S { float f(float x) const; };\nfloat S::f(float x) { return x; }",
        good: "struct S { float f(float x) const; };\nfloat S::f(float x) const { return x; }",
    },
    CodeInfo {
        code: "E1410",
        name: "function-partial-specialization",
        severity: Severity::Error,
        summary: "A function template written as a partial specialization",
        explanation: "Only class templates can be partially specialized (C++17 [temp.fct.spec]); a \
                      function template with parameters of its own and template arguments after its \
                      name is rejected. Overload the function instead, or forward to a class template \
                      that is specialized.",
        bad: "template <typename B, uint A> float extent(B b);\ntemplate <typename B> float extent<B, 1>(B b);",
        good: "template <typename B, uint A> float extent(B b);\ntemplate <typename B> float extent_y(B b);",
    },
    CodeInfo {
        code: "E1411",
        name: "incomplete-member-type",
        severity: Severity::Error,
        summary: "A data member whose class is defined only later in the file",
        explanation: "A member held by value needs its type's size, so the type must be defined before the \
                      class that contains it (C++17 [class.mem]); a forward declaration (`struct B;`) is not \
                      enough. Move the definition up, or hold the member through a pointer.",
        bad: "struct B;\nstruct A { B box; };\nstruct B { float3 lo, hi; };",
        good: "struct B { float3 lo, hi; };\nstruct A { B box; };",
    },
    CodeInfo {
        code: "E1412",
        name: "missing-typename",
        severity: Severity::Error,
        summary: "A name qualified by a template parameter used as a type without `typename`",
        explanation: "Inside a template, `T::value_type` depends on what `T` will be, and C++17 \
                      [temp.res] reads such a name as a value unless `typename` says it is a type. Return \
                      and parameter types, aliases, typedefs and variable declarations that name one need \
                      the keyword. (Base classes and member initializers do not.)",
        bad: "template <typename B> B::value_type head(B b) { return b.v; }",
        good: "template <typename B> typename B::value_type head(B b) { return b.v; }",
    },
    CodeInfo {
        code: "E1413",
        name: "ambiguous-name",
        severity: Severity::Error,
        summary: "A variable's name that lookup finds in two namespaces through using-directives",
        explanation: "A using-directive makes a namespace's names visible as if they were declared in the \
                      enclosing namespace; when two such namespaces (or one and the global namespace) both \
                      declare a variable of a name, an unqualified use of it refers to neither \
                      (C++17 [namespace.udir]/6). Qualify the name.",
        bad: "namespace a { constant float k = 1.0f; }\nnamespace b { constant float k = 2.0f; }\nusing namespace a;\nusing namespace b;\nfloat f() { return k; }",
        good: "namespace a { constant float k = 1.0f; }\nnamespace b { constant float k = 2.0f; }\nusing namespace a;\nusing namespace b;\nfloat f() { return a::k; }",
    },
    CodeInfo {
        code: "E1402",
        name: "library-call-arity",
        severity: Severity::Error,
        summary: "A library function called with a number of arguments none of its overloads takes",
        explanation: "The count is compared with every overload of the Metal library function (parameters \
                      with default values may be left out). A file that declares its own function of the same \
                      name is left alone, since its overloads take part too. The message shows a signature \
                      close to the call.",
        bad: "float c = clamp(x, 0.0f);",
        good: "float c = clamp(x, 0.0f, 1.0f);",
    },
    CodeInfo {
        code: "E1403",
        name: "call-arity",
        severity: Severity::Error,
        summary: "A function of the file called with a number of arguments none of its declarations takes",
        explanation: "Every function of that name declared in the file and its headers (parameters with \
                      default values may be left out) is compared with the call. Names that are also \
                      variables, fields or template parameters, and files whose headers are not all known, \
                      are left alone.",
        bad: "float area(float w, float h) { return w * h; }\nfloat a = area(2.0f);",
        good: "float area(float w, float h) { return w * h; }\nfloat a = area(2.0f, 3.0f);",
    },
    CodeInfo {
        code: "W1404",
        name: "template-call-arity",
        severity: Severity::Warning,
        summary: "A call in a template with a number of arguments no function of that name takes",
        explanation: "Calls in templates are compiled when the template is instantiated, so a template that \
                      is never instantiated builds even with this call; once it is, the call fails unless \
                      argument-dependent lookup finds an overload declared elsewhere. Usually a leftover \
                      from a change of the callee's parameters.",
        bad: "template <typename T> void g(T x) { helper(x, x); } // helper takes one argument",
        good: "template <typename T> void g(T x) { helper(x); }",
    },
    CodeInfo {
        code: "E1501",
        name: "texture-access",
        severity: Severity::Error,
        summary: "A texture member that the texture's access qualifier does not allow",
        explanation: "A texture's access qualifier (`access::sample`, the default for most texture types, \
                      `access::read`, `access::write` or `access::read_write`) decides which members exist: \
                      `sample` and `gather` need `access::sample`, `write` needs `access::write` or \
                      `access::read_write`, atomics and `fence` need `access::read_write`.",
        bad: "kernel void k(texture2d<float, access::read> t [[texture(0)]], uint2 p [[thread_position_in_grid]]) {\n    t.write(float4(1), p);\n}",
        good: "kernel void k(texture2d<float, access::read_write> t [[texture(0)]], uint2 p [[thread_position_in_grid]]) {\n    t.write(float4(1), p);\n}",
    },
    CodeInfo {
        code: "E1502",
        name: "sample-without-sampler",
        severity: Severity::Error,
        summary: "Sampling or gathering from a texture without passing a sampler",
        explanation: "`sample`, `sample_compare`, `gather` and `gather_compare` take the sampler first and the \
                      coordinate second. Declare a `sampler` argument (`[[sampler(n)]]`) or a \
                      `constexpr sampler` in the shader and pass it.",
        bad: "float4 c = tex.sample(uv);",
        good: "constexpr sampler s(filter::linear);\nfloat4 c = tex.sample(s, uv);",
    },
    CodeInfo {
        code: "E1701",
        name: "invalid-swizzle",
        severity: Severity::Error,
        summary: "A component selection that the vector does not allow",
        explanation: "Vector components are selected with letters from one set, `xyzw` or `rgba`, never \
                      both in one selection; only the vector's own components (a `float2` has `x` and `y`), \
                      at most four at a time; a selection that is assigned to may not name a component \
                      twice; and a selection of several components has no address.",
        bad: "float2 uv;\nfloat z = uv.z;\nc.xx = float2(1.0f);",
        good: "float3 uvw;\nfloat z = uvw.z;\nc.xy = float2(1.0f);",
    },
    CodeInfo {
        code: "E1702",
        name: "invalid-conversion",
        severity: Severity::Error,
        summary: "A vector or matrix value used where no implicit conversion to the target type exists",
        explanation: "Metal converts scalars to scalars, and a scalar to a vector by replicating it, \
                      implicitly; it never converts a vector to a vector of another size or element type, a \
                      vector to a scalar, or anything to or from a matrix. Select components (`.xyz`) or \
                      convert explicitly (`float3(v)`). The check applies where both types follow from \
                      builtin types: literals, variables and parameters, constructors, components, \
                      arithmetic.",
        bad: "float4 c = float4(1.0f);\nfloat3 rgb = c;",
        good: "float4 c = float4(1.0f);\nfloat3 rgb = c.rgb;",
    },
    CodeInfo {
        code: "E1703",
        name: "operand-types",
        severity: Severity::Error,
        summary: "An operator between vectors of different types, or a matrix product whose sizes do not match",
        explanation: "Arithmetic and comparisons between two vectors need the same vector type on both sides \
                      (a scalar on either side is fine). A matrix with C columns and R rows multiplies a vector \
                      of C components on its right (giving R components), a vector of R components on its \
                      left, or a matrix with C rows.",
        bad: "float4 a; float3 b;\nfloat4 s = a + b;",
        good: "float4 a; float3 b;\nfloat4 s = a + float4(b, 0.0f);",
    },
    CodeInfo {
        code: "E1705",
        name: "vector-construction",
        severity: Severity::Error,
        summary: "A vector constructor whose arguments do not supply exactly its components",
        explanation: "A vector built from several arguments takes their components in order, and they must \
                      add up to its size: `float4(rgb, 1.0f)`, `float4(uv, 0.0f, 1.0f)`. Fewer or more \
                      components do not compile. (A single argument is a conversion: one scalar fills every \
                      component, one vector is converted.) The check applies where every argument's type is \
                      known.",
        bad: "float3 rgb;\nfloat4 p = float4(rgb, 0.0f, 1.0f);",
        good: "float3 rgb;\nfloat4 p = float4(rgb, 1.0f);",
    },
    CodeInfo {
        code: "E1706",
        name: "address-space-mismatch",
        severity: Severity::Error,
        summary: "A pointer into one address space initialized with or assigned a pointer into another",
        explanation: "Every pointer in Metal carries the address space it points into (`device`, \
                      `constant`, `threadgroup`, `thread`, ...), and no conversion crosses them: a \
                      `thread float *` cannot hold the address of `device` memory. Declare the pointer with \
                      the space of what it points to. The check applies to pointer variables and parameters \
                      declared with an explicit address space.",
        bad: "kernel void k(device float *buf [[buffer(0)]]) {\n    thread float *p = buf;\n}",
        good: "kernel void k(device float *buf [[buffer(0)]]) {\n    device float *p = buf;\n}",
    },
    CodeInfo {
        code: "E1704",
        name: "const-write",
        severity: Severity::Error,
        summary: "An assignment, increment or decrement of a variable or parameter declared `const`",
        explanation: "A variable or parameter declared `const` or `constexpr` keeps the value it was \
                      initialized with: assigning to it, compound assignment (`+=`) and `++`/`--` do not \
                      compile. Declare it without `const`, or compute the new value into another variable. \
                      The same holds for what is reached through a reference or pointer to `const` \
                      (C++17 [dcl.type.cv]), for the members of such an object, and for the members of \
                      the class in its `const` member functions. Checked outside templates.",
        bad: "const float scale = 2.0f;\nscale *= 0.5f;",
        good: "float scale = 2.0f;\nscale *= 0.5f;",
    },
    CodeInfo {
        code: "E1707",
        name: "member-access-operator",
        severity: Severity::Error,
        summary: "`.` used on a pointer, or `->` on a value that is not one",
        explanation: "A member of a struct is reached with `.` from the struct itself (or a reference to \
                      it) and with `->` from a pointer to it. Buffers arrive in kernels as pointers \
                      (`device Particle *ps`), so `ps->mass` or `ps[i].mass`, while a local copy or a \
                      `constant Params &p` reference takes `.`. The quick fix swaps the operator. Reported \
                      where the types are known for sure and outside templates.",
        bad: "kernel void k(device Particle *p [[buffer(0)]]) { p.mass = 1.0f; }",
        good: "kernel void k(device Particle *p [[buffer(0)]]) { p->mass = 1.0f; }",
    },
    CodeInfo {
        code: "E1709",
        name: "too-many-initializers",
        severity: Severity::Error,
        summary: "A brace initializer with more values than the array or struct holds",
        explanation: "An array of N elements takes at most N values in braces, and a struct without \
                      constructors takes at most one value per field. Extra values do not compile. The \
                      check covers arrays of scalars or pointers with a literal size and structs whose \
                      fields are all scalars, pointers or enums, where the count is exact.",
        bad: "float weights[3] = {0.25f, 0.5f, 0.25f, 0.0f};",
        good: "float weights[4] = {0.25f, 0.5f, 0.25f, 0.0f};",
    },
    CodeInfo {
        code: "E1711",
        name: "matrix-construction",
        severity: Severity::Error,
        summary: "A matrix built from arguments none of its constructors takes",
        explanation: "A matrix with C columns and R rows is built from one scalar (placed on the \
                      diagonal, zeros elsewhere), from another matrix with the same columns and rows, \
                      from C vectors of R components (the columns), or from C times R scalars in \
                      column order. Vectors and scalars cannot be mixed, and a vector of the wrong size \
                      or the wrong number of columns does not compile. Only arguments whose types are \
                      all known are judged.",
        bad: "float3x3 basis = float3x3(tangent, bitangent);  // two float3 columns for three",
        good: "float3x3 basis = float3x3(tangent, bitangent, normal);",
    },
    CodeInfo {
        code: "E1710",
        name: "no-matching-overload",
        severity: Severity::Error,
        summary: "A call to an overloaded function of the program that none of its overloads accepts",
        explanation: "When a program declares several functions of one name, a call picks the one whose \
                      parameters the arguments convert to. If some overloads take that many arguments but \
                      each has a parameter the matching argument cannot become (a `float4` where a \
                      `float3` is expected, a pointer into the wrong address space), the call does not \
                      compile. The message shows the argument types (`_` where a type is not known) and \
                      the hint lists the overloads that were tried. Templates and class members are left \
                      to the compiler.",
        bad: "float3 tint(float3 c);\nhalf3 tint(half3 c);\nfloat3 t = tint(color);  // color is a float4",
        good: "float3 t = tint(color.rgb);",
    },
    CodeInfo {
        code: "E1708",
        name: "library-argument-types",
        severity: Severity::Error,
        summary: "A library function called with vectors of sizes none of its overloads takes",
        explanation: "Metal never converts a vector to a vector of another size or to a scalar, so \
                      `dot(a.xyz, b)` with a `float4` `b`, `cross` on four-component vectors or \
                      `distance` between a `float2` and a `float3` find no overload. The message lists \
                      the argument types and the hint the signatures that were tried. Scalars are never \
                      held against a call (they convert and spread to vectors), and arguments whose type \
                      is not known are left out, so only mismatched vector shapes are reported.",
        bad: "float d = dot(n.xyz, light);  // light is a float4",
        good: "float d = dot(n.xyz, light.xyz);",
    },
    CodeInfo {
        code: "E1601",
        name: "constant-write",
        severity: Severity::Error,
        summary: "A write to memory in the read-only `constant` address space",
        explanation: "Buffers bound as `constant` and program-scope `constant` variables are read-only: \
                      assigning through a `constant` pointer or reference, or to a `constant` variable, does \
                      not compile. Moving the pointer itself (`p++`) is fine, and so is writing through a \
                      `device` pointer that is stored in constant memory (argument buffers).",
        bad: "kernel void k(constant float *in [[buffer(0)]]) {\n    in[0] = 1.0f;\n}",
        good: "kernel void k(device float *in [[buffer(0)]]) {\n    in[0] = 1.0f;\n}",
    },
    CodeInfo {
        code: "E1603",
        name: "threadgroup-variable-placement",
        severity: Severity::Error,
        summary: "A `threadgroup` variable declared outside a kernel, mesh or object function",
        explanation: "Threadgroup memory is allocated per threadgroup when a kernel (or mesh or object \
                      function) runs, so only those functions can declare `threadgroup` variables. Helpers \
                      take a `threadgroup` pointer to memory the kernel declared.",
        bad: "void helper() {\n    threadgroup float scratch[64];\n}",
        good: "void helper(threadgroup float *scratch) {\n    scratch[0] = 0.0f;\n}",
    },
    CodeInfo {
        code: "W1604",
        name: "threadgroup-memory-size",
        severity: Severity::Warning,
        summary: "A function's threadgroup variables take more than 32 KB",
        explanation: "Most Apple GPUs provide 32 KB of threadgroup memory per threadgroup (the exact limit is \
                      a device property). Above the limit the compute pipeline fails to build. The sum counts \
                      variables of builtin types with sizes known from literals or program-scope constants.",
        bad: "threadgroup float4 tile[4096]; // 64 KB",
        good: "threadgroup half4 tile[2048];  // 16 KB",
    },
    CodeInfo {
        code: "E1604",
        name: "program-scope-address-space",
        severity: Severity::Error,
        summary: "A variable at program scope that is not in the `constant` address space",
        explanation: "Variables outside functions live as long as the program and are shared by every \
                      thread, so Metal requires them to be `constant`: read-only and initialized where \
                      they are declared (MSL 4.1 section 4.2). `constexpr` variables are constant too. \
                      Per-dispatch data is passed to the entry points as buffers instead. Variables that \
                      carry attributes (built-in inputs and bindings at program scope, function \
                      constants) follow rules of their own and are not reported.",
        bad: "float exposure = 1.0f;",
        good: "constant float exposure = 1.0f;",
    },
    CodeInfo {
        code: "E1605",
        name: "constant-without-initializer",
        severity: Severity::Error,
        summary: "A program-scope `constant` variable without an initializer",
        explanation: "Nothing can write a `constant` variable after its declaration, so it must be \
                      initialized there (MSL 4.1 section 4.2). A value chosen when the pipeline is built \
                      is a function constant (`[[function_constant(n)]]`), which needs no initializer.",
        bad: "constant float3 luma_weights;",
        good: "constant float3 luma_weights = float3(0.2126f, 0.7152f, 0.0722f);",
    },
    CodeInfo {
        code: "E1606",
        name: "static-local-in-entry-point",
        severity: Severity::Error,
        summary: "A `static` variable declared in a kernel, vertex or fragment function",
        explanation: "`static` is for variables at program scope (MSL 4.1 section 5.3); an entry point \
                      cannot keep state between invocations in a `static` local. Use a program-scope \
                      `constant` for a fixed value, or a buffer for state that changes.",
        bad: "kernel void k(device float *o [[buffer(0)]]) { static float scale = 2.0f; o[0] = scale; }",
        good: "constant float scale = 2.0f;\nkernel void k(device float *o [[buffer(0)]]) { o[0] = scale; }",
    },
    CodeInfo {
        code: "E1607",
        name: "function-constant-type",
        severity: Severity::Error,
        summary: "A function constant of an array or class type",
        explanation: "Function constants are set when a pipeline is made, one scalar or vector at a time; an array or a \
                      structure cannot be one (MSL 4.1 section 5.8.1). Declare one function constant per value.",
        bad: "struct S { float a, b; };\nconstant S k [[function_constant(0)]];",
        good: "constant float ka [[function_constant(0)]];\nconstant float kb [[function_constant(1)]];",
    },
    CodeInfo {
        code: "E1608",
        name: "local-texture-access",
        severity: Severity::Error,
        summary: "A texture variable declared in a function with write access",
        explanation: "A texture declared inside a function is a copy of a handle the function received, and it may only be \
                      read or sampled: `access::read` or `access::sample` (MSL 4.1 section 2.9). Write through \
                      the argument itself.",
        bad: "texture2d<float, access::write> t = out;",
        good: "texture2d<float, access::read> t = in;",
    },
    CodeInfo {
        code: "E1801",
        name: "static-assert-failed",
        severity: Severity::Error,
        summary: "A `static_assert` whose condition is false",
        explanation: "The condition of a `static_assert` is computed while compiling: constants, \
                      enumerators, `sizeof`, type traits and `constexpr` functions. When it is false the \
                      compiler stops with the assertion's message. In a template the condition is checked \
                      for each instantiation; the message names the template arguments that broke it.",
        bad: "static_assert(sizeof(float3) == 12, \"float3 is packed\");",
        good: "static_assert(sizeof(packed_float3) == 12, \"packed_float3 is packed\");",
    },
    CodeInfo {
        code: "E1802",
        name: "constant-evaluation-limit",
        severity: Severity::Error,
        summary: "A constant expression whose evaluation does not end in the compiler's limits",
        explanation: "Constant evaluation gives up after about a million steps or 512 nested calls, as \
                      clang does: a `constexpr` loop that never ends or a recursion without a base case \
                      makes the expression not constant, and the compiler rejects it where a constant is \
                      required.",
        bad: "constexpr int spin(int n) { while (n > 0) {} return n; }\nstatic_assert(spin(1) == 0, \"\");",
        good: "constexpr int spin(int n) { while (n > 0) { --n; } return n; }\nstatic_assert(spin(1) == 0, \"\");",
    },
    CodeInfo {
        code: "E1803",
        name: "constant-division-by-zero",
        severity: Severity::Error,
        summary: "A division or remainder by zero while computing a constant",
        explanation: "Dividing by zero has no value, so an expression that does it while being computed \
                      at compile time (directly, or inside a `constexpr` function it calls) is not a \
                      constant, and the compiler rejects it where a constant is required.",
        bad: "constexpr uint gcd(uint a, uint b) { return gcd(b, a % b); }\nstatic_assert(gcd(4, 2) == 2, \"\");",
        good: "constexpr uint gcd(uint a, uint b) { return b == 0 ? a : gcd(b, a % b); }\nstatic_assert(gcd(4, 2) == 2, \"\");",
    },
    CodeInfo {
        code: "E1804",
        name: "runaway-instantiation",
        severity: Severity::Error,
        summary: "A template that instantiates itself without end",
        explanation: "Each call of a function template with new arguments makes a new instantiation, \
                      whose body may call another. When every instantiation asks for one more (a \
                      recursion on a template argument with no specialization or `if constexpr` to end \
                      it, or arguments that grow at each step) the chain never ends: the compiler stops \
                      at 1024 nested instantiations, and this analysis also stops after 4096 in all. \
                      The report is at the call that asks for the one too many; the related place is \
                      where the chain started.",
        bad: "template <int N> int sum() { return N + sum<N - 1>(); }\nkernel void k(device int *o) { o[0] = sum<4>(); }",
        good: "template <int N> int sum() { if constexpr (N == 0) { return 0; } else { return N + sum<N - 1>(); } }\nkernel void k(device int *o) { o[0] = sum<4>(); }",
    },
    CodeInfo {
        code: "E1712",
        name: "return-without-value",
        severity: Severity::Error,
        summary: "A `return` without a value in a function that returns one",
        explanation: "A function declared with a return type other than `void` must give a value to every \
                      `return` (C++17 [stmt.return]). Falling back to `return;` leaves the caller with no \
                      value, and the compiler rejects it.",
        bad: "float half_of(float x) {\n    if (x < 0.0f) return;\n    return x * 0.5f;\n}",
        good: "float half_of(float x) {\n    if (x < 0.0f) return 0.0f;\n    return x * 0.5f;\n}",
    },
    CodeInfo {
        code: "E1713",
        name: "return-value-from-void",
        severity: Severity::Error,
        summary: "A `return` with a value in a function that returns `void`",
        explanation: "A `void` function, kernels included, returns no value: `return` takes no expression \
                      there, except one that is itself of type `void` (C++17 [stmt.return]). Kernels write \
                      their results through their buffer and texture arguments.",
        bad: "kernel void k(device float *out [[buffer(0)]]) {\n    return 1;\n}",
        good: "kernel void k(device float *out [[buffer(0)]]) {\n    out[0] = 1.0f;\n    return;\n}",
    },
    CodeInfo {
        code: "E1714",
        name: "no-such-member",
        severity: Severity::Error,
        summary: "A member access naming a member the class does not have",
        explanation: "`s.m` and `p->m` look `m` up in the class of `s` (C++17 [expr.ref]). When the class is \
                      defined in the unit, has no base classes and is not a template, all its members are \
                      known, and a name that is none of them is an error; the message suggests the closest \
                      member.",
        bad: "struct Light { float3 color; float power; };\nfloat f(Light l) { return l.intensity; }",
        good: "struct Light { float3 color; float power; };\nfloat f(Light l) { return l.power; }",
    },
    CodeInfo {
        code: "E1715",
        name: "not-assignable",
        severity: Severity::Error,
        summary: "An assignment, increment or decrement of a temporary value",
        explanation: "Only an object can be written (C++17 [expr.ass]): a variable, a parameter, an element, \
                      a member, or what a pointer points to. The result of arithmetic, of a call to a \
                      function that returns by value, a literal or a conversion is a temporary value, and \
                      assigning to it does not compile. Usually the assignment's sides are swapped, or \
                      the function was meant to return a reference. Temporaries of class type are not \
                      reported, since a class's own `operator=` may be called on them.",
        bad: "float luma(float3 c) { return dot(c, float3(0.3f, 0.59f, 0.11f)); }\nvoid f(float3 c, float y) { luma(c) = y; }",
        good: "float luma(float3 c) { return dot(c, float3(0.3f, 0.59f, 0.11f)); }\nvoid f(float3 c, thread float &y) { y = luma(c); }",
    },
    CodeInfo {
        code: "E1716",
        name: "condition-type",
        severity: Severity::Error,
        summary: "A vector used as the condition of `if`, `while`, `do` or `for`",
        explanation: "A statement's condition must convert to one `bool` (C++17 [stmt.select]). Comparing \
                      vectors compares each component and gives a vector of `bool` (MSL 4.1 section 3), \
                      which does not convert: reduce it with `all(...)` (every component) or `any(...)` \
                      (at least one).",
        bad: "void f(float3 c, thread float &out) { if (c > 0.5f) out = 1.0f; }",
        good: "void f(float3 c, thread float &out) { if (all(c > 0.5f)) out = 1.0f; }",
    },
    CodeInfo {
        code: "E1717",
        name: "not-callable",
        severity: Severity::Error,
        summary: "A call of a variable that is not a function",
        explanation: "Only functions and objects whose class has an `operator()` can be called (C++17 \
                      [expr.call]). A local variable or parameter hides every function of the same name, so \
                      a number named like a helper function makes calls to that helper fail.",
        bad: "float falloff(float d) { return 1.0f / d; }\nfloat f(float falloff, float d) { return falloff(d); }",
        good: "float falloff(float d) { return 1.0f / d; }\nfloat f(float k, float d) { return k * falloff(d); }",
    },
    CodeInfo {
        code: "E1718",
        name: "void-value",
        severity: Severity::Error,
        summary: "A variable initialized with the result of a function that returns `void`",
        explanation: "A `void` function gives no value (C++17 [basic.fundamental]), so its call cannot \
                      initialize a variable. Either the function should return what it computes, or the \
                      call belongs on a line of its own.",
        bad: "void add(thread float &acc, float v) { acc += v; }\nfloat f(float v) { float acc = 0; float t = add(acc, v); return t; }",
        good: "void add(thread float &acc, float v) { acc += v; }\nfloat f(float v) { float acc = 0; add(acc, v); return acc; }",
    },
    CodeInfo {
        code: "E1719",
        name: "as-type-size",
        severity: Severity::Error,
        summary: "`as_type` between types of different sizes",
        explanation: "`as_type<T>(x)` reads the bytes of `x` as a `T`, so both must have the same size \
                      (MSL 4.1 section 2.19). A three-component vector occupies the room of four \
                      components. To change a value's type keep its value, convert it (`uint(h)`) instead.",
        bad: "uint bits(half h) { return as_type<uint>(h); }",
        good: "ushort bits(half h) { return as_type<ushort>(h); }",
    },
    CodeInfo {
        code: "E1720",
        name: "inaccessible-member",
        severity: Severity::Error,
        summary: "A private or protected member used outside its class",
        explanation: "Members after `private:` or `protected:`, and a `class`'s members before any access \
                      specifier, can only be named by the class's own member functions and its friends \
                      (C++17 [class.access]). Code outside uses the public members, or the class makes the \
                      member public.",
        bad: "class Acc { float sum; public: void add(float v) { sum += v; } };\nfloat f(Acc a) { return a.sum; }",
        good: "class Acc { float sum; public: void add(float v) { sum += v; } float total() const { return sum; } };\nfloat f(Acc a) { return a.total(); }",
    },
    CodeInfo {
        code: "E1721",
        name: "member-without-object",
        severity: Severity::Error,
        summary: "A non-static member used where there is no object",
        explanation: "A data member or a non-static member function belongs to an object (C++17 \
                      [class.mfct.non-static]). A `static` member function has no object, so it cannot \
                      name the class's non-static members; and `Class::f(...)` from outside the class \
                      calls `f` without an object, which works only for static member functions.",
        bad: "struct K { float s; static float w(float x) { return x * s; } };",
        good: "struct K { float s; static float w(float x, float s) { return x * s; } };",
    },
    CodeInfo {
        code: "E1722",
        name: "object-qualifiers",
        severity: Severity::Error,
        summary: "A member function that is not `const` called on a `const` object",
        explanation: "A member function that is not declared `const` may change its object, so it cannot be \
                      called on a `const` object: a variable declared `const`, or what a reference or \
                      pointer to `const` designates (C++17 [over.match.funcs]). Declare the function \
                      `const` when it only reads the object.",
        bad: "struct S { float v; float get() { return v; } };\nfloat f(thread const S &s) { return s.get(); }",
        good: "struct S { float v; float get() const { return v; } };\nfloat f(thread const S &s) { return s.get(); }",
    },
    CodeInfo {
        code: "E1723",
        name: "template-arguments",
        severity: Severity::Error,
        summary: "A template given the wrong number or kind of template arguments",
        explanation: "A template takes as many arguments as it has parameters; parameters with defaults \
                      may be left out, and a parameter pack takes any number (C++17 [temp.arg]). A type \
                      parameter takes a type, a value parameter a constant. The check applies to templates \
                      the unit declares once, named in a function body.",
        bad: "template <typename T, int N> struct Ring { T v[N]; };\nvoid f() { Ring<float> r; }",
        good: "template <typename T, int N> struct Ring { T v[N]; };\nvoid f() { Ring<float, 8> r; }",
    },
    CodeInfo {
        code: "E1724",
        name: "no-matching-call",
        severity: Severity::Error,
        summary: "A call of a function template of the unit that none of its declarations takes",
        explanation: "The call has as many arguments as some declaration of the template takes, but no \
                      instance fits: a template parameter would be deduced as two different types (C++17 \
                      [temp.deduct.call]: `T` from `0` is `int`, from `x * 0.5f` is `float`), the \
                      deduced parameters do not take the arguments, or an `enable_if_t<C, X>` in a template \
                      parameter or the return type has a condition `C` that is false for the deduced \
                      arguments, which removes the template ([temp.deduct]/8). Checked where every argument is a \
                      number or vector and the library has no function of that name; calls of functions \
                      that are not templates are checked by E1710.",
        bad: "template <typename T> T larger(T a, T b) { return a > b ? a : b; }\nfloat f(float x) { return larger(0, x); }",
        good: "template <typename T> T larger(T a, T b) { return a > b ? a : b; }\nfloat f(float x) { return larger(0.0f, x); }",
    },
    CodeInfo {
        code: "E1725",
        name: "no-matching-constructor",
        severity: Severity::Error,
        summary: "An object of a class initialized in a way none of the class's constructors takes",
        explanation: "A variable of a class is made by one of its constructors (C++17 [class.ctor], \
                      [dcl.init]): `S s;` needs one that takes no arguments and is not deleted, `S s(a, b)` \
                      one that takes those arguments, `S s = v;` one that is not `explicit`. A class without \
                      constructors of its own has a default one unless a member cannot be default-initialized, \
                      and in C++17 it is initialized with braces, not parentheses. Only classes whose \
                      constructors are all known (no bases, no templates) are judged.",
        bad: "struct Ray { float3 o, d; Ray(float3 o, float3 d) : o(o), d(d) {} };\nRay r;",
        good: "struct Ray { float3 o, d; Ray(float3 o, float3 d) : o(o), d(d) {} };\nRay r(float3(0.0f), float3(0.0f, 0.0f, 1.0f));",
    },
    CodeInfo {
        code: "E1726",
        name: "not-a-constant",
        severity: Severity::Error,
        summary: "A value that must be a constant expression is a variable known only at run time",
        explanation: "Template arguments for value parameters and the conditions of `if constexpr` are \
                      decided when the shader is compiled, so they must be constant expressions (C++17 \
                      [temp.arg.nontype], [stmt.if]): a function parameter or a variable that is not \
                      `const` does not qualify, and a floating-point constant cannot become an integer \
                      template argument (that would narrow). Variables of class types are left alone: \
                      they may convert to a constant.",
        bad: "template <int R> float blur(float v);\nint r = 2;\nfloat b = blur<r>(x);",
        good: "template <int R> float blur(float v);\nconstexpr int r = 2;\nfloat b = blur<r>(x);",
    },
    CodeInfo {
        code: "E1727",
        name: "deleted-function",
        severity: Severity::Error,
        summary: "A call that chooses a function declared `= delete`",
        explanation: "A deleted function takes part in overload resolution like any other, and choosing it \
                      is an error (C++17 [dcl.fct.def.delete]): classes delete overloads to refuse arguments \
                      of some types, such as an `int` where only `float` makes sense.",
        bad: "struct Acc { void set(float v); void set(int) = delete; };\nacc.set(0);",
        good: "struct Acc { void set(float v); void set(int) = delete; };\nacc.set(0.0f);",
    },
    CodeInfo {
        code: "E1728",
        name: "unexpanded-parameter-pack",
        severity: Severity::Error,
        summary: "A function parameter pack used without `...`",
        explanation: "A parameter pack (`Ts... rest`) stands for any number of values; C++17 \
                      [temp.variadic] allows it only where it is expanded: `f(rest...)`, `{rest...}`, a \
                      fold such as `(rest + ...)`, or counted with `sizeof...(rest)`.",
        bad: "template <typename T, typename... R> T total(T x, R... rest) { return x + total(rest); }",
        good: "template <typename T, typename... R> T total(T x, R... rest) { return x + total(rest...); }",
    },
    CodeInfo {
        code: "E1405",
        name: "unknown-type",
        severity: Severity::Error,
        summary: "A variable declared with a type name that nothing declares",
        explanation: "A declaration's type must name a type of the unit, of a namespace it can see, or of \
                      the Metal library (C++17 [dcl.type.simple]). A misspelt type name (`flaot4`, \
                      `unit2`) makes the whole declaration invalid; the message suggests the closest type.",
        bad: "kernel void k(device float4 *out [[buffer(0)]]) {\n    flaot4 c = out[0];\n    out[0] = c;\n}",
        good: "kernel void k(device float4 *out [[buffer(0)]]) {\n    float4 c = out[0];\n    out[0] = c;\n}",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_documented() {
        let mut seen = std::collections::HashSet::new();
        for c in all_codes() {
            assert!(seen.insert(c.code), "duplicate {}", c.code);
            assert_eq!(c.code.starts_with('E'), c.severity == Severity::Error, "{}", c.code);
        }
        let src = concat!(include_str!("checks.rs"), include_str!("checks/consts.rs"));
        for i in 0..src.len().saturating_sub(7) {
            let b = src.as_bytes();
            if b[i] == b'"'
                && matches!(b[i + 1], b'E' | b'W')
                && b[i + 2..i + 6].iter().all(u8::is_ascii_digit)
                && b[i + 6] == b'"'
            {
                assert!(code_info(&src[i + 1..i + 6]).is_some(), "{} is not documented", &src[i + 1..i + 6]);
            }
        }
    }
}
