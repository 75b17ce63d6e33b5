//! No input crashes the syntax layer: deep nesting, long chains, macro bombs, bad bytes.
//! Each case also checks that the problem is reported, not silently swallowed.

use msl_syntax::{PpConfig, Severity, Vfs, parse_file, parse_text};

fn errors_of(text: &str) -> Vec<String> {
    let parse = parse_text(text, &PpConfig::default());
    // the tree must always cover the whole main file
    assert_eq!(parse.main_file_text_from_tree(), text);
    parse.errors().map(|d| d.message.clone()).collect()
}

fn assert_reports(text: &str, needle: &str) {
    let errors = errors_of(text);
    assert!(errors.iter().any(|e| e.contains(needle)), "expected an error containing {needle:?}, got {errors:?}");
}

#[test]
fn hundred_thousand_nested_parentheses() {
    let n = 100_000;
    let text = format!("void f() {{ int x = {}1{}; }}", "(".repeat(n), ")".repeat(n));
    assert_reports(&text, "nesting is too deep");
}

#[test]
fn hundred_thousand_nested_braces() {
    let n = 100_000;
    let text = format!("void f() {}{}", "{".repeat(n), "}".repeat(n));
    assert_reports(&text, "nesting is too deep");
}

#[test]
fn hundred_thousand_nested_initializer_braces() {
    let n = 100_000;
    let text = format!("int a[1] = {}1{};", "{".repeat(n), "}".repeat(n));
    assert_reports(&text, "nesting is too deep");
}

#[test]
fn deep_brackets_templates_and_unary_chains() {
    let n = 50_000;
    assert_reports(&format!("void f() {{ x{}0{}; }}", "[a".repeat(n), "]".repeat(n)), "nesting is too deep");
    assert_reports(&format!("vec<{}float{}> v;", "vec<".repeat(n), ">".repeat(n)), "nesting is too deep");
    assert_reports(&format!("void f() {{ int x = {}1; }}", "- ".repeat(n)), "nesting is too deep");
    assert_reports(&format!("void f() {{ x = {}1; }}", "a = ".repeat(n)), "nesting is too deep");
    assert_reports(&format!("void f() {{ x = {}1; }}", "c ? a : ".repeat(n)), "nesting is too deep");
    assert_reports(&format!("void f() {{ {} }}", "if (a) ".repeat(n)), "nesting is too deep");
    assert_reports(&format!("int {}x{};", "(*".repeat(n), ")".repeat(n)), "nesting is too deep");
    assert_reports(&"namespace a { ".repeat(n), "nesting is too deep");
    assert_reports(&"struct a { ".repeat(n), "nesting is too deep");
}

#[test]
fn long_operator_and_postfix_chains() {
    let n = 100_000;
    assert_reports(&format!("void f() {{ int x = {}1; }}", "1 + ".repeat(n)), "operators in a row");
    assert_reports(&format!("void f() {{ x{}; }}", ".a".repeat(n)), "postfix operations in a row");
}

#[test]
fn deep_preprocessor_conditions_and_expressions() {
    let n = 100_000;
    // nested #if blocks are a stack, not recursion
    let text = format!("{}int x;\n{}", "#if 1\n".repeat(n), "#endif\n".repeat(n));
    assert!(errors_of(&text).is_empty());
    assert_reports(&format!("#if {}1{}\n#endif\n", "(".repeat(n), ")".repeat(n)), "nested too deeply");
    assert_reports(&format!("#if {}1\n#endif\n", "!".repeat(n)), "nested too deeply");
}

#[test]
fn recursive_and_exponential_macros_are_bounded() {
    // self-reference stops (painted blue), no error
    assert!(errors_of("#define a a + 1\nint x = a;\n").is_empty());
    assert!(errors_of("#define f(x) f(x) + g(x)\n#define g(x) f(x)\nint y = f(1);\n").is_empty());
    // each level doubles: 2^40 tokens if nothing stopped it
    let mut text = String::from("#define m0 x\n");
    for i in 1..=40 {
        text.push_str(&format!("#define m{i} m{} m{}\n", i - 1, i - 1));
    }
    text.push_str("int v = m40;\n");
    assert_reports(&text, "expansion stopped");
    // growth through arguments: each level copies its argument thirteen times
    let text = format!("#define M(t) {}\nint v = M(M(M(M(M(M(x))))));\n", "t ".repeat(13));
    assert_reports(&text, "expansion stopped");
    // deeply nested macro arguments
    let mut text = String::from("#define id(x) x\nint v = ");
    text.push_str(&"id(".repeat(5000));
    text.push('1');
    text.push_str(&")".repeat(5000));
    text.push_str(";\n");
    assert_reports(&text, "nested too deeply");
}

