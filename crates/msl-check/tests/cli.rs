//! The command line as users and scripts see it: every option, format, exit status and
//! kind of bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_msl-check"))
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin().args(args).current_dir(dir).output().expect("msl-check runs")
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("msl-check runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn fixture(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(rel).display().to_string()
}

/// A fresh directory with the given files.
fn scratch(files: &[(&str, &str)]) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir =
        std::env::temp_dir().join(format!("msl-check-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&dir);
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const GOOD: &str = "kernel void k(device float *a [[buffer(0)]], uint i [[thread_position_in_grid]]) { a[i] = 1; }\n";
const BAD: &str = "kernel void k(device float *a [[buffer(0)]]) {\n    a[0] = 1\n}\n";

#[test]
fn clean_file_exits_zero_with_only_a_summary() {
    let out = run(&[&fixture("hello.metal")]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("checked 1 file: 0 errors, 0 warnings"));
}

#[test]
fn human_format_shows_the_line_a_caret_and_help() {
    let out = run(&["--color", "never", &fixture("syntax/err/missing_semicolon.metal")]);
    assert_eq!(out.status.code(), Some(1));
    let s = stdout(&out);
    assert!(s.contains("missing_semicolon.metal:2:16: error[E0100]: expected `;`, found `float`"), "{s}");
    assert!(s.contains("2 |     float x = 1\n"), "{s}");
    assert!(s.contains("  |                ^\n"), "{s}");
    assert!(s.contains("= help: The source does not follow the Metal (C++) grammar (see `msl-check --explain E0100`)"));
    let syntax_only = run(&["--syntax-only", "--color", "never", &fixture("syntax/err/missing_semicolon.metal")]);
    assert_eq!(syntax_only.status.code(), Some(1));
    assert!(stdout(&syntax_only).contains("error[E0100]"));
    let colored = run(&["--color", "always", &fixture("syntax/err/missing_semicolon.metal")]);
    assert!(stdout(&colored).contains("\x1b[1;31merror[E0100]"));
}

#[test]
fn semantic_checks_with_hints() {
    let src = "kernel void k(device float *a [[buffer(0)]], uint v [[vertex_id]]) { a[v] = 1; }\n";
    let dir = scratch(&[("s.metal", src)]);
    let out = run_in(&dir, &["--color", "never", "s.metal"]);
    assert_eq!(out.status.code(), Some(1));
    let s = stdout(&out);
    assert!(
        s.contains("s.metal:1:55: error[E1102]: `[[vertex_id]]` cannot be used on a parameter of a kernel function"),
        "{s}"
    );
    assert!(s.contains("= help: it is an input of vertex functions\n"), "{s}");
    assert!(s.contains("(see `msl-check --explain E1102`)"), "{s}");
    // the hint travels in JSON and SARIF too
    let json: serde_json::Value =
        serde_json::from_slice(&run_in(&dir, &["--format", "json", "-q", "s.metal"]).stdout).unwrap();
    assert_eq!(json[0]["code"], "E1102");
    assert_eq!(json[0]["hint"], "it is an input of vertex functions");
    let sarif: serde_json::Value =
        serde_json::from_slice(&run_in(&dir, &["--format", "sarif", "-q", "s.metal"]).stdout).unwrap();
    assert_eq!(sarif["runs"][0]["results"][0]["properties"]["hint"], "it is an input of vertex functions");
    assert_eq!(sarif["runs"][0]["tool"]["driver"]["rules"][0]["name"], "attribute-wrong-stage");
    // --syntax-only skips the checker; rule levels and suppressions apply to its codes
    assert_eq!(run_in(&dir, &["-q", "--syntax-only", "s.metal"]).status.code(), Some(0));
    assert_eq!(run_in(&dir, &["-q", "--rule", "E1102=off", "s.metal"]).status.code(), Some(0));
    let sup = scratch(&[("s.metal", &format!("// msl-check-ignore: E1102 -- generated code\n{src}"))]);
    assert_eq!(run_in(&sup, &["-q", "s.metal"]).status.code(), Some(0));
    let explain = run(&["--explain", "E1102"]);
    assert_eq!(explain.status.code(), Some(0));
    assert!(stdout(&explain).starts_with("E1102 (attribute-wrong-stage)"));
}

#[test]
fn json_follows_the_contract() {
    // a line with a multi-byte character before the error: columns count characters
    let dir = scratch(&[("u.metal", "void f() { /* é */ int x = ; }\n")]);
    let out = run_in(&dir, &["--format", "json", "-q", "u.metal"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stderr.is_empty());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let items = v.as_array().expect("an array");
    assert_eq!(items.len(), 1);
    let item = items[0].as_object().unwrap();
    let mut keys: Vec<&str> = item.keys().map(|k| k.as_str()).collect();
    keys.sort();
    assert_eq!(keys, ["code", "column", "end_column", "end_line", "line", "message", "path", "severity"]);
    assert_eq!(item["path"], "u.metal");
    assert_eq!(item["line"], 1);
    // just after `=`: character 27 (byte 28, since `é` takes two bytes)
    assert_eq!(item["column"], 27, "1-based, in characters");
    assert!(item["end_column"].as_u64() >= item["column"].as_u64());
    assert_eq!(item["severity"], "error");
    assert_eq!(item["code"], "E0100");
    for sev in items.iter().map(|i| i["severity"].as_str().unwrap()) {
        assert!(["error", "warning", "note", "help"].contains(&sev));
    }
}

#[test]
fn sarif_has_the_required_structure() {
    let dir = scratch(&[("a dir/bad.metal", BAD), ("w.metal", "#include <CoreImage/CoreImage.h>\n")]);
    let out = run_in(&dir, &["--format", "sarif", "-q", "a dir/bad.metal", "w.metal"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("SARIF is JSON");
    // sarifLog: version and runs are required
    assert_eq!(v["version"], "2.1.0");
    assert!(v["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run = &v["runs"][0];
    // run: tool is required; tool: driver is required; toolComponent: name is required
    assert_eq!(run["tool"]["driver"]["name"], "msl-check");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["E0100", "W0030"]);
    for r in rules {
        assert!(r["shortDescription"]["text"].is_string());
        assert!(r["help"]["text"].is_string());
        assert!(["error", "warning", "note", "none"].contains(&r["defaultConfiguration"]["level"].as_str().unwrap()));
    }
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for res in results {
        // result: message is required, with text
        assert!(res["message"]["text"].is_string());
        let rule_index = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[rule_index]["id"], res["ruleId"]);
        let loc = &res["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(loc["region"]["startColumn"].as_u64().unwrap() >= 1);
    }
    assert_eq!(results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "a%20dir/bad.metal");
    assert!(run["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap().starts_with("file:///"));
}

#[test]
fn github_annotations() {
    let dir = scratch(&[("bad.metal", BAD)]);
    let out = run_in(&dir, &["--format", "github", "-q", "bad.metal"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "::error file=bad.metal,line=2,col=13,endLine=2,endColumn=13,title=E0100 (syntax-error)::expected `;`, found `}`\n"
    );
}

#[test]
fn statistics_and_explain() {
    let out = run(&["--statistics", "-q", &fixture("syntax/err")]);
    assert_eq!(out.status.code(), Some(1));
    let s = stdout(&out);
    assert!(s.lines().next().unwrap().contains("E0100  syntax-error"), "{s}");
    assert!(s.contains("W0030  unmodelled-header"));
    let json = run(&["--statistics", "--format", "json", "-q", &fixture("syntax/err")]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(v.as_array().unwrap().iter().any(|e| e["code"] == "E0013" && e["count"].as_u64().unwrap() >= 2));

    let ex = run(&["--explain", "e0033"]);
    assert_eq!(ex.status.code(), Some(0));
    let s = stdout(&ex);
    assert!(s.starts_with("E0033 (header-not-found)"));
    assert!(s.contains("Example that triggers it:") && s.contains("Fixed:"));
    let unknown = run(&["--explain", "E9999"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("unknown code `E9999`"));
}

#[test]
fn preprocessor_flags() {
    let dir = scratch(&[
        (
            "flags.metal",
            "#if __METAL_VERSION__ != 210 || !defined(__METAL_IOS__) || !defined(WITH_X) || VALUE != 3 || defined(GONE)\n\
             #error wrong flags\n#endif\n#include \"dep.h\"\n",
        ),
        ("inc/dep.h", "constant int dep = 0;\n"),
    ]);
    for std in [&["-std=ios-metal2.1"][..], &["--std", "ios-metal2.1"], &["--std", "metal2.1", "--platform", "ios"]] {
        let mut args: Vec<&str> = std.to_vec();
        args.extend(["-D", "WITH_X", "-DVALUE=3", "-DGONE", "-U", "GONE", "-I", "inc", "flags.metal"]);
        let ok = run_in(&dir, &args);
        assert_eq!(ok.status.code(), Some(0), "{args:?}: {}", stdout(&ok));
    }
    let bad = run_in(&dir, &["--std", "metal3.0", "-I", "inc", "flags.metal"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(stdout(&bad).contains("#error wrong flags"));
    let no_inc = run_in(&dir, &["-std=ios-metal2.1", "-D", "WITH_X", "-DVALUE=3", "flags.metal"]);
    assert!(stdout(&no_inc).contains("file not found: \"dep.h\""));
    assert_eq!(run_in(&dir, &["--platform", "android", "flags.metal"]).status.code(), Some(2));
}

#[test]
fn msl_toml_is_found_upward_and_overridden_by_flags() {
    let dir = scratch(&[
        (
            "msl.toml",
            "std = \"ios-metal2.1\"\ninclude = [\"inc\"]\ndefines = [\"WITH_X\", \"VALUE=3\"]\nextensions = [\"shader\"]\n\n[rules]\nW0030 = \"off\"\nW0005 = \"error\"\n",
        ),
        ("inc/dep.h", "constant int dep = 0;\n"),
        (
            "src/deep/a.metal",
            "#if __METAL_VERSION__ != 210 || !defined(WITH_X) || VALUE != 3\n#error wrong\n#endif\n#include \"dep.h\"\n#include <CoreImage/CoreImage.h>\n",
        ),
        ("src/b.shader", GOOD),
        ("other.toml", "std = \"metal3.2\"\n"),
    ]);
    let out = run_in(&dir, &["-q", "src"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // `extensions` added `.shader` to the directory walk
    assert!(stderr(&run_in(&dir, &["src"])).contains("checked 2 files"));
    // the command line wins over the file
    assert_eq!(run_in(&dir, &["-q", "--std", "metal3.2", "src/deep/a.metal"]).status.code(), Some(1));
    // --config replaces discovery, --no-config ignores it
    assert_eq!(run_in(&dir, &["-q", "--config", "other.toml", "src/deep/a.metal"]).status.code(), Some(1));
    let none = run_in(&dir, &["-q", "--no-config", "src/deep/a.metal"]);
    assert!(stdout(&none).contains("W0030"));
    // a rule level from msl.toml turns a warning into an error
    let redef = scratch(&[("msl.toml", "[rules]\nW0005 = \"error\"\n"), ("r.metal", "#define A 1\n#define A 2\n")]);
    let out = run_in(&redef, &["--format", "json", "-q", "r.metal"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("\"severity\":\"error\""));
    // a broken msl.toml is a clear usage error
    let broken = scratch(&[("msl.toml", "std = \"metal9\"\n"), ("a.metal", GOOD)]);
    let out = run_in(&broken, &["a.metal"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown `std` value `metal9`"), "{}", stderr(&out));
    let typo = scratch(&[("msl.toml", "stdd = \"metal3.2\"\n"), ("a.metal", GOOD)]);
    assert!(stderr(&run_in(&typo, &["a.metal"])).contains("unknown field `stdd`"));
}

#[test]
fn rule_levels_and_warnings_as_errors() {
    let dir = scratch(&[("w.metal", "#include <CoreImage/CoreImage.h>\nconstant int x = 0;\n")]);
    let warn = run_in(&dir, &["w.metal"]);
    assert_eq!(warn.status.code(), Some(0), "a warning alone does not fail");
    assert!(stderr(&warn).contains("0 errors, 1 warning"));
    assert_eq!(run_in(&dir, &["--warnings-as-errors", "w.metal"]).status.code(), Some(1));
    assert_eq!(run_in(&dir, &["--rule", "W0030=error", "w.metal"]).status.code(), Some(1));
    let off = run_in(&dir, &["--rule", "W0030=off", "w.metal"]);
    assert!(off.stdout.is_empty() && stderr(&off).contains("0 warnings"));
    assert_eq!(run_in(&dir, &["--rule", "W0030", "w.metal"]).status.code(), Some(2));
    assert_eq!(run_in(&dir, &["--rule", "W0030=loud", "w.metal"]).status.code(), Some(2));
}

#[test]
fn inline_suppressions() {
    let dir = scratch(&[
        (
            "s.metal",
            "void f() {\n    int a = ; // msl-check-ignore: E0100 -- fixed in the next release\n    // msl-check-ignore: E0100\n    int b = ;\n    int c = ;\n}\n",
        ),
        (
            "file.metal",
            "// msl-check-ignore-file: W0030, E0033 -- vendored shader\n#include <CoreImage/CoreImage.h>\n#include \"gone.h\"\n",
        ),
    ]);
    let out = run_in(&dir, &["--format", "json", "-q", "s.metal", "file.metal"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got: Vec<(String, u64)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["code"].as_str().unwrap().to_string(), i["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, [("W0901".to_string(), 3), ("E0100".to_string(), 5)]);
}

#[test]
fn directories_gitignore_hidden_and_extensions() {
    let dir = scratch(&[
        (".gitignore", "build/\n"),
        ("a.metal", GOOD),
        ("sub/b.metal", GOOD),
        ("build/generated.metal", BAD),
        (".hidden/c.metal", BAD),
        ("notes.txt", "not a shader"),
        ("x.comp", GOOD),
    ]);
    let out = run_in(&dir, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stderr(&out).contains("checked 2 files"), "{}", stderr(&out));
    assert!(stderr(&run_in(&dir, &["--include-ext", "comp", "."])).contains("checked 3 files"));
    // a file named explicitly is checked whatever its extension
    assert_eq!(run_in(&dir, &["x.comp"]).status.code(), Some(0));
    assert_eq!(run_in(&dir, &["build/generated.metal"]).status.code(), Some(1));
}

#[test]
fn standard_input() {
    let dir = scratch(&[("inc/h.h", "constant int h = 0;\n")]);
    let mut child = bin()
        .args(["--stdin-filename", "shaders/x.metal", "-I", "inc", "--format", "json", "-q", "-"])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"#include \"h.h\"\nint y = ;\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["path"], "shaders/x.metal");
    assert_eq!(v[0]["line"], 2);
}

#[test]
fn header_problems_are_reported_once() {
    let dir =
        scratch(&[("h.h", "int broken = ;\n"), ("a.metal", "#include \"h.h\"\n"), ("b.metal", "#include \"h.h\"\n")]);
    let out = run_in(&dir, &["--format", "json", "-q", "a.metal", "b.metal"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["path"], "h.h");
}

#[test]
fn bad_inputs_get_one_clear_message() {
    // a missing path
    let out = run(&["/definitely/not/here.metal"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("/definitely/not/here.metal: no such file or directory"), "{}", stderr(&out));
    // an unreadable file (a dangling link: unreadable even for root)
    let dir = scratch(&[("ok.metal", GOOD)]);
    std::os::unix::fs::symlink(dir.join("missing-target"), dir.join("dangling.metal")).unwrap();
    let out = run_in(&dir, &["dangling.metal"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("dangling.metal"));
    // a directory with no shaders
    let empty = scratch(&[("readme.txt", "nothing here")]);
    let out = run_in(&empty, &["."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no files with extension `.metal` found"));
    // a binary file
    let bin_dir = scratch(&[]);
    std::fs::write(bin_dir.join("blob.metal"), b"\x7fELF\x02\x01\x01\0\0\0\0binary").unwrap();
    let out = run_in(&bin_dir, &["blob.metal"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("looks like a binary file"));
    assert_eq!(stderr(&out).matches("binary").count(), 1, "one message");
    // invalid UTF-8: reported, not fatal to the run
    let utf = scratch(&[]);
    std::fs::write(utf.join("latin1.metal"), b"// caf\xe9\nint x;\n").unwrap();
    let out = run_in(&utf, &["--format", "json", "-q", "latin1.metal"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("\"code\":\"E0003\""));
    // an include cycle
    let cyc =
        scratch(&[("a.h", "#include \"b.h\"\n"), ("b.h", "#include \"a.h\"\n"), ("m.metal", "#include \"a.h\"\n")]);
    let out = run_in(&cyc, &["m.metal"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("#include cycle"));
    // a 50 MB file
    let big = scratch(&[]);
    // (kernels of distinct names: one name defined twice is an error)
    let text: String =
        (0..50 * 1024 * 1024 / GOOD.len()).map(|n| GOOD.replacen("void k(", &format!("void k{n}("), 1)).collect();
    std::fs::write(big.join("big.metal"), &text).unwrap();
    let out = run_in(&big, &["big.metal"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn usage_errors_exit_two() {
    assert_eq!(run(&["--no-such-flag"]).status.code(), Some(2));
    assert_eq!(run(&["--std", "metal9.9", &fixture("hello.metal")]).status.code(), Some(2));
    assert_eq!(run(&["--format", "xml", &fixture("hello.metal")]).status.code(), Some(2));
    let help = run(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(stdout(&help).contains("--warnings-as-errors"));
    let version = run(&["--version"]);
    assert!(stdout(&version).starts_with("msl-check "));
}

#[test]
fn includes_written_from_the_project_root_need_no_configuration() {
    let dir = scratch(&[
        (".git/HEAD", "ref: refs/heads/main\n"),
        (
            "lib/kernels/utils.h",
            "#pragma once\n#define instantiate(name) template [[host_name(#name)]] [[kernel]] void k<float>(device float *a [[buffer(0)]]);\ninline float gain(float x) { return 2 * x; }\n",
        ),
        (
            "lib/kernels/scale.metal",
            "#include \"lib/kernels/utils.h\"\ntemplate <typename T> kernel void k(device T *a [[buffer(0)]]) { a[0] = gain(a[0]); }\ninstantiate(k_f32)\n",
        ),
    ]);
    // checked from anywhere in the project, with no -I and no msl.toml
    for at in [dir.clone(), dir.join("lib/kernels")] {
        let out = run_in(&at, &["--no-config", "--color", "never", "."]);
        assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
        // where the header was found is said only when asked
        assert!(!stdout(&out).contains("N0034"));
        let out = run_in(&at, &["--no-config", "--verbose", "--color", "never", "."]);
        assert!(
            stdout(&out).contains("note[N0034]") && stdout(&out).contains("a folder above this file"),
            "{}",
            stdout(&out)
        );
        assert_eq!(out.status.code(), Some(0));
    }
    // turned off in msl.toml: the header is missing, and that is the only error (its
    // macro's invocation is not a cascade of syntax errors)
    std::fs::write(dir.join("msl.toml"), "infer_includes = false\n").unwrap();
    let out = run_in(&dir, &["--color", "never", "--format", "json", "."]);
    assert_eq!(out.status.code(), Some(1));
    let codes: Vec<String> = serde_json::from_str::<serde_json::Value>(&stdout(&out))
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(codes, ["E0033"], "{}", stdout(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

const PBXPROJ: &str = r#"// !$*UTF8*$!
{
	objects = {
		P1 = { isa = PBXProject; buildConfigurationList = L1; };
		L1 = { isa = XCConfigurationList; buildConfigurations = ( C1, ); };
		C1 = { isa = XCBuildConfiguration; name = Release; buildSettings = {
			MTL_HEADER_SEARCH_PATHS = "$(SRCROOT)/Shared";
			MTL_PREPROCESSOR_DEFINITIONS = ( "TILE=16", "$(inherited)", );
			MTL_LANGUAGE_REVISION = Metal24;
			SDKROOT = iphoneos;
		}; };
	};
	rootObject = P1;
}
"#;

#[test]
fn xcode_projects_give_their_files_metal_settings() {
    let shader = "#include \"types.h\"\n#if TILE != 16 || !defined(__METAL_IOS__) || __METAL_VERSION__ != 240\n#error the project's settings were not used\n#endif\nkernel void k(device Item *a [[buffer(0)]]) { a[0].v = TILE; }\n";
    let dir = scratch(&[
        ("App.xcodeproj/project.pbxproj", PBXPROJ),
        ("Shared/types.h", "struct Item { float v; };\n"),
        ("App/Shaders/k.metal", shader),
    ]);
    let out = run_in(&dir.join("App"), &["--no-config", "--color", "never", "Shaders/k.metal"]);
    assert_eq!(out.status.code(), Some(0), "{}{}", stdout(&out), stderr(&out));
    // msl.toml and the command line win over the project
    let out = run_in(&dir, &["--color", "never", "-D", "TILE=8", "App/Shaders/k.metal"]);
    assert!(stdout(&out).contains("the project's settings were not used"), "{}", stdout(&out));
    std::fs::write(dir.join("msl.toml"), "std = \"metal3.0\"\n").unwrap();
    let out = run_in(&dir, &["--color", "never", "App/Shaders/k.metal"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    // a project file that cannot be read is passed over
    std::fs::write(dir.join("App.xcodeproj/project.pbxproj"), "{ objects = ( ").unwrap();
    let out = run_in(&dir, &["--no-config", "--color", "never", "App/Shaders/k.metal"]);
    assert!(stdout(&out).contains("E0033") && out.status.code() == Some(1), "{}", stdout(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_search_for_a_header_above_stops_at_the_project_root() {
    // `common/shared.h` exists above the project, but the project's root (its `.git`)
    // ends the search: a header of another project is never picked up
    let dir = scratch(&[
        ("common/shared.h", "inline float gain(float x) { return x; }\n"),
        ("proj/.git/HEAD", "ref: refs/heads/main\n"),
        (
            "proj/src/k.metal",
            "#include \"common/shared.h\"\nkernel void k(device float *a [[buffer(0)]]) { a[0] = 1; }\n",
        ),
    ]);
    let out = run_in(&dir.join("proj"), &["--no-config", "--color", "never", "src/k.metal"]);
    assert!(stdout(&out).contains("E0033") && out.status.code() == Some(1), "{}", stdout(&out));
    // without the marker the folder above is part of the search
    std::fs::remove_dir_all(dir.join("proj/.git")).unwrap();
    let out = run_in(&dir.join("proj"), &["--no-config", "--color", "never", "src/k.metal"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let _ = std::fs::remove_dir_all(&dir);
}
