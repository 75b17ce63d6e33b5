//! The compiler backend against a stand-in for Apple's `metal` that replays recorded
//! output (fixtures/compiler/recordings) after checking the arguments it receives.
//! Every test works in a directory whose path holds spaces and non-ASCII characters.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use msl_compiler::{Compiler, Discover, Job, LineCol, NoteKind, Origin, RunError, Severity, Span, check, emit_air};
use msl_syntax::{MetalVersion, Platform, PpConfig};
use serde_json::{Value, json};

const XCODE_METAL: &str =
    "/Applications/Xcode.app/Contents/Developer/Toolchains/XcodeDefault.xctoolchain/usr/metal/32023";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/compiler")
}

fn recording(name: &str) -> String {
    std::fs::read_to_string(fixtures().join("recordings").join(name)).expect("recording")
}

/// A fresh directory with the shader and its header, under a path with a space and
/// non-ASCII characters. Removed when dropped.
struct Sandbox {
    root: PathBuf,
    /// Where runs put their temporary files.
    tmp: PathBuf,
}

impl Sandbox {
    fn new(name: &str) -> Sandbox {
        static N: AtomicU64 = AtomicU64::new(0);
        let root = std::env::temp_dir().join(format!(
            "msl compiler tëst {name} {} {}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("shaders ünïcode")).unwrap();
        std::fs::create_dir_all(root.join("tmp")).unwrap();
        for f in ["shader.metal", "common.h"] {
            std::fs::copy(fixtures().join(f), root.join("shaders ünïcode").join(f)).unwrap();
        }
        Sandbox { tmp: root.join("tmp"), root }
    }

    /// What runs left in the temporary directory (nothing, when they clean up).
    fn leftovers(&self) -> Vec<PathBuf> {
        std::fs::read_dir(&self.tmp).unwrap().filter_map(|e| e.ok()).map(|e| e.path()).collect()
    }

    fn shader(&self) -> PathBuf {
        self.root.join("shaders ünïcode").join("shader.metal")
    }

    fn header(&self) -> PathBuf {
        self.root.join("shaders ünïcode").join("common.h")
    }

    /// Installs the stand-in as `bin dir/<name>` with this configuration.
    fn standin(&self, name: &str, mut config: Value) -> Compiler {
        let dir = self.root.join("tools dir");
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join(name);
        std::fs::copy(env!("CARGO_BIN_EXE_msl-compiler-standin"), &exe).unwrap();
        config["record"] = json!(self.record_path().to_string_lossy());
        std::fs::write(dir.join("standin.json"), config.to_string()).unwrap();
        Compiler::at(exe, Origin::Setting)
    }

    fn record_path(&self) -> PathBuf {
        self.root.join("tools dir").join("received.json")
    }

    /// What the stand-in received.
    fn received(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.record_path()).expect("the stand-in ran")).unwrap()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn config() -> PpConfig {
    let mut c = PpConfig { version: MetalVersion::V3_2, ..PpConfig::default() };
    c.define("FOO=1");
    c.define("BAR");
    c.undefines.push("BAZ".into());
    c
}

fn job<'a>(sb: &'a Sandbox, main: &'a Path, text: Option<&'a str>, config: &'a PpConfig) -> Job<'a> {
    Job {
        main,
        main_text: text,
        unsaved: &[],
        config,
        timeout: Duration::from_secs(20),
        cancel: None,
        temp_dir: Some(&sb.tmp),
    }
}

fn span(path: &Path, a: (u32, u32), b: (u32, u32)) -> Span {
    Span { path: path.to_path_buf(), start: LineCol::new(a.0, a.1), end: LineCol::new(b.0, b.1) }
}

fn argv(received: &Value) -> Vec<String> {
    received["argv"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect()
}

#[test]
fn error_with_a_note_and_a_fix_it() {
    let sb = Sandbox::new("notes");
    let mut cfg = config();
    let inc = sb.root.join("include dir ø");
    std::fs::create_dir_all(&inc).unwrap();
    cfg.include_dirs.push(inc.clone());
    let c = sb.standin(
        "metal",
        json!({
            "require": ["-x", "metal", "-std=metal3.2", "-fno-color-diagnostics", "-fdiagnostics-parseable-fixits",
                        "-DFOO=1", "-DBAR", "-UBAZ", "-I", inc.to_string_lossy(), "-fsyntax-only"],
            "forbid": ["-emit-llvm", "-iquote"],
            "stderr": recording("error-notes-fixit.txt"),
            "exit": 1,
        }),
    );
    let shader = sb.shader();
    let out = check(&c, &job(&sb, &shader, None, &cfg)).expect("a verdict");
    // the saved file is compiled in place
    let got = sb.received();
    assert_eq!(got["input"].as_str().unwrap(), shader.to_string_lossy());
    assert_eq!(argv(&got).last().unwrap(), &shader.to_string_lossy());
    assert_eq!(out.exit.code, Some(1));
    assert_eq!(out.diagnostics.len(), 1);
    let d = &out.diagnostics[0];
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.path, shader);
    assert_eq!(d.at, Some(LineCol::new(10, 14)));
    assert_eq!(d.message, "use of undeclared identifier 'clamb'; did you mean 'clamp'?");
    assert_eq!(d.range, Some(span(&shader, (10, 14), (10, 19))));
    assert!(d.include_stack.is_empty());
    assert_eq!(d.fixits.len(), 1);
    assert_eq!(d.fixits[0].span, span(&shader, (10, 14), (10, 19)));
    assert_eq!(d.fixits[0].text, "clamp");
    assert_eq!(d.notes.len(), 1);
    let n = &d.notes[0];
    assert_eq!(n.kind, NoteKind::Note);
    assert_eq!(n.message, "'clamp' declared here");
    let stdlib = PathBuf::from(XCODE_METAL).join("lib/clang/32023.619/include/metal");
    assert_eq!(n.path, stdlib.join("metal_common"));
    assert_eq!(n.at, Some(LineCol::new(31, 42)));
    assert_eq!(n.include_stack, vec![(stdlib.join("metal_stdlib"), 21), (shader.clone(), 1)]);
    // the byte offset of the fix-it in the file
    let text = std::fs::read_to_string(&shader).unwrap();
    let off = d.fixits[0].span.start.offset_in(&text).unwrap();
    assert!(text[off..].starts_with("clamb("));
    assert!(sb.leftovers().is_empty(), "temporary files left behind: {:?}", sb.leftovers());
}

#[test]
fn include_chain_with_unsaved_text_maps_paths_back() {
    let sb = Sandbox::new("include");
    let cfg = config();
    let c = sb.standin("metal", json!({ "stderr": recording("include-chain.txt"), "exit": 1, "require": ["-iquote"] }));
    let shader = sb.shader();
    // the editor holds text that differs from the disk (an extra comment line at the end)
    let unsaved = format!("{}// unsaved edit\n", std::fs::read_to_string(&shader).unwrap());
    let out = check(&c, &job(&sb, &shader, Some(&unsaved), &cfg)).expect("a verdict");
    let got = sb.received();
    // a copy with the editor's text was compiled, from a temporary directory...
    assert_eq!(got["input_text"].as_str().unwrap(), unsaved);
    let input = PathBuf::from(got["input"].as_str().unwrap());
    assert_ne!(input, shader);
    assert_eq!(input.file_name(), shader.file_name());
    // ...with the original directory searched for quoted includes
    let args = argv(&got);
    let q = args.iter().position(|a| a == "-iquote").unwrap();
    assert_eq!(Path::new(&args[q + 1]), shader.parent().unwrap());
    // everything points at the user's files again
    assert_eq!(out.diagnostics.len(), 2);
    let h = &out.diagnostics[0];
    assert_eq!(h.path, sb.header());
    assert_eq!(h.at, Some(LineCol::new(3, 42)));
    assert_eq!(h.range, Some(span(&sb.header(), (3, 42), (3, 55))));
    assert_eq!(h.include_stack, vec![(shader.clone(), 2)]);
    let m = &out.diagnostics[1];
    assert_eq!(m.path, shader);
    assert!(m.include_stack.is_empty());
    assert_eq!(m.fixits[0].span.path, shader);
    // the copy is gone
    assert!(!input.exists());
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn unsaved_headers_are_compiled_too() {
    let sb = Sandbox::new("headers");
    let cfg = config();
    let c = sb.standin("metal", json!({ "stderr": recording("include-chain.txt"), "exit": 1 }));
    let shader = sb.shader();
    let header_text = "#pragma once\n#define SCALE(x) (x)\ninline float twice(float x) { return x * missing_value; }\n";
    let unsaved = vec![(sb.header(), header_text.to_string())];
    let j = Job { unsaved: &unsaved, ..job(&sb, &shader, None, &cfg) };
    let out = check(&c, &j).expect("a verdict");
    let got = sb.received();
    let input = PathBuf::from(got["input"].as_str().unwrap());
    assert_ne!(input, shader, "the file is copied so that its unsaved header sits beside it");
    assert_eq!(out.diagnostics[0].path, sb.header());
}

#[test]
fn macro_expansion_notes() {
    let sb = Sandbox::new("macro");
    let cfg = config();
    let c = sb.standin("metal", json!({ "stderr": recording("macro-expansion.txt"), "exit": 1 }));
    let shader = sb.shader();
    let out = check(&c, &job(&sb, &shader, None, &cfg)).expect("a verdict");
    assert_eq!(out.diagnostics.len(), 1);
    let d = &out.diagnostics[0];
    assert_eq!((d.path.clone(), d.at), (shader.clone(), Some(LineCol::new(11, 15))));
    assert_eq!(d.message, "use of undeclared identifier 'scale_factor'");
    assert_eq!(d.notes.len(), 1);
    let n = &d.notes[0];
    assert_eq!(n.kind, NoteKind::MacroExpansion("SCALE".into()));
    assert_eq!((n.path.clone(), n.at), (sb.header(), Some(LineCol::new(2, 25))));
    assert!(n.include_stack.is_empty());
}

#[test]
fn warnings_with_their_option() {
    let sb = Sandbox::new("warning");
    let cfg = config();
    let c = sb.standin("metal", json!({ "stderr": recording("warning.txt"), "exit": 0 }));
    let shader = sb.shader();
    let out = check(&c, &job(&sb, &shader, None, &cfg)).expect("a verdict");
    assert!(out.exit.success());
    assert_eq!(out.diagnostics.len(), 1);
    let d = &out.diagnostics[0];
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(d.option.as_deref(), Some("-Wunused-variable"));
    assert_eq!(d.message, "unused variable 'unused'");
    assert_eq!(d.range, Some(span(&shader, (9, 11), (9, 17))));
}

#[test]
fn missing_metal_toolchain() {
    let sb = Sandbox::new("toolchain");
    let cfg = config();
    let text = recording("missing-toolchain.txt");
    let c = sb.standin("metal", json!({ "stderr": text, "version_stderr": text, "exit": 1 }));
    let shader = sb.shader();
    let err = check(&c, &job(&sb, &shader, None, &cfg)).unwrap_err();
    assert_eq!(err, RunError::MissingToolchain { command: "xcodebuild -downloadComponent MetalToolchain".into() });
    assert!(err.to_string().contains("xcodebuild -downloadComponent MetalToolchain"));
    // discovery notices it when it asks for the version
    let d = Discover { setting: Some(c.path.clone()), ..discover_nothing() }.run();
    assert_eq!(d.compiler.as_ref().map(|c| c.version.clone()), Some(None));
    assert!(d.problem.unwrap().contains("xcodebuild -downloadComponent MetalToolchain"));
}

#[test]
fn a_crashing_compiler() {
    let sb = Sandbox::new("crash");
    let cfg = config();
    let c = sb.standin("metal", json!({ "stderr": recording("crash.txt"), "exit": 1 }));
    let shader = sb.shader();
    match check(&c, &job(&sb, &shader, None, &cfg)) {
        Err(RunError::Crashed { summary, exit }) => {
            assert_eq!(summary, "unable to execute command: Segmentation fault: 11");
            assert_eq!(exit, "exit status 1");
        }
        other => panic!("expected a crash, got {other:?}"),
    }
    // and one that dies by a signal itself
    let c = sb.standin("metal", json!({ "stderr": "standin: about to abort\n", "abort": true }));
    match check(&c, &job(&sb, &shader, None, &cfg)) {
        Err(RunError::Crashed { exit, .. }) => assert!(exit.starts_with("signal"), "{exit}"),
        other => panic!("expected a crash, got {other:?}"),
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[cfg(unix)]
fn alive(pid: u32) -> bool {
    // a zombie (state Z) is dead for our purposes
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[test]
fn a_hanging_compiler_is_killed_at_the_deadline() {
    let sb = Sandbox::new("hang");
    let cfg = config();
    let c = sb.standin("metal", json!({ "hang": true }));
    let shader = sb.shader();
    let started = Instant::now();
    let j = Job { timeout: Duration::from_millis(1500), ..job(&sb, &shader, None, &cfg) };
    let err = check(&c, &j).unwrap_err();
    assert_eq!(err, RunError::TimedOut(Duration::from_millis(1500)));
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    // the process it started was killed with it
    #[cfg(target_os = "linux")]
    {
        let pid_file = c.path.parent().unwrap().join("child.pid");
        let pid: u32 = std::fs::read_to_string(&pid_file).expect("the child started").trim().parse().unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while alive(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!alive(pid), "the compiler's child process {pid} survived");
    }
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn a_newer_edit_cancels_the_run() {
    let sb = Sandbox::new("cancel");
    let cfg = config();
    let c = sb.standin("metal", json!({ "hang": true }));
    let shader = sb.shader();
    let flag = AtomicBool::new(false);
    let started = Instant::now();
    let err = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            flag.store(true, Ordering::Relaxed);
        });
        check(&c, &Job { cancel: Some(&flag), ..job(&sb, &shader, None, &cfg) }).unwrap_err()
    });
    assert_eq!(err, RunError::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn ten_megabytes_of_output() {
    let sb = Sandbox::new("large");
    let cfg = config();
    let one = recording("large-output.txt");
    let repeat = 10_000_000 / one.len() + 1;
    let c = sb.standin("metal", json!({ "stderr": one, "repeat": repeat, "exit": 0 }));
    let shader = sb.shader();
    let out = check(&c, &job(&sb, &shader, None, &cfg)).expect("a verdict");
    assert!(!out.truncated);
    assert_eq!(out.diagnostics.len(), repeat);
    assert_eq!(out.diagnostics[repeat - 1].message, format!("unused variable 'unused_{}'", repeat - 1));
    assert!(out.diagnostics.iter().all(|d| d.range == Some(span(&shader, (9, 11), (9, 17)))));
}

#[test]
fn a_failure_without_locations() {
    let sb = Sandbox::new("failed");
    let cfg = config();
    let c =
        sb.standin("metal", json!({ "stderr": "metal: error: unknown argument: '-fexperimental-thing'\n", "exit": 1 }));
    let shader = sb.shader();
    match check(&c, &job(&sb, &shader, None, &cfg)) {
        Err(RunError::Failed { exit, message }) => {
            assert_eq!(exit, "exit status 1");
            assert_eq!(message, "unknown argument: '-fexperimental-thing'");
        }
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn air_of_a_saved_and_an_unsaved_file() {
    let sb = Sandbox::new("air");
    let cfg = config();
    let c = sb.standin(
        "metal",
        json!({
            "require": ["-x", "metal", "-std=metal3.2", "-S", "-emit-llvm", "-gline-tables-only", "-o"],
            "forbid": ["-fsyntax-only"],
            "air": recording("air.ll"),
            "stderr": recording("warning.txt"),
            "exit": 0,
        }),
    );
    let shader = sb.shader();
    let esc = msl_compiler::llvm_escape(&shader.to_string_lossy());
    // saved: compiled in place, the output written into the temporary directory
    let air = emit_air(&c, &job(&sb, &shader, None, &cfg)).expect("AIR");
    let text = air.text.expect("text");
    assert!(text.contains("target triple = \"air64_v27-apple-macosx15.0.0\""));
    assert!(text.contains(&format!("!DIFile(filename: \"{esc}\"")), "{text}");
    assert!(text.contains("!DILocation(line: 10, column: 14"));
    assert_eq!(air.checked.diagnostics.len(), 1, "warnings come along");
    let args = argv(&sb.received());
    let o = args.iter().position(|a| a == "-o").unwrap();
    assert!(!Path::new(&args[o + 1]).exists(), "the output file was removed");
    // unsaved: the copy's path never shows
    let unsaved = std::fs::read_to_string(&shader).unwrap().replace("1.0f);", "2.0f);");
    let air = emit_air(&c, &job(&sb, &shader, Some(&unsaved), &cfg)).expect("AIR");
    let text = air.text.expect("text");
    let copy = PathBuf::from(sb.received()["input"].as_str().unwrap());
    assert_ne!(copy, shader);
    assert!(text.contains(&format!("; ModuleID = '{}'", shader.display())), "{text}");
    assert!(text.contains(&format!("source_filename = \"{esc}\"")));
    let copy_dir = copy.parent().unwrap().to_string_lossy().into_owned();
    assert!(!text.contains(&copy_dir) && !text.contains(&msl_compiler::llvm_escape(&copy_dir)));
    assert!(sb.leftovers().is_empty(), "{:?}", sb.leftovers());
}

#[test]
fn air_of_a_file_with_errors() {
    let sb = Sandbox::new("air-errors");
    let cfg = config();
    let c = sb.standin("metal", json!({ "stderr": recording("error-notes-fixit.txt"), "exit": 1 }));
    let shader = sb.shader();
    let air = emit_air(&c, &job(&sb, &shader, None, &cfg)).expect("a verdict");
    assert!(air.text.is_none());
    assert_eq!(air.checked.diagnostics[0].message, "use of undeclared identifier 'clamb'; did you mean 'clamp'?");
}

#[test]
fn a_compiler_that_does_not_exist() {
    let sb = Sandbox::new("missing");
    let cfg = config();
    let c = Compiler::at(sb.root.join("no such dir").join("metal"), Origin::Setting);
    let shader = sb.shader();
    match check(&c, &job(&sb, &shader, None, &cfg)) {
        Err(RunError::Spawn { path, .. }) => assert_eq!(path, c.path),
        other => panic!("expected a spawn failure, got {other:?}"),
    }
    match emit_air(&c, &job(&sb, &shader, None, &cfg)) {
        Err(RunError::Spawn { .. }) => {}
        other => panic!("expected a spawn failure, got {other:?}"),
    }
}

// ---- discovery -----------------------------------------------------------------------------

fn discover_nothing() -> Discover {
    Discover {
        setting: None,
        env_var: None,
        path_var: None,
        program_files: None,
        platform: Platform::MacOS,
        probe_timeout: Duration::from_secs(10),
    }
}

#[test]
fn discovery_order() {
    let sb = Sandbox::new("discovery");
    let version = recording("version.txt");
    let c = sb.standin("metal", json!({ "version": version }));
    let bin = c.path.parent().unwrap().to_path_buf();

    // nothing anywhere
    let d = discover_nothing().run();
    assert!(d.compiler.is_none() && d.problem.is_none());

    // on PATH, with its version
    let path_var = std::env::join_paths([sb.root.join("empty"), bin.clone()]).unwrap();
    let d = Discover { path_var: Some(path_var.clone()), ..discover_nothing() }.run();
    let found = d.compiler.expect("found on PATH");
    assert_eq!(found.origin, Origin::Path);
    assert_eq!(found.path, c.path);
    assert_eq!(found.version.as_deref(), Some("Apple metal version 32023.619 (metalfe-32023.619)"));

    // xcrun comes before PATH, and is asked about the platform's SDK
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let xdir = sb.root.join("xcrun dir");
        std::fs::create_dir_all(&xdir).unwrap();
        let xcrun = xdir.join("xcrun");
        let script = format!(
            "#!/bin/sh\n[ \"$1 $3 $4\" = \"--sdk --find metal\" ] || exit 3\ncase \"$2\" in\n  macosx|iphoneos) echo '{}' ;;\n  *) echo \"xcrun: error: SDK \\\"$2\\\" cannot be located\" >&2; exit 1 ;;\nesac\n",
            c.path.display()
        );
        std::fs::write(&xcrun, script).unwrap();
        std::fs::set_permissions(&xcrun, std::fs::Permissions::from_mode(0o755)).unwrap();
        let with_xcrun = std::env::join_paths([xdir.clone(), bin.clone()]).unwrap();
        let d = Discover { path_var: Some(with_xcrun.clone()), ..discover_nothing() }.run();
        assert_eq!(d.compiler.unwrap().origin, Origin::Xcrun { sdk: "macosx" });
        let d = Discover { path_var: Some(with_xcrun.clone()), platform: Platform::IOS, ..discover_nothing() }.run();
        assert_eq!(d.compiler.unwrap().origin, Origin::Xcrun { sdk: "iphoneos" });
        // an SDK xcrun does not know: PATH is next
        let d = Discover { path_var: Some(with_xcrun), platform: Platform::VisionOS, ..discover_nothing() }.run();
        assert_eq!(d.compiler.unwrap().origin, Origin::Path);
        assert!(d.tried.iter().any(|t| t.contains("cannot be located")), "{:?}", d.tried);
    }

    // the environment variable beats xcrun and PATH; the setting beats everything
    let d =
        Discover { env_var: Some(c.path.clone().into()), path_var: Some(path_var.clone()), ..discover_nothing() }.run();
    assert_eq!(d.compiler.unwrap().origin, Origin::Environment);
    let d = Discover {
        setting: Some(c.path.clone()),
        env_var: Some(c.path.clone().into()),
        path_var: Some(path_var.clone()),
        ..discover_nothing()
    }
    .run();
    assert_eq!(d.compiler.unwrap().origin, Origin::Setting);

    // an explicit path that is wrong is reported, and nothing else is tried
    let d = Discover { setting: Some(sb.root.join("nope")), path_var: Some(path_var), ..discover_nothing() }.run();
    assert!(d.compiler.is_none());
    assert!(d.problem.unwrap().contains("does not exist"));

    // the Metal Developer Tools' default place on Windows
    let pf = sb.root.join("Program Files");
    let tools = pf.join("Metal Developer Tools").join("macos").join("bin");
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::copy(&c.path, tools.join("metal.exe")).unwrap();
    std::fs::copy(c.path.parent().unwrap().join("standin.json"), tools.join("standin.json")).unwrap();
    let d = Discover { program_files: Some(pf), ..discover_nothing() }.run();
    let found = d.compiler.unwrap();
    assert_eq!(found.origin, Origin::WindowsDefault);
    assert!(found.version.is_some());
}
