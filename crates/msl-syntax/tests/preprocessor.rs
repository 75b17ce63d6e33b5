//! The preprocessor's results: expansions, conditionals, includes, predefined macros and
//! the origin of every token.

use msl_syntax::lexer::Lexed;
use msl_syntax::pp::{Preprocessed, preprocess};
use msl_syntax::{
    FileId, FileResolver, MetalVersion, Origin, Parse, Platform, PpConfig, Severity, TextRange, Vfs, parse_file,
    parse_text,
};

/// The tokens the parser would see, joined by spaces.
fn pp_tokens(pp: &Preprocessed) -> String {
    pp.pieces.iter().filter(|p| !p.kind.is_trivia()).map(|p| pp.text(p)).collect::<Vec<_>>().join(" ")
}

fn tokens(parse: &Parse) -> String {
    pp_tokens(parse.preprocessed())
}

/// Preprocesses `text` alone (no parsing: the snippets need not be C++).
fn expand_with(text: &str, config: &PpConfig) -> (String, Vec<String>) {
    let vfs = Vfs::new();
    let id = vfs.add_file("input.metal", text);
    let pp = preprocess(id, &vfs, config);
    let diags = pp.diagnostics.iter().map(|d| d.message.clone()).collect();
    (pp_tokens(&pp), diags)
}

fn expand(text: &str) -> String {
    let (t, d) = expand_with(text, &PpConfig::default());
    assert!(d.is_empty(), "unexpected diagnostics: {d:?}");
    t
}

#[test]
fn object_and_function_like_macros() {
    assert_eq!(expand("#define N 4\nint a[N];"), "int a [ 4 ] ;");
    assert_eq!(expand("#define SQ(x) ((x) * (x))\nint y = SQ(a + 1);"), "int y = ( ( a + 1 ) * ( a + 1 ) ) ;");
    // arguments are expanded before substitution
    assert_eq!(expand("#define N 4\n#define ID(x) x\nint y = ID(N);"), "int y = 4 ;");
    // a function-like macro name without `(` is just a name
    assert_eq!(expand("#define f(x) x\nint f = 1;"), "int f = 1 ;");
    // arguments may span lines; empty arguments are allowed
    assert_eq!(expand("#define P(a, b) a b\nP(\n  x,\n  y\n) P(,) P(z,)"), "x y z");
    assert_eq!(expand("#define E() e\nE() E ( )"), "e e");
}

/// The text of an expansion in the tree has a space between two tokens only where they
/// would otherwise run together; the text outside expansions is the file's, spaces and all.
#[test]
fn expansions_keep_the_spaces_that_keep_tokens_apart() {
    let text = "#define F(a, b) f ( a , b ) + g\n#define T unsigned int\n#define P a + + b - > c\n#define N 1 .5 + . 5\n\
                #define S u8 \"s\" \"t\" x\nT y = F( x , y ) ; P N S\n";
    let parse = parse_text(text, &PpConfig::default());
    let tree = parse.syntax().text().to_string();
    let expanded =
        tree.rsplit_once("x\n").map_or("", |(before, _)| before).rsplit_once('\n').map_or("", |(_, last)| last);
    // each invocation's text (a trivia piece) comes before its expansion
    assert_eq!(expanded, "Tunsigned int y = F( x , y )f(x,y)+g ; Pa+ +b- >c N1 .5 +. 5 Su8 \"s\"\"t\" ");
    assert_eq!(tokens(&parse), "unsigned int y = f ( x , y ) + g ; a + + b - > c 1 .5 + . 5 u8 \"s\" \"t\" x");
}

