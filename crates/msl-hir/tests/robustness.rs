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

/// Runs `text` through every check on a thread with the analysis stack, as msl-check and
/// msl-lsp do, and returns the diagnostics' codes, messages and related messages, with the
/// time it took.
fn check_timed(text: String) -> (Vec<(String, String, Vec<String>)>, std::time::Duration) {
    std::thread::Builder::new()
        .stack_size(msl_hir::ANALYSIS_STACK_SIZE)
        .spawn(move || {
            let start = std::time::Instant::now();
            let mut a = Analysis::new(msl_hir::RootDatabase::default());
            let f = a.set_file(Path::new("/p/robust.metal"), text.into());
            let unit = a.unit(f, PpConfig::default());
            let found = a
                .diagnostics(unit, false)
                .into_iter()
                .map(|d| {
                    let related = d.related.iter().map(|r| r.2.clone()).collect();
                    (d.diagnostic.code.to_string(), d.diagnostic.message, related)
                })
                .collect();
            (found, start.elapsed())
        })
        .unwrap()
        .join()
        .unwrap()
}

fn codes(found: &[(String, String, Vec<String>)]) -> Vec<&str> {
    found.iter().map(|(c, _, _)| c.as_str()).collect()
}

/// A function template that calls itself with a new argument and no base case stops at
/// clang's nesting limit, with one report at the call and the chain's start as related.
#[test]
fn a_template_recursion_without_end_stops_at_the_nesting_limit() {
    let text = "template <int N> int count_down(int x) { return count_down<N - 1>(x) + 1; }
kernel void k(device int *o [[buffer(0)]]) { o[0] = count_down<100000>(o[1]); }
"
    .to_string();
    let (found, took) = check_timed(text);
    assert!(took.as_secs() < 10, "took {took:?}");
    assert_eq!(codes(&found), ["E1804"], "{found:#?}");
    let (_, message, related) = &found[0];
    // 100000 - 1024: the instantiation one level too deep
    assert!(message.contains("N = 98976"), "{message}");
    assert_eq!(related, &["the chain of instantiations starts here"]);
}

/// Arguments that grow at every call (each instantiation wraps its type once more) stop
/// at the nesting limit too; the message cuts the huge type short.
#[test]
fn growing_template_arguments_stop_at_the_nesting_limit() {
    let text = "template <typename T> struct Wrap { T v; };
template <typename T> float peel(T x) { return peel(Wrap<T>{x}); }
kernel void k(device float *o [[buffer(0)]]) { o[0] = peel(o[1]); }
"
    .to_string();
    let (found, took) = check_timed(text);
    assert!(took.as_secs() < 10, "took {took:?}");
    assert_eq!(codes(&found), ["E1804"], "{found:#?}");
    assert!(found[0].1.len() < 400, "{}", found[0].1);
}

/// Each instantiation asks for two new ones: the count limit stops the fan-out long
/// before the nesting limit would.
#[test]
fn instantiations_that_fan_out_stop_at_the_count_limit() {
    let text = "template <typename T> struct L { T v; };
template <typename T> struct R { T v; };
template <typename T> float split(T x) { return split(L<T>{x}) + split(R<T>{x}); }
kernel void k(device float *o [[buffer(0)]]) { o[0] = split(o[1]); }
"
    .to_string();
    let (found, took) = check_timed(text);
    assert!(took.as_secs() < 20, "took {took:?}");
    assert_eq!(codes(&found), ["E1804"], "{found:#?}");
    assert!(found[0].1.starts_with(&format!("more than {} template instantiations", msl_hir::MAX_INSTANCES)));
}

/// Mutually recursive templates with the same arguments are an ordinary recursion (each
/// instantiation made once), as are overloads of one template calling each other; with
/// an ending they are accepted.
#[test]
fn mutual_template_recursion_is_made_once() {
    let text = "template <typename T> T ping(T x, int n);
template <typename T> T pong(T x, int n) { return n == 0 ? x : ping(x, n - 1); }
template <typename T> T ping(T x, int n) { return n == 0 ? x : pong(x * T(2), n - 1); }
template <int N> int down() { if constexpr (N <= 0) { return 0; } else { return 1 + down<N - 2>(); } }
template <typename T> T twice(T x) { return x * T(2); }
template <typename T> T twice(T x, int n) { return n == 0 ? x : twice(twice(x), n - 1); }
kernel void k(device float *o [[buffer(0)]], device int *p [[buffer(1)]]) {
    o[0] = ping(o[1], 4) + twice(o[2], 3);
    p[0] = down<1000>();
}
"
    .to_string();
    let (found, took) = check_timed(text);
    assert!(took.as_secs() < 10, "took {took:?}");
    assert!(found.is_empty(), "{found:#?}");
}

/// Aliases that each wrap the one before twice: the type is a chain, its size doubles at
/// each level. Substitution, layout and `sizeof` are linear in the chain (exponential
/// before), and a size past 64 bits is simply not known.
#[test]
fn exponential_alias_chains_are_computed_once_per_level() {
    let mut text = String::from("template <typename T> struct Two { T a; T b; };\nusing A0 = Two<int>;\n");
    for i in 1..=80 {
        text.push_str(&format!("using A{i} = Two<A{}>;\n", i - 1));
    }
    text.push_str("static_assert(sizeof(A40) == 8ul << 40, \"2^41 ints\");\n");
    text.push_str("static_assert(sizeof(A80) > 0, \"too large to know\");\n");
    text.push_str(
        "kernel void k(device int *o [[buffer(0)]]) { thread A20 *p = nullptr; o[0] = p->a.a.a.a.a.a.b.a; }\n",
    );
    let (found, took) = check_timed(text);
    assert!(took.as_secs() < 5, "took {took:?}");
    assert!(found.is_empty(), "{found:#?}");
}

/// A constant at namespace scope that the compiler must compute, through a loop or a
/// recursion without end, is reported at the constant; one that ends is not.
#[test]
fn runaway_constants_are_reported_at_the_constant() {
    let text = "constexpr int spin(int n) { while (n > 0) { n = n + 1; } return n; }
constexpr int deep(int n) { return deep(n + 1); }
constexpr int fine(int n) { return n <= 1 ? 1 : n * fine(n - 1); }
constant int a = spin(1);
constexpr int b = deep(0);
constant int c = fine(10);
static_assert(c == 3628800, \"10!\");
"
    .to_string();
    let (found, took) = check_timed(text);
    assert!(took.as_secs() < 10, "took {took:?}");
    assert_eq!(codes(&found), ["E1802", "E1802"], "{found:#?}");
    assert!(found[0].1.starts_with("`a`:") && found[1].1.starts_with("`b`:"), "{found:#?}");
}

/// The longest operator chain the parser takes (4096 operators; more is a syntax error)
/// and deeply nested parentheses are analysed without running out of stack.
#[test]
fn long_and_deep_expressions_do_not_exhaust_the_stack() {
    let sum = vec!["o[1]"; 4097].join(" + ");
    let nested = format!("{}o[2]{}", "(".repeat(3000), ")".repeat(3000));
    let text = format!(
        "constexpr int one = {};\nkernel void k(device int *o [[buffer(0)]]) {{ o[0] = {sum}; o[3] = {nested}; o[4] = {}o[5]; }}\n",
        vec!["1"; 4097].join(" * "),
        "-".repeat(3000)
    );
    let (found, took) = check_timed(text);
    assert!(took.as_secs() < 10, "took {took:?}");
    // only the parser's limits on nesting are reported
    assert!(found.iter().all(|(c, _, _)| c == "E0100"), "{found:#?}");
}