#[test]
fn include_cycles_and_depth() {
    let vfs = Vfs::new();
    let a = vfs.add_file("/p/a.h", "#include \"b.h\"\nint a;\n");
    vfs.add_file("/p/b.h", "#include \"a.h\"\nint b;\n");
    let parse = parse_file(a, &vfs, &PpConfig::default());
    assert!(parse.errors().any(|e| e.message.contains("#include cycle")), "{:?}", parse.diagnostics());
    // a guarded self-include is fine
    let g = vfs.add_file("/p/g.h", "#ifndef G\n#define G\n#include \"g.h\"\nint g;\n#endif\n");
    assert_eq!(parse_file(g, &vfs, &PpConfig::default()).errors().count(), 0);
    // a long include chain stops at the depth limit
    for i in 0..300 {
        vfs.add_file(format!("/q/h{i}.h"), format!("#include \"h{}.h\"\n", i + 1));
    }
    let top = vfs.add_file("/q/top.metal", "#include \"h0.h\"\n");
    let parse = parse_file(top, &vfs, &PpConfig::default());
    assert!(parse.errors().any(|e| e.message.contains("nested more than")), "{:?}", parse.diagnostics());
}

#[test]
fn invalid_utf8_is_reported() {
    let vfs = Vfs::new();
    let id = vfs.add_bytes("/x/bad.metal", b"kernel void f() { int x = 1; }\n\xff\xfe garbage \xc3\x28\n");
    let parse = parse_file(id, &vfs, &PpConfig::default());
    let utf8: Vec<_> = parse.diagnostics().iter().filter(|d| d.message.contains("UTF-8")).collect();
    // `\xff`, `\xfe` and the truncated `\xc3` sequence
    assert_eq!(utf8.len(), 3, "{:?}", parse.diagnostics());
    assert!(utf8.iter().all(|d| d.severity == Severity::Error));
}

/// A small deterministic generator, so the test needs no extra dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn random_bytes_and_random_token_soup() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for _ in 0..200 {
        let len = (rng.next() % 2000) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let vfs = Vfs::new();
        let id = vfs.add_bytes("/r.metal", &bytes);
        let _ = parse_file(id, &vfs, &PpConfig::default());
    }
    let pieces = [
        "kernel",
        "void",
        "f",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "[[",
        "]]",
        "<",
        ">",
        ">>",
        ";",
        ",",
        "=",
        "+",
        "*",
        "&",
        "template",
        "typename",
        "T",
        "struct",
        "S",
        "::",
        "float4",
        "device",
        "#define X(a) a##a\n",
        "#if 1\n",
        "#endif\n",
        "#include \"nope.h\"\n",
        "X(",
        "return",
        "if",
        "else",
        "for",
        "?",
        ":",
        "1.0h",
        "\"s\"",
        "'c'",
        "sizeof",
        "operator",
        "~",
        "...",
        "__VA_ARGS__",
        "\n",
        " ",
        "/*",
        "*/",
        "//",
        "\\\n",
    ];
    for _ in 0..2000 {
        let n = (rng.next() % 120) as usize;
        let text: String =
            (0..n).map(|_| pieces[(rng.next() % pieces.len() as u64) as usize]).collect::<Vec<_>>().join(" ");
        let parse = parse_text(&text, &PpConfig::default());
        assert_eq!(parse.main_file_text_from_tree(), text);
    }
}

#[test]
fn large_file() {
    // about 10 MB of ordinary code
    let unit = "kernel void k(device float *x [[buffer(0)]], uint i [[thread_position_in_grid]]) { x[i] = x[i] * 2.0f + 1.0f; }\n";
    let text = unit.repeat(10 * 1024 * 1024 / unit.len());
    let parse = parse_text(&text, &PpConfig::default());
    assert_eq!(parse.errors().count(), 0);
    assert_eq!(parse.syntax().text_range().len(), (text.len() as u32).into());
}

#[test]
fn a_mistake_in_a_macro_body_is_reported_once_per_invocation() {
    // the body lacks the `;` after each declaration: every declaration of every expansion
    // is broken, and all of them are reported at the invocation's text
    let text = "#define DECLS(T) T a = 1 T b = 2 T c = 3 T d = 4\n\
                void f() {\n  DECLS(int);\n  DECLS(float);\n}\n\
                void g() { int x = ; int y = ; }\n";
    let parse = parse_text(text, &PpConfig::default());
    let errors: Vec<(String, usize)> =
        parse.errors().map(|d| (d.message.clone(), usize::from(d.range.start()))).collect();
    let after = |s: &str| text.find(s).map(|i| i + s.len());
    // one for each invocation (just after it, where its first `;` is missing), then the
    // two mistakes outside macros, each where it is
    let at: Vec<Option<usize>> = errors.iter().map(|e| Some(e.1)).collect();
    assert_eq!(at, [after("DECLS(int)"), after("DECLS(float)"), after("x ="), after("y =")], "{errors:?}");
    assert_eq!(errors[0].0, "expected `;`, found `int`");
    assert_eq!(errors[1].0, "expected `;`, found `float`");
}