#[test]
fn expansions_one_after_another_and_nested_deeply() {
    // the lists an invocation used are reused by the next: nothing of the last one's
    // arguments, body or result shows up in the next
    assert_eq!(
        expand("#define P(a, b) a b\n#define Q(x) [x]\nP(1 2 3 4 5 6, 7) P(8, 9) Q(P(,)) Q() P(Q(a b c), d)"),
        "1 2 3 4 5 6 7 8 9 [ ] [ ] [ a b c ] d"
    );
    // arguments nested deeper than the lists kept for reuse
    let depth = 50;
    let text = format!("#define W(x) (x)\n{}a{}", "W(".repeat(depth), ")".repeat(depth));
    assert_eq!(expand(&text), format!("{}a{}", "( ".repeat(depth), " )".repeat(depth)));
}

#[test]
fn stringize_and_paste() {
    assert_eq!(expand("#define S(x) #x\nS(a  +   b) S(\"q\\n\") S()"), r#""a + b" "\"q\\n\"" """#);
    assert_eq!(expand("#define CAT(a, b) a##b\nCAT(float, 4) CAT(x, ) CAT(, y) CAT(1, 2)"), "float4 x y 12");
    // a pasted name that is a macro expands on rescan
    assert_eq!(expand("#define CAT(a, b) a##b\n#define ab done\nCAT(a, b)"), "done");
    // `#` and `##` use the argument as written, not expanded
    assert_eq!(expand("#define N 4\n#define S(x) #x\n#define XS(x) S(x)\nS(N) XS(N)"), "\"N\" \"4\"");
}

#[test]
fn variadic_macros() {
    assert_eq!(expand("#define F(x, ...) g(x, __VA_ARGS__)\nF(1, 2, 3)"), "g ( 1 , 2 , 3 )");
    assert_eq!(
        expand("#define L(fmt, ...) log(fmt, ##__VA_ARGS__)\nL(\"a\") L(\"b\", 1)"),
        "log ( \"a\" ) log ( \"b\" , 1 )"
    );
    assert_eq!(expand("#define O(x, ...) f(x __VA_OPT__(,) __VA_ARGS__)\nO(1) O(1, 2)"), "f ( 1 ) f ( 1 , 2 )");
    assert_eq!(expand("#define G(args...) h(args)\nG(1, 2)"), "h ( 1 , 2 )");
}

#[test]
fn recursion_is_painted_blue() {
    assert_eq!(expand("#define foo foo\nfoo"), "foo");
    assert_eq!(expand("#define a b\n#define b a\na b"), "a b");
    // the example from the C standard (6.10.3.5)
    let text = "#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n#define g f\n#define z z[0]\n\
                #define h g(~\n#define m(a) a(w)\n#define w 0,1\n#define t(a) a\n#define p() int\n#define q(x) x\n\
                #define r(x,y) x ## y\n#define str(x) # x\n\
                f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);\n";
    assert_eq!(expand(text), "f ( 2 * ( y + 1 ) ) + f ( 2 * ( f ( 2 * ( z [ 0 ] ) ) ) ) % f ( 2 * ( 0 ) ) + t ( 1 ) ;");
}

#[test]
fn macro_errors() {
    let (_, d) = expand_with("#define F(a, b) a\nF(1)", &PpConfig::default());
    assert!(d[0].contains("expects 2 arguments, but 1 was given"), "{d:?}");
    let (_, d) = expand_with("#define F(a) a\nF(1", &PpConfig::default());
    assert!(d[0].contains("unterminated invocation"), "{d:?}");
    let (_, d) = expand_with("#define A 1\n#define A 2\n", &PpConfig::default());
    assert!(d[0].contains("redefined"), "{d:?}");
    let (_, d) = expand_with("#define A 1\n#define A   1\n", &PpConfig::default());
    assert!(d.is_empty(), "an identical redefinition is fine: {d:?}");
    let (_, d) = expand_with("#define C(a, b) a ## b\nC(+, -)", &PpConfig::default());
    assert!(d[0].contains("does not give a valid preprocessing token"), "{d:?}");
}

#[test]
fn builtin_macros() {
    assert_eq!(expand("int a = __LINE__;\n\nint b = __LINE__;"), "int a = 1 ; int b = 3 ;");
    assert_eq!(expand("#line 100\nint c = __LINE__;"), "int c = 100 ;");
    assert_eq!(expand("__COUNTER__ __COUNTER__"), "0 1");
    assert_eq!(expand("__FILE__"), "\"input.metal\"");
    assert_eq!(expand("_Pragma(\"unroll\") int x;"), "int x ;");
}

#[test]
fn conditionals() {
    let text = "#define A 2\n#if A == 1\none\n#elif A == 2\ntwo\n#else\nother\n#endif\n\
                #ifdef A\nyes\n#endif\n#ifndef A\nno\n#endif\n#if defined A && !defined(B)\nboth\n#endif\n\
                #if 0\n#if 1\nnested\n#else\nnested_else\n#endif\n#elif 1\nafter\n#endif";
    assert_eq!(expand(text), "two yes both after");
    // inactive code can hold anything
    assert_eq!(expand("#if 0\n don't ' \" @ #bogus\n#endif\nok"), "ok");
    assert_eq!(expand("#if __has_attribute(always_inline) && !__has_feature(address_sanitizer)\nyes\n#endif"), "yes");
    assert_eq!(expand("#if __has_include(<metal_stdlib>) && !__has_include(\"nope.h\")\nyes\n#endif"), "yes");
    assert_eq!(expand("#if __has_builtin(__builtin_expect)\nyes\n#endif"), "yes");
}

#[test]
fn predefined_macros_follow_version_and_platform() {
    let mut cfg = PpConfig { version: MetalVersion::V3_2, ..PpConfig::default() };
    let probe = "__METAL_VERSION__ __METAL__ __METAL_MACOS__ __METAL_IOS__ __HAVE_BFLOAT__ __cplusplus";
    assert_eq!(expand_with(probe, &cfg).0, "320 1 1 __METAL_IOS__ 1 201402L");
    cfg.version = MetalVersion::V2_1;
    cfg.platform = Platform::IOS;
    assert_eq!(expand_with(probe, &cfg).0, "210 __METAL__ __METAL_MACOS__ 1 __HAVE_BFLOAT__ 201402L");
    cfg.version = MetalVersion::V4_0;
    assert_eq!(expand_with("__cplusplus", &cfg).0, "201703L");
    cfg.define("MY_FLAG");
    cfg.define("MY_VAL=7");
    assert_eq!(expand_with("MY_FLAG MY_VAL", &cfg).0, "1 7");
}

#[test]
fn system_headers_come_from_the_model() {
    let (t, d) = expand_with("#include <metal_stdlib>\nM_PI_F FLT_MAX METAL_FUNC", &PpConfig::default());
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(
        t,
        "3.14159265358979323846264338327950288f 0x1.fffffep127f inline __attribute__ ( ( __always_inline__ ) )"
    );
    // every unit starts as if `<metal_stdlib>` were included first: its macros are there
    // without the include, and a later include of it or of any library header changes
    // nothing (what the unit undefines stays undefined)
    assert_eq!(
        expand("M_PI_F METAL_FUNC"),
        "3.14159265358979323846264338327950288f inline __attribute__ ( ( __always_inline__ ) )"
    );
    assert_eq!(expand("#undef M_PI_F\n#include <metal_stdlib>\n#include <metal_math>\nM_PI_F"), "M_PI_F");
    assert_eq!(expand("#if defined(METAL_FUNC) && defined(FLT_MAX)\nyes\n#endif"), "yes");
    // unknown framework headers are a warning, not an error
    let parse = parse_text("#include <CoreImage/CoreImage.h>\nint x;", &PpConfig::default());
    assert_eq!(parse.errors().count(), 0);
    let d: Vec<_> = parse.diagnostics().iter().collect();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].severity, Severity::Warning);
    assert_eq!(tokens(&parse), "int x ;");
}

