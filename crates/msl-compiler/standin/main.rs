//! A stand-in for Apple's `metal`, for tests on machines without Apple's tools.
//!
//! Tests copy this executable into a directory of their own (under any name, e.g.
//! `metal`) next to a `standin.json` that says what to replay. The stand-in first checks
//! the argument vector the way the real driver would need it (one input that exists,
//! `-x metal`, one `-std=`, an output path whose directory exists, ...), records what it
//! received, then prints the recorded output with placeholders filled in:
//!
//! | placeholder | replaced by |
//! | --- | --- |
//! | `{input}` | the input path as received |
//! | `{input_fixit}` | the same, escaped as clang's `fix-it:` lines escape paths (octal bytes) |
//! | `{input_ir}` | the same, escaped as LLVM IR metadata strings escape them (`\XX`) |
//! | `{input_dir}`, `{input_dir_ir}` | the input's directory |
//! | `{cwd}`, `{cwd_ir}` | the working directory |
//! | `{n}` | the repetition number (with `repeat`) |
//!
//! Keys of `standin.json`: `version` (printed for `--version`), `require` (arguments
//! that must appear, in this order), `forbid` (arguments that must not), `stdout`,
//! `stderr`, `version_stderr` (printed instead of a version, exiting with `exit`), `repeat` (print `stderr` this many times), `exit` (status), `air` (written
//! to the `-o` path), `hang` (sleep until killed, with a child process that does the
//! same), `abort` (die by a signal after printing), `record` (file to write what was
//! received as JSON).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--standin-sleep") {
        // the child of a hanging compiler: say where it is, then sleep
        if let Some(pid_file) = args.get(1) {
            let _ = std::fs::write(pid_file, std::process::id().to_string());
        }
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    let here = std::env::current_exe().ok().and_then(|p| p.parent().map(Path::to_path_buf)).unwrap_or_default();
    let config: Value = std::fs::read_to_string(here.join("standin.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| json!({}));
    let text = |key: &str| config.get(key).and_then(Value::as_str).map(str::to_string);

    if args.len() == 1 && args[0] == "--version" {
        if let Some(err) = text("version_stderr") {
            eprint!("{err}");
            std::process::exit(config.get("exit").and_then(Value::as_i64).unwrap_or(1) as i32);
        }
        print!("{}", text("version").unwrap_or_else(|| "standin metal version 0\n".into()));
        return;
    }

    let parsed = match Parsed::from(&args) {
        Ok(p) => p,
        Err(problem) => fail(&format!("bad arguments: {problem}")),
    };
    if let Some(list) = config.get("require").and_then(Value::as_array) {
        let mut from = 0;
        for want in list.iter().filter_map(Value::as_str) {
            match args[from..].iter().position(|a| a == want) {
                Some(i) => from += i + 1,
                None => fail(&format!("missing argument `{want}` (in order) in {args:?}")),
            }
        }
    }
    if let Some(list) = config.get("forbid").and_then(Value::as_array) {
        for bad in list.iter().filter_map(Value::as_str) {
            if args.iter().any(|a| a == bad) {
                fail(&format!("unexpected argument `{bad}` in {args:?}"));
            }
        }
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    if let Some(record) = text("record") {
        let input_text = std::fs::read_to_string(&parsed.input).unwrap_or_default();
        let v = json!({
            "argv": args,
            "cwd": cwd.to_string_lossy(),
            "input": parsed.input.to_string_lossy(),
            "input_text": input_text,
        });
        let _ = std::fs::write(record, v.to_string());
    }

    let fill = |s: &str, n: u64| -> String {
        let input = parsed.input.to_string_lossy().into_owned();
        let dir = parsed.input.parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        let cwd_s = cwd.to_string_lossy().into_owned();
        s.replace("{input_fixit}", &fixit_escape(&input))
            .replace("{input_ir}", &msl_compiler::llvm_escape(&input))
            .replace("{input_dir_ir}", &msl_compiler::llvm_escape(&dir))
            .replace("{input_dir}", &dir)
            .replace("{input}", &input)
            .replace("{cwd_ir}", &msl_compiler::llvm_escape(&cwd_s))
            .replace("{cwd}", &cwd_s)
            .replace("{n}", &n.to_string())
    };

    if config.get("hang").and_then(Value::as_bool) == Some(true) {
        if let Ok(me) = std::env::current_exe() {
            let _ = std::process::Command::new(me)
                .arg("--standin-sleep")
                .arg(here.join("child.pid"))
                .stdout(std::process::Stdio::null())
                .spawn();
        }
        eprintln!("standin: hanging");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }

    if let Some(out) = text("stdout") {
        print!("{}", fill(&out, 0));
    }
    if let Some(err) = text("stderr") {
        let repeat = config.get("repeat").and_then(Value::as_u64).unwrap_or(1);
        let stderr = std::io::stderr();
        let mut lock = std::io::BufWriter::new(stderr.lock());
        for n in 0..repeat {
            let _ = lock.write_all(fill(&err, n).as_bytes());
        }
        let _ = lock.flush();
    }
    if let (Some(air), Some(o)) = (text("air"), &parsed.output) {
        if let Err(e) = std::fs::write(o, fill(&air, 0)) {
            fail(&format!("cannot write {}: {e}", o.display()));
        }
    }
    if config.get("abort").and_then(Value::as_bool) == Some(true) {
        std::process::abort();
    }
    std::process::exit(config.get("exit").and_then(Value::as_i64).unwrap_or(0) as i32);
}

fn fail(message: &str) -> ! {
    eprintln!("standin: {message}");
    std::process::exit(90)
}

struct Parsed {
    input: PathBuf,
    output: Option<PathBuf>,
}

impl Parsed {
    /// Checks the argument vector as the real driver would need it.
    fn from(args: &[String]) -> Result<Parsed, String> {
        let mut inputs = Vec::new();
        let mut output = None;
        let mut std_count = 0;
        let mut language = None;
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            match a.as_str() {
                "-x" | "-I" | "-iquote" | "-o" => {
                    let v = args.get(i + 1).ok_or_else(|| format!("`{a}` needs a value"))?;
                    if v.is_empty() {
                        return Err(format!("`{a}` has an empty value"));
                    }
                    match a.as_str() {
                        "-x" => language = Some(v.clone()),
                        "-o" => output = Some(PathBuf::from(v)),
                        _ => {
                            if !Path::new(v).is_absolute() {
                                return Err(format!("include directory `{v}` is not absolute"));
                            }
                        }
                    }
                    i += 2;
                    continue;
                }
                _ if a.starts_with("-std=") => std_count += 1,
                _ if a.starts_with('-') => {}
                _ => inputs.push(PathBuf::from(a)),
            }
            i += 1;
        }
        if language.as_deref() != Some("metal") {
            return Err("`-x metal` is missing".into());
        }
        if std_count != 1 {
            return Err(format!("expected one `-std=`, got {std_count}"));
        }
        let [input] = inputs.as_slice() else {
            return Err(format!("expected one input file, got {inputs:?}"));
        };
        if !input.is_file() {
            return Err(format!("no such file: {}", input.display()));
        }
        let emits = args.iter().any(|a| a == "-emit-llvm");
        let syntax_only = args.iter().any(|a| a == "-fsyntax-only");
        if emits == syntax_only {
            return Err("expected exactly one of `-fsyntax-only` and `-emit-llvm`".into());
        }
        if emits {
            let o = output.as_ref().ok_or("`-emit-llvm` without `-o`")?;
            if !o.parent().is_some_and(Path::is_dir) {
                return Err(format!("the output directory of {} does not exist", o.display()));
            }
        }
        Ok(Parsed { input: input.clone(), output })
    }
}

/// Escapes a string as LLVM's `write_escaped` does in clang's parseable fix-its.
fn fixit_escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out
}
