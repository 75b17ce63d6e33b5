//! Every diagnostic code this layer emits, with an explanation: what it checks, why it
//! matters, and a failing and a passing example. Used by `msl-check --explain`, SARIF rule
//! metadata and the language server.

use crate::Severity;

/// Documentation of a diagnostic code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeInfo {
    pub code: &'static str,
    /// A short kebab-case name: `syntax-error`.
    pub name: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
    /// What the rule checks and why.
    pub explanation: &'static str,
    /// Source that triggers it.
    pub bad: &'static str,
    /// The same source, fixed.
    pub good: &'static str,
}

pub fn code_info(code: &str) -> Option<&'static CodeInfo> {
    CODES.iter().find(|c| c.code.eq_ignore_ascii_case(code))
}

pub static CODES: &[CodeInfo] = &[
    CodeInfo {
        code: "E0001",
        name: "lexical-error",
        severity: Severity::Error,
        summary: "A character, literal or comment that cannot be read",
        explanation: "The lexer met text that is not part of any Metal token: a stray character such as `@` \
                      or a lone backslash, a string or character literal that runs to the end of the line, a \
                      block comment without `*/`, or a number with a malformed suffix or digit (`1.0q`, `08`). \
                      The compiler rejects such text before parsing, so nothing after it on that token is \
                      analysed reliably.",
        bad: "float a = 1.0q;\nconst char *s = \"never closed;",
        good: "float a = 1.0f;\nconst char *s = \"closed\";",
    },
    CodeInfo {
        code: "E0003",
        name: "invalid-source-encoding",
        severity: Severity::Error,
        summary: "The file is not valid UTF-8 (or is too large to read whole)",
        explanation: "Metal source files must be UTF-8. Bytes that do not decode are replaced by U+FFFD so \
                      analysis can continue, but the compiler will reject the file. A file that is mostly \
                      such bytes is probably not source code at all.",
        bad: "// a file saved as Latin-1 with the byte 0xE9 in a comment",
        good: "// the same file saved as UTF-8",
    },
    CodeInfo {
        code: "E0010",
        name: "unterminated-conditional",
        severity: Severity::Error,
        summary: "An `#if`, `#ifdef` or `#ifndef` has no matching `#endif` in its file",
        explanation: "Every conditional must be closed by an `#endif` in the same file. A missing one makes \
                      the rest of the file part of the conditional, which usually hides large parts of it.",
        bad: "#if USE_FAST\nfloat f(float x) { return x; }\n",
        good: "#if USE_FAST\nfloat f(float x) { return x; }\n#endif\n",
    },
    CodeInfo {
        code: "E0011",
        name: "condition-only-builtin",
        severity: Severity::Error,
        summary: "`__has_include`, `__has_attribute` and similar used outside `#if`",
        explanation: "These feature-test operators only have a meaning inside `#if` and `#elif` conditions.",
        bad: "bool b = __has_include(<metal_stdlib>);",
        good: "#if __has_include(<metal_stdlib>)\n#include <metal_stdlib>\n#endif",
    },
    CodeInfo {
        code: "E0012",
        name: "include-in-macro-arguments",
        severity: Severity::Error,
        summary: "An `#include` appears inside the arguments of a macro invocation",
        explanation: "Directives inside macro arguments are processed, but an include there cannot splice \
                      the header's tokens into the arguments. Move the include before the invocation.",
        bad: "KERNEL(\n#include \"body.h\"\n)",
        good: "#include \"body.h\"\nKERNEL(body)",
    },
    CodeInfo {
        code: "E0013",
        name: "bad-macro-definition",
        severity: Severity::Error,
        summary: "A `#define` or `#undef` that is malformed",
        explanation: "The macro name is missing or not an identifier, a parameter list is broken or repeats \
                      a name, `#` is not followed by a parameter, or `##` sits at either end of the \
                      replacement list. The definition is ignored.",
        bad: "#define F(a, a) a\n#define G(x) #y",
        good: "#define F(a, b) a\n#define G(x) #x",
    },
    CodeInfo {
        code: "E0014",
        name: "unmatched-conditional",
        severity: Severity::Error,
        summary: "`#elif`, `#else` or `#endif` without an open `#if`",
        explanation: "The directive closes or continues a conditional that was never opened in this file, \
                      usually after one `#endif` too many.",
        bad: "#if A\n#endif\n#endif",
        good: "#if A\n#endif",
    },
    CodeInfo {
        code: "E0015",
        name: "else-after-else",
        severity: Severity::Error,
        summary: "`#elif` or `#else` after the `#else` of the same conditional",
        explanation: "Once a conditional has its `#else`, only `#endif` may follow; later branches never \
                      apply.",
        bad: "#if A\n#else\n#elif B\n#endif",
        good: "#if A\n#elif B\n#else\n#endif",
    },
    CodeInfo {
        code: "E0016",
        name: "error-directive",
        severity: Severity::Error,
        summary: "An `#error` directive was reached",
        explanation: "The source asked compilation to stop with this message, typically because a required \
                      macro or Metal version is missing. Check the `-D` flags and `--std` you check with.",
        bad: "#ifndef TILE\n#error TILE must be defined\n#endif",
        good: "// msl-check -D TILE=16 file.metal",
    },
    CodeInfo {
        code: "E0017",
        name: "unknown-directive",
        severity: Severity::Error,
        summary: "A `#` directive that does not exist",
        explanation: "Only the standard preprocessing directives are accepted; a misspelt one (`#inlcude`, \
                      `#elseif`) is rejected by the compiler.",
        bad: "#elseif FAST",
        good: "#elif FAST",
    },
    CodeInfo {
        code: "E0018",
        name: "bad-line-directive",
        severity: Severity::Error,
        summary: "`#line` without a valid line number",
        explanation: "`#line` takes a decimal line number and an optional file name string.",
        bad: "#line here",
        good: "#line 120 \"generated.metal\"",
    },
    CodeInfo {
        code: "E0019",
        name: "bad-condition",
        severity: Severity::Error,
        summary: "An `#if` or `#elif` condition that cannot be evaluated",
        explanation: "The condition must be an integer constant expression after macro expansion: no \
                      floating-point numbers, strings, or calls of function-like macros that are not \
                      defined, and no division by zero. The branch is treated as false.",
        bad: "#if __METAL_VERSION__ >= 3.1\n#endif",
        good: "#if __METAL_VERSION__ >= 310\n#endif",
    },
    CodeInfo {
        code: "E0020",
        name: "macro-expansion-limit",
        severity: Severity::Error,
        summary: "Macro expansion grew past a safety limit",
        explanation: "A single macro invocation produced more than a million tokens, the macros of a unit \
                      more than twenty million, or macro arguments nested more than 200 deep. This almost \
                      always means macros that expand each other exponentially. Expansion stops there; the \
                      rest of the file is still analysed.",
        bad: "#define M(t) t t t t t t t t t t t t t\nint v = M(M(M(M(M(M(x))))));",
        good: "#define M(t) t\nint v = M(x);",
    },
    CodeInfo {
        code: "E0021",
        name: "unterminated-macro-call",
        severity: Severity::Error,
        summary: "A function-like macro invocation is missing its closing `)`",
        explanation: "The arguments of the invocation run to the end of the file (or of the header it is in) \
                      without a matching `)`. Everything after the opening parenthesis is swallowed.",
        bad: "#define SQ(x) ((x) * (x))\nfloat y = SQ(a + 1;",
        good: "#define SQ(x) ((x) * (x))\nfloat y = SQ(a + 1);",
    },
    CodeInfo {
        code: "E0022",
        name: "macro-argument-count",
        severity: Severity::Error,
        summary: "A macro is invoked with the wrong number of arguments",
        explanation: "Function-like macros take exactly as many arguments as they have parameters (at least \
                      that many when variadic). Commas inside parentheses do not split arguments; commas \
                      inside braces or template arguments do.",
        bad: "#define PAIR(a, b) a + b\nint x = PAIR(1);",
        good: "#define PAIR(a, b) a + b\nint x = PAIR(1, 2);",
    },
    CodeInfo {
        code: "E0023",
        name: "invalid-token-paste",
        severity: Severity::Error,
        summary: "`##` glues two tokens into something that is not one token",
        explanation: "The result of `a ## b` must be a single valid token, such as an identifier or number. \
                      Pasting punctuation that does not form one operator is rejected by the compiler.",
        bad: "#define C(a, b) a ## b\nint x = C(+, -);",
        good: "#define C(a, b) a ## b\nint C(tile_, 4);",
    },
    CodeInfo {
        code: "E0030",
        name: "bad-header-name",
        severity: Severity::Error,
        summary: "`#include` without a `\"file\"` or `<file>` name",
        explanation: "An include needs a quoted or angle-bracketed header name, possibly produced by a macro.",
        bad: "#include metal_stdlib",
        good: "#include <metal_stdlib>",
    },
    CodeInfo {
        code: "E0031",
        name: "include-too-deep",
        severity: Severity::Error,
        summary: "Headers include each other more than 200 levels deep",
        explanation: "Such depth only happens with a runaway recursive include; the innermost include is \
                      skipped.",
        bad: "// a.h includes b.h, which includes c.h, ... 200 levels",
        good: "// flatten the chain or add include guards",
    },
    CodeInfo {
        code: "E0032",
        name: "include-cycle",
        severity: Severity::Error,
        summary: "A header includes itself, directly or through others, without a guard",
        explanation: "Including a file that is already being included would recurse forever. Add an include \
                      guard or `#pragma once` to the header.",
        bad: "// a.h\n#include \"b.h\"\n// b.h\n#include \"a.h\"",
        good: "// a.h\n#pragma once\n#include \"b.h\"",
    },
    CodeInfo {
        code: "E0033",
        name: "header-not-found",
        severity: Severity::Error,
        summary: "A quoted `#include` names a file that does not exist",
        explanation: "Quoted headers are searched next to the including file, then in the `-I` directories \
                      (and the `include` list of `msl.toml`), then in the folders above the including file \
                      up to the project's root and in the folder being checked (see N0034). Everything \
                      the header would have declared is unknown to analysis: names it would have declared \
                      are not reported, and a lone unknown macro invocation is taken as one of its macros.",
        bad: "#include \"shader_types.h\"   // lives in ../common/",
        good: "// msl-check -I ../common file.metal",
    },
    CodeInfo {
        code: "N0034",
        name: "header-found-above",
        severity: Severity::Note,
        summary: "A quoted `#include` was found in a folder above the including file",
        explanation: "Projects often write includes relative to their root (`#include \"lib/kernels/utils.h\"`) \
                      and pass that root to the compiler with `-I`. When a quoted header is not found next to \
                      its includer or in the include directories, it is looked for in each folder above \
                      the includer, up to the project's root (a folder holding `.git`, `msl.toml`, \
                      `Package.swift`, an Xcode project or the top `CMakeLists.txt`), and in the folder being \
                      checked (the editor's workspace folders). A single match is used, and this note says \
                      where it was found; several matches are an error that lists them. Set \
                      `infer_includes = false` in `msl.toml` to turn the search off.",
        bad: "#include \"lib/kernels/utils.h\"   // found two folders up, with no -I",
        good: "# msl.toml at the project's root\ninclude = [\".\"]",
    },
    CodeInfo {
        code: "E0100",
        name: "syntax-error",
        severity: Severity::Error,
        summary: "The source does not follow the Metal (C++) grammar",
        explanation: "The parser expected something else at this point: a missing `;` or `)`, an unclosed \
                      `{`, an incomplete expression, a stray `]]`. The message says what was expected. \
                      Parsing recovers right after the problem, so the rest of the file is still checked and \
                      one mistake gives one error.",
        bad: "kernel void k(device float *a [[buffer(0)]]) {\n    a[0] = 1\n}",
        good: "kernel void k(device float *a [[buffer(0)]]) {\n    a[0] = 1;\n}",
    },
    CodeInfo {
        code: "W0004",
        name: "builtin-macro-undefined",
        severity: Severity::Warning,
        summary: "`#undef` of a macro the compiler provides",
        explanation: "Undefining `__LINE__`, `__FILE__` and similar changes what every later use means and \
                      is almost never intended.",
        bad: "#undef __FILE__",
        good: "// leave compiler-provided macros alone",
    },
    CodeInfo {
        code: "W0005",
        name: "macro-redefined",
        severity: Severity::Warning,
        summary: "A macro is defined again with a different replacement",
        explanation: "The later definition silently wins. Redefining with an identical replacement is fine; \
                      a different one is usually a clash between headers. `#undef` first if it is \
                      intended.",
        bad: "#define TILE 16\n#define TILE 32",
        good: "#define TILE 16\n#undef TILE\n#define TILE 32",
    },
    CodeInfo {
        code: "W0016",
        name: "warning-directive",
        severity: Severity::Warning,
        summary: "A `#warning` directive was reached",
        explanation: "The source asked for this message to be shown.",
        bad: "#warning slow path enabled",
        good: "// remove the directive, or select the fast path with -D",
    },
    CodeInfo {
        code: "W0030",
        name: "unmodelled-header",
        severity: Severity::Warning,
        summary: "An angle-bracket header that is neither part of the Metal library model nor on the include path",
        explanation: "Apple's SDK ships framework headers (SwiftUI, Core Image, ...) that this analysis does \
                      not model. Declarations from them are unknown, so uses of those names are not checked. \
                      Add the header's directory with `-I` if you have it.",
        bad: "#include <CoreImage/CoreImage.h>",
        good: "// msl-check -I path/to/headers file.metal, or ignore the warning",
    },
    CodeInfo {
        code: "W0901",
        name: "suppression-without-reason",
        severity: Severity::Warning,
        summary: "An `msl-check-ignore` comment does not say why",
        explanation: "Suppressions should carry a reason after `--` so that readers know why the diagnostic \
                      does not apply. The suppression still takes effect.",
        bad: "x = y; // msl-check-ignore: E0100",
        good: "x = y; // msl-check-ignore: E0100 -- generated code, fixed upstream",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_consistent() {
        let mut seen = std::collections::HashSet::new();
        for c in CODES {
            assert!(seen.insert(c.code), "duplicate {}", c.code);
            assert_eq!(c.code.starts_with('E'), c.severity == Severity::Error, "{}", c.code);
            assert!(!c.explanation.is_empty() && !c.bad.is_empty() && !c.good.is_empty());
        }
        assert!(code_info("e0100").is_some());
    }

    #[test]
    fn every_emitted_code_is_documented() {
        for src in [include_str!("pp/mod.rs"), include_str!("parse.rs"), include_str!("vfs.rs")] {
            let bytes = src.as_bytes();
            for i in 0..bytes.len().saturating_sub(6) {
                let is_code = bytes[i] == b'"'
                    && matches!(bytes[i + 1], b'E' | b'W')
                    && bytes[i + 2..i + 6].iter().all(u8::is_ascii_digit)
                    && bytes[i + 6] == b'"';
                if is_code {
                    let code = &src[i + 1..i + 6];
                    assert!(code_info(code).is_some(), "{code} is emitted but not documented");
                }
            }
        }
    }
}