#[test]
fn includes_guards_and_pragma_once() {
    let vfs = Vfs::new();
    vfs.add_file("/p/inc/guarded.h", "#ifndef GUARD\n#define GUARD\nint guarded;\n#endif\n");
    vfs.add_file("/p/inc/once.h", "#pragma once\nint once;\n");
    vfs.add_file("/p/lib/deep.h", "int deep;\n");
    vfs.add_file("/p/inc/rel.h", "#include \"sub/rel2.h\"\n");
    vfs.add_file("/p/inc/sub/rel2.h", "int rel2;\n");
    let main = vfs.add_file(
        "/p/main.metal",
        "#include \"inc/guarded.h\"\n#include \"inc/guarded.h\"\n#include \"inc/once.h\"\n#include \"inc/once.h\"\n\
         #include <deep.h>\n#include \"inc/rel.h\"\n#include \"missing.h\"\nint end;\n",
    );
    let cfg = PpConfig { include_dirs: vec!["/p/lib".into()], ..PpConfig::default() };
    let parse = parse_file(main, &vfs, &cfg);
    assert_eq!(tokens(&parse), "int guarded ; int once ; int deep ; int rel2 ; int end ;");
    let errors: Vec<_> = parse.errors().map(|d| d.message.clone()).collect();
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("file not found: \"missing.h\""));
    // the directive is where the error is reported
    let d = parse.errors().next().unwrap();
    assert_eq!(d.file, 0);
    assert_eq!(&parse.files()[0].text[d.range], "#include \"missing.h\"");
    // seven in the main file, one in `rel.h`
    assert_eq!(parse.preprocessed().includes.len(), 8);
}

/// A resolver over a [`Vfs`] that records which files' tokens it is offered and how often
/// it hands kept tokens back.
struct Recording {
    vfs: Vfs,
    offered: std::cell::RefCell<Vec<std::path::PathBuf>>,
    reused: std::cell::Cell<usize>,
}

impl Recording {
    fn new(vfs: Vfs) -> Recording {
        Recording { vfs, offered: Default::default(), reused: Default::default() }
    }
}

impl FileResolver for Recording {
    fn resolve(&self, path: &std::path::Path) -> Option<FileId> {
        self.vfs.resolve(path)
    }
    fn text(&self, file: FileId) -> std::sync::Arc<str> {
        self.vfs.text(file)
    }
    fn path(&self, file: FileId) -> std::path::PathBuf {
        self.vfs.path(file)
    }
    fn lexed(&self, file: FileId, text: &std::sync::Arc<str>) -> Option<Lexed> {
        let kept = self.vfs.lexed(file, text);
        self.reused.set(self.reused.get() + usize::from(kept.is_some()));
        kept
    }
    fn keep_lexed(&self, file: FileId, text: &std::sync::Arc<str>, lexed: &Lexed) {
        self.offered.borrow_mut().push(self.vfs.path(file));
        self.vfs.keep_lexed(file, text, lexed);
    }
}

/// The same unit parsed with nothing kept from earlier parses.
fn fresh_parse(files: &[(&str, &str)], main: &str) -> Parse {
    let vfs = Vfs::new();
    for (path, text) in files {
        vfs.add_file(path, *text);
    }
    let id = vfs.add_file(main, files.iter().find(|f| f.0 == main).map_or("", |f| f.1));
    parse_file(id, &vfs, &PpConfig::default())
}

#[test]
fn a_header_is_lexed_once_for_all_the_units_that_include_it() {
    let files = [
        ("/p/h.h", "#pragma once\n#define N 4\nstruct S { int a[N]; };\n"),
        ("/p/a.metal", "#include \"h.h\"\nS x;\n"),
        ("/p/b.metal", "#include \"h.h\"\n#include \"h.h\"\nS y[N];\n"),
    ];
    let vfs = Vfs::new();
    for (path, text) in files {
        vfs.add_file(path, text);
    }
    let (a, b) = (vfs.add_file("/p/a.metal", files[1].1), vfs.add_file("/p/b.metal", files[2].1));
    let r = Recording::new(vfs);
    let cfg = PpConfig::default();
    let parses = [parse_file(a, &r, &cfg), parse_file(b, &r, &cfg), parse_file(a, &r, &cfg)];
    // offered once, by the first unit; main files are not offered
    assert_eq!(*r.offered.borrow(), vec![std::path::PathBuf::from("/p/h.h")]);
    assert_eq!(r.reused.get(), 2);
    // and the trees are those of parses that lexed everything themselves
    for (p, main) in parses.iter().zip(["/p/a.metal", "/p/b.metal", "/p/a.metal"]) {
        assert!(p.diagnostics().is_empty(), "{:?}", p.diagnostics());
        let fresh = fresh_parse(&files, main);
        assert_eq!(p.debug_tree(), fresh.debug_tree());
        assert_eq!(tokens(p), tokens(&fresh));
    }
}

#[test]
fn a_changed_header_is_lexed_again() {
    let vfs = Vfs::new();
    vfs.add_file("/p/h.h", "#define N 4\n");
    let main = vfs.add_file("/p/a.metal", "#include \"h.h\"\nint x[N];\n");
    let r = Recording::new(vfs);
    let cfg = PpConfig::default();
    assert_eq!(tokens(&parse_file(main, &r, &cfg)), "int x [ 4 ] ;");
    // longer, with an error and a new definition: tokens kept for the old text would
    // point past its end and miss both
    let changed = "// now with more\n#define N 16\nint y = ;\n";
    r.vfs.add_file("/p/h.h", changed);
    let parse = parse_file(main, &r, &cfg);
    assert_eq!(r.offered.borrow().len(), 2);
    assert_eq!(r.reused.get(), 0);
    assert_eq!(tokens(&parse), "int y = ; int x [ 16 ] ;");
    let errors: Vec<_> = parse.errors().map(|d| (d.file, d.range)).collect();
    assert_eq!(errors.len(), 1, "{:?}", parse.diagnostics());
    assert_eq!(&parse.files()[errors[0].0 as usize].text[errors[0].1], "");
    assert_eq!(u32::from(errors[0].1.start()) as usize, changed.find(" ;").unwrap());
    assert_eq!(
        parse.debug_tree(),
        fresh_parse(&[("/p/h.h", changed), ("/p/a.metal", "#include \"h.h\"\nint x[N];\n")], "/p/a.metal").debug_tree()
    );
}

#[test]
fn every_token_knows_its_origin() {
    let text = "#define ADD(a, b) a + b\nint x = ADD(y, 2);";
    let parse = parse_text(text, &PpConfig::default());
    let root = parse.syntax();
    let toks: Vec<_> =
        root.descendants_with_tokens().filter_map(|e| e.into_token()).filter(|t| !t.kind().is_trivia()).collect();
    let call_start = text.find("ADD(y").unwrap() as u32;
    let call = TextRange::new(call_start.into(), (text.find(");").unwrap() as u32 + 1).into());
    let find = |s: &str| toks.iter().find(|t| t.text() == s).unwrap();
    // `int` is spelled in the file
    assert_eq!(
        parse.token_origin(find("int")),
        Some(Origin::Spelled { file: 0, range: TextRange::at(24.into(), 3.into()) })
    );
    // `y` came through the macro but was written in the argument
    match parse.token_origin(find("y")) {
        Some(Origin::Macro { call_file: 0, call_range, spelling: Some((0, r)), .. }) => {
            assert_eq!(call_range, call);
            assert_eq!(&text[r], "y");
            assert!(u32::from(r.start()) > call_start);
        }
        other => panic!("{other:?}"),
    }
    // `+` was written in the definition
    match parse.token_origin(find("+")) {
        Some(Origin::Macro { spelling: Some((0, r)), .. }) => assert_eq!(u32::from(r.start()), 20),
        other => panic!("{other:?}"),
    }
    // the invocation's text is in the tree as trivia, so the file is reconstructible
    assert_eq!(parse.main_file_text_from_tree(), text);
    assert_eq!(parse.preprocessed().calls.len(), 1);
    assert_eq!(&*parse.preprocessed().macros[parse.preprocessed().calls[0].def as usize].name, "ADD");
}

/// The codes and messages of a parse's diagnostics.
fn diagnostics_of(parse: &Parse) -> Vec<(&'static str, String)> {
    parse.diagnostics().iter().map(|d| (d.code, d.message.clone())).collect()
}

#[test]
fn quoted_includes_are_found_in_the_folders_above() {
    let vfs = Vfs::new();
    // written relative to the project's root, which the build passes with -I
    vfs.add_file("/p/lib/kernels/utils.h", "int utils;\n");
    let main = vfs.add_file("/p/lib/kernels/k.metal", "#include \"lib/kernels/utils.h\"\nint k;\n");
    let parse = parse_file(main, &vfs, &PpConfig::default());
    assert_eq!(tokens(&parse), "int utils ; int k ;");
    let d = diagnostics_of(&parse);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "N0034");
    assert!(d[0].1.contains("`/p`"), "{d:?}");
    assert_eq!(parse.errors().count(), 0);

    // found in two folders above: neither is taken, and both are named
    vfs.add_file("/q/a/x.h", "int one;\n");
    vfs.add_file("/q/a/b/a/x.h", "int two;\n");
    let main = vfs.add_file("/q/a/b/c/main.metal", "#include \"a/x.h\"\nint m;\n");
    let parse = parse_file(main, &vfs, &PpConfig::default());
    assert_eq!(tokens(&parse), "int m ;");
    let d = diagnostics_of(&parse);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "E0033");
    assert!(d[0].1.contains("`/q/a/b`") && d[0].1.contains("`/q`"), "{d:?}");

    // turned off, the first case is a missing header again
    let off = PpConfig { infer_includes: false, ..PpConfig::default() };
    let main = vfs.add_file("/p/lib/kernels/k2.metal", "#include \"lib/kernels/utils.h\"\n");
    assert_eq!(diagnostics_of(&parse_file(main, &vfs, &off))[0].0, "E0033");

    // the search roots (workspace folders, the folder checked) are looked in too
    vfs.add_file("/r/inc/h.h", "int h;\n");
    let main = vfs.add_file("/s/main.metal", "#include \"inc/h.h\"\n");
    let roots = PpConfig { search_roots: vec!["/r".into()], ..PpConfig::default() };
    let parse = parse_file(main, &vfs, &roots);
    assert_eq!(tokens(&parse), "int h ;");
    assert_eq!(parse.errors().count(), 0);
    // angle-bracket includes are never inferred
    let main = vfs.add_file("/p/lib/kernels/k3.metal", "#include <lib/kernels/utils.h>\n");
    assert_eq!(diagnostics_of(&parse_file(main, &vfs, &PpConfig::default()))[0].0, "W0030");
}

#[test]
fn the_search_above_stops_at_the_project_root() {
    let dir = std::env::temp_dir().join(format!("msl-infer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for d in ["proj/.git", "proj/src/shaders", "common"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    // outside the project (above its root): not looked at
    std::fs::write(dir.join("common/outside.h"), "int outside;\n").unwrap();
    std::fs::create_dir_all(dir.join("proj/common")).unwrap();
    std::fs::write(dir.join("proj/common/inside.h"), "int inside;\n").unwrap();
    let main = dir.join("proj/src/shaders/k.metal");
    std::fs::write(&main, "#include \"common/inside.h\"\n#include \"common/outside.h\"\n").unwrap();
    let vfs = Vfs::with_disk();
    let id = vfs.load(&main).unwrap();
    let parse = parse_file(id, &vfs, &PpConfig::default());
    assert_eq!(tokens(&parse), "int inside ;");
    let codes: Vec<_> = diagnostics_of(&parse).into_iter().map(|(c, _)| c).collect();
    assert_eq!(codes, ["N0034", "E0033"]);
    let _ = std::fs::remove_dir_all(&dir);
}
