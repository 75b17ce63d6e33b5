//! Python wheels of the checker and the formatter, and the pre-commit hooks that install
//! them.
//!
//! `python/msl-check/pyproject.toml` makes maturin (`bindings = "bin"`) put the root
//! package's programs, `msl-check` and `msl-fmt`, into a wheel's scripts: `pipx install
//! msl-check` and `uvx msl-check` then need no Rust. `cargo xtask dist` builds one wheel
//! per target with the same linkers as the archives (Zig for macOS and Linux, mingw-w64
//! for Windows) and checks its name, tags and programs. The root `pyproject.toml`
//! (`msl-pre-commit`, built by `python/pre-commit/msl_pre_commit_backend.py`) only asks
//! for the wheel of the same version, so pre-commit's `language: python` hooks install it
//! ready-made.
//!
//! `cargo xtask test` builds this machine's wheel with the quick `cross-check` profile,
//! installs it into a fresh virtual environment, runs it through `uvx`, and runs the
//! python hooks with pre-commit, with no Rust toolchain on `PATH`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::dist::{Os, Target, Tools, verify};
use crate::{root, step, which, zip_names, zip_read};

/// The programs in each wheel.
pub const PROGRAMS: [&str; 2] = ["msl-check", "msl-fmt"];

/// The wheel's platform tag for `t`: the least system version the build runs on, as
/// pip and uv compare it with the machine's.
pub fn platform_tag(t: &Target) -> String {
    // the triple's architecture: `x86_64` or `aarch64`
    let arch = t.triple.split('-').next().unwrap_or_default();
    match t.os {
        Os::Mac { min: (major, minor, _) } => {
            format!("macosx_{major}_{minor}_{}", if arch == "aarch64" { "arm64" } else { arch })
        }
        Os::LinuxGnu { glibc, .. } => format!("manylinux_{}_{arch}", glibc.replace('.', "_")),
        Os::LinuxStatic => format!("musllinux_1_2_{arch}"),
        Os::Windows => format!("win_{}", if arch == "aarch64" { "arm64" } else { "amd64" }),
    }
}

/// maturin's `--compatibility` for `t`: the policy its platform tag follows.
fn compatibility(t: &Target) -> Option<String> {
    match t.os {
        Os::LinuxGnu { glibc, .. } => Some(format!("manylinux_{}", glibc.replace('.', "_"))),
        Os::LinuxStatic => Some("musllinux_1_2".into()),
        Os::Mac { .. } | Os::Windows => None,
    }
}

/// The version the wheel carries: the root package's (the Cargo workspace's), as Python
/// writes it (PEP 440).
pub fn version() -> Result<String, String> {
    let out = Command::new(crate::cargo())
        .args(["metadata", "--format-version", "1", "--no-deps", "--locked"])
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    let cargo = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "msl-check")
        .and_then(|p| p["version"].as_str())
        .ok_or("cargo metadata lists no msl-check")?;
    pep440(cargo)
}

/// A Cargo (SemVer) version as Python writes it: `1.2.3`, and the pre-releases
/// `1.2.3-alpha.N`, `-beta.N`, `-rc.N` as `1.2.3aN`, `bN`, `rcN`. Other pre-release or
/// build labels have no faithful Python form and are refused.
/// `python/pre-commit/msl_pre_commit_backend.py` converts the same way.
pub fn pep440(cargo: &str) -> Result<String, String> {
    let (release, pre) = match cargo.split_once('-') {
        Some((r, p)) => (r, Some(p)),
        None => (cargo, None),
    };
    let plain = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if release.split('.').count() != 3 || !release.split('.').all(plain) || cargo.contains('+') {
        return Err(format!("version {cargo}: expected MAJOR.MINOR.PATCH, with -alpha.N, -beta.N or -rc.N"));
    }
    let Some(pre) = pre else { return Ok(release.to_string()) };
    let converted = pre.split_once('.').and_then(|(label, n)| {
        let short = match label {
            "alpha" => "a",
            "beta" => "b",
            "rc" => "rc",
            _ => return None,
        };
        plain(n).then(|| format!("{release}{short}{}", n.trim_start_matches('0').max("0")))
    });
    converted.ok_or_else(|| format!("version {cargo}: a pre-release is -alpha.N, -beta.N or -rc.N"))
}

/// Builds the wheel for `t` with `profile` into `out` (emptied first); returns its path.
pub fn build(tools: &Tools, t: &Target, profile: &str, out: &Path) -> Result<PathBuf, String> {
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut cmd = Command::new(tools.venv_bin.join("maturin"));
    cmd.args(["build", "--target", t.triple, "--profile", profile, "--out"]).arg(out);
    if t.os != Os::Windows {
        cmd.arg("--zig");
    }
    if let Some(c) = compatibility(t) {
        cmd.args(["--compatibility", &c]);
    }
    tools.environment(t, &mut cmd)?;
    // maturin reads python/msl-check/pyproject.toml, which points at the root Cargo.toml;
    // its license files are the project's (a link to the root LICENSE) and the notices
    // of the third-party code in this target's build, written here
    let project = root().join("python/msl-check");
    let notices = crate::licenses::for_build(t.triple, &["msl-check"])?;
    std::fs::write(project.join(crate::licenses::FILE), notices).map_err(|e| e.to_string())?;
    cmd.current_dir(&project);
    step(&format!("wheel for {} ({profile})", t.triple), &mut cmd)?;
    let wheels: Vec<PathBuf> = std::fs::read_dir(out)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "whl"))
        .collect();
    match wheels.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(format!("maturin left {} wheels in {}, not one", wheels.len(), out.display())),
    }
}

/// Checks the wheel built for `t`: its file name and `WHEEL` tags name the platform,
/// `METADATA` the package and version, it carries the license and the third-party
/// notices, and its scripts are exactly the programs, built for `t` (their headers are
/// read).
pub fn check(t: &Target, wheel: &Path) -> Result<(), String> {
    let version = version()?;
    let tag = platform_tag(t);
    let file = wheel.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let prefix = format!("msl_check-{version}-py3-none-");
    let platforms = file.strip_prefix(&prefix).and_then(|r| r.strip_suffix(".whl"));
    if !platforms.is_some_and(|p| p.split('.').any(|p| p == tag)) {
        return Err(format!("{file}: expected a name {prefix}{tag}[.…].whl"));
    }
    let info = format!("msl_check-{version}.dist-info");
    let wheel_meta = String::from_utf8_lossy(&zip_read(wheel, &format!("{info}/WHEEL"))?).into_owned();
    if !wheel_meta.lines().any(|l| l == format!("Tag: py3-none-{tag}")) {
        return Err(format!("{file}: WHEEL does not list the tag py3-none-{tag}:\n{wheel_meta}"));
    }
    let metadata = String::from_utf8_lossy(&zip_read(wheel, &format!("{info}/METADATA"))?).into_owned();
    if !metadata.lines().any(|l| l == "Name: msl-check")
        || !metadata.lines().any(|l| l == format!("Version: {version}"))
    {
        return Err(format!("{file}: METADATA does not name msl-check {version}"));
    }
    let names = zip_names(wheel)?;
    for license in ["LICENSE", crate::licenses::FILE] {
        if !names.contains(&format!("{info}/licenses/{license}")) {
            return Err(format!("{file}: no {info}/licenses/{license}"));
        }
    }
    let scripts_dir = format!("msl_check-{version}.data/scripts/");
    let mut scripts: Vec<String> =
        names.into_iter().filter_map(|n| n.strip_prefix(&scripts_dir).map(str::to_string)).collect();
    scripts.sort();
    let mut want: Vec<String> = PROGRAMS.iter().map(|p| t.exe(p)).collect();
    want.sort();
    if scripts != want {
        return Err(format!("{file}: the scripts are {scripts:?}, not {want:?}"));
    }
    let unpacked = root().join("target/dist-tools/wheel-program");
    for name in &want {
        std::fs::write(&unpacked, zip_read(wheel, &format!("{scripts_dir}{name}"))?).map_err(|e| e.to_string())?;
        verify(t, &unpacked).map_err(|e| format!("{file}: {name}: {e}"))?;
    }
    Ok(())
}

/// Checks that the wheel's programs are, byte for byte, those in `dir` (what the archive
/// ships).
pub fn same_programs(t: &Target, wheel: &Path, dir: &Path) -> Result<(), String> {
    let version = version()?;
    for name in PROGRAMS {
        let exe = t.exe(name);
        let inside = zip_read(wheel, &format!("msl_check-{version}.data/scripts/{exe}"))?;
        let outside = std::fs::read(dir.join(&exe)).map_err(|e| format!("{}: {e}", dir.join(&exe).display()))?;
        if inside != outside {
            return Err(format!("{}: the wheel's {exe} is not the one in {}", t.triple, dir.display()));
        }
    }
    Ok(())
}

/// `cargo xtask test`'s wheel checks (x86-64 Linux only, where the release is made).
pub fn test() -> Result<(), String> {
    println!("== the wheel and the python pre-commit hooks");
    let missing = || {
        let venv_works =
            Command::new("python3").args(["-c", "import ensurepip, venv"]).output().is_ok_and(|o| o.status.success());
        (!venv_works || which("git").is_none()).then(|| {
            "the wheel's checks need python3 with venv (python3-venv) and git (.ci/run installs them)".to_string()
        })
    };
    if !crate::dist::can_run(missing)? {
        return Ok(());
    }
    let host = Target::find("x86_64-unknown-linux-gnu").ok_or("no x86_64-unknown-linux-gnu target")?;
    let tools = Tools::install(&[host])?;
    let work = root().join("target/dist-tools/wheel-test");
    let wheels = work.join("wheels");
    let wheel = build(&tools, host, "cross-check", &wheels)?;
    check(host, &wheel)?;
    println!("   {}: tags, metadata and programs as expected", wheel.display());
    let fixtures = root().join("fixtures/check");
    let pass = first_fixture(&fixtures, "_pass.metal")?;
    let fail = first_fixture(&fixtures, "_fail.metal")?;
    let version = version()?;

    // 1. pip into a fresh virtual environment, as pipx does
    let venv = work.join("venv");
    let _ = std::fs::remove_dir_all(&venv);
    step("a fresh virtual environment", Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    step(
        "pip install the wheel",
        Command::new(venv.join("bin/python3"))
            .args(["-m", "pip", "install", "--quiet", "--no-index"])
            .arg(&wheel)
            .env_remove("PIP_FIND_LINKS"),
    )?;
    let bin = venv.join("bin");
    expect_run(Command::new(bin.join("msl-check")).arg("--version"), Some(0), &version)?;
    expect_run(Command::new(bin.join("msl-check")).args(["--no-config", "--compiler", "off"]).arg(&pass), Some(0), "")?;
    expect_run(
        Command::new(bin.join("msl-check")).args(["--no-config", "--compiler", "off"]).arg(&fail),
        Some(1),
        "error",
    )?;
    expect_run(Command::new(bin.join("msl-fmt")).arg("--version"), Some(0), &version)?;
    println!("   installed with pip: msl-check and msl-fmt run; a passing fixture exits 0, a failing one 1");

    // 2. uvx, with the wheel as the only source
    let uv_home = work.join("uv");
    let _ = std::fs::remove_dir_all(&uv_home);
    let mut uvx = Command::new(tools.venv_bin.join("uv"));
    uvx.args(["tool", "run", "--no-index", "--find-links"])
        .arg(&wheels)
        .args(["msl-check", "--no-config", "--compiler", "off"])
        .arg(&fail)
        .env("UV_CACHE_DIR", uv_home.join("cache"))
        .env("UV_TOOL_DIR", uv_home.join("tools"))
        .env("UV_PYTHON_DOWNLOADS", "never")
        .env("UV_PYTHON", which("python3").ok_or("no python3 on PATH")?);
    expect_run(&mut uvx, Some(1), "error")?;
    println!("   uvx msl-check runs the wheel's checker");

    // 3. the python hooks, installed by pre-commit from this repository, without Rust
    pre_commit_hooks(&tools, &work, &wheels)
}

/// The Rust toolchain's programs, kept off the hooks' `PATH`.
const RUST_TOOLS: [&str; 3] = ["cargo", "rustc", "rustup"];

/// This process's `PATH` without the Rust toolchain: folders that hold none of
/// [`RUST_TOOLS`] stay as they are; a folder that holds one (`~/.cargo/bin`, or `/usr/bin`
/// with a distribution's Rust) is replaced by a mirror under `mirrors` that links
/// everything else in it.
fn path_without_rust(mirrors: &Path) -> Result<std::ffi::OsString, String> {
    let _ = std::fs::remove_dir_all(mirrors);
    let mut kept = Vec::new();
    for (i, dir) in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).enumerate() {
        let has_rust = RUST_TOOLS.iter().any(|t| dir.join(t).exists());
        if !has_rust {
            kept.push(dir);
            continue;
        }
        let mirror = mirrors.join(i.to_string());
        std::fs::create_dir_all(&mirror).map_err(|e| e.to_string())?;
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if RUST_TOOLS.iter().any(|t| name.to_str().is_some_and(|n| n == *t || n.starts_with(&format!("{t}-")))) {
                continue;
            }
            #[cfg(unix)]
            std::os::unix::fs::symlink(entry.path(), mirror.join(&name)).map_err(|e| e.to_string())?;
        }
        kept.push(mirror);
    }
    for dir in &kept {
        if let Some(t) = RUST_TOOLS.iter().find(|t| dir.join(t).exists()) {
            return Err(format!("{t} is still on the hooks' PATH ({})", dir.display()));
        }
    }
    std::env::join_paths(kept).map_err(|e| e.to_string())
}

/// The first fixture in `dir` whose name ends with `suffix`.
fn first_fixture(dir: &Path, suffix: &str) -> Result<PathBuf, String> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(suffix)))
        .collect();
    found.sort();
    found.into_iter().next().ok_or_else(|| format!("{}: no file ending in {suffix}", dir.display()))
}

fn combined(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// Runs `cmd`; its exit code must be `code` and its output must contain `needle`.
fn expect_run(cmd: &mut Command, code: Option<i32>, needle: &str) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    let text = combined(&out);
    if out.status.code() != code || !text.contains(needle) {
        return Err(format!(
            "{:?} {:?}: exit {:?} (expected {code:?}), expected {needle:?} in:\n{text}",
            cmd.get_program(),
            cmd.get_args().collect::<Vec<_>>(),
            out.status.code()
        ));
    }
    Ok(text)
}

/// pre-commit installs the `msl-check` and `msl-fmt` hooks from this repository's working
/// tree (`try-repo`, so uncommitted changes to tracked files count) and runs them on a repository with a
/// bad shader, then a good one. `PATH` holds no Rust toolchain, so a hook that needed
/// cargo would fail; pip finds the wheel in `wheels` and nowhere else.
fn pre_commit_hooks(tools: &Tools, work: &Path, wheels: &Path) -> Result<(), String> {
    let repo = work.join("project");
    let _ = std::fs::remove_dir_all(&repo);
    // each try-repo of a changed tree installs into a new clone: start from nothing
    let home = work.join("pre-commit-home");
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&repo).map_err(|e| e.to_string())?;
    let path = path_without_rust(&work.join("path"))?;
    let git_exe = which("git").ok_or("pre-commit needs git")?;
    let git = |args: &[&str]| -> Result<(), String> {
        let out = Command::new(&git_exe).args(args).current_dir(&repo).output().map_err(|e| e.to_string())?;
        if out.status.success() { Ok(()) } else { Err(format!("git {args:?}: {}", combined(&out))) }
    };
    git(&["init", "-q"])?;
    git(&["config", "user.email", "ci@example.com"])?;
    git(&["config", "user.name", "CI"])?;
    let write = |text: &str| std::fs::write(repo.join("shader.metal"), text).map_err(|e| e.to_string());
    write("kernel void k(device float *a [[buffer(0)]]) {\n    a[0] = 1\n}\n")?;
    git(&["add", "-A"])?;
    let run = |hook: &str| -> Result<Output, String> {
        let mut cmd = Command::new(tools.venv_bin.join("pre-commit"));
        cmd.args(["try-repo"])
            .arg(root())
            .args([hook, "--all-files", "--color", "never"])
            .current_dir(&repo)
            .env("PATH", &path)
            .env("PRE_COMMIT_HOME", &home)
            // nothing is downloaded: a hook that fetched a toolchain (pre-commit bootstraps
            // rustup for `language: rust` without cargo) fails at once
            .env("HTTPS_PROXY", "http://127.0.0.1:9")
            .env("HTTP_PROXY", "http://127.0.0.1:9")
            .env("https_proxy", "http://127.0.0.1:9")
            .env("http_proxy", "http://127.0.0.1:9")
            .env("PIP_NO_INDEX", "1")
            .env("PIP_FIND_LINKS", wheels)
            .env_remove("PIP_INDEX_URL");
        for (key, _) in std::env::vars_os() {
            if key.to_str().is_some_and(|k| k.starts_with("CARGO") || k.starts_with("RUSTUP") || k == "RUSTC") {
                cmd.env_remove(key);
            }
        }
        cmd.output().map_err(|e| format!("cannot run pre-commit: {e}"))
    };
    let started = std::time::Instant::now();
    let bad = run("msl-check")?;
    let text = combined(&bad);
    if bad.status.success() || !text.contains("Failed") || !text.contains("shader.metal:2:13: error[E0100]") {
        return Err(format!("the msl-check hook should fail on the bad shader:\n{text}"));
    }
    let fmt = run("msl-fmt")?;
    let text = combined(&fmt);
    if fmt.status.success() || !text.contains("files were modified by this hook") {
        return Err(format!("the msl-fmt hook should reformat the shader:\n{text}"));
    }
    let formatted = std::fs::read_to_string(repo.join("shader.metal")).map_err(|e| e.to_string())?;
    if formatted != "kernel void k(device float *a [[buffer(0)]])\n{\n    a[0] = 1\n}\n" {
        return Err(format!("the msl-fmt hook wrote:\n{formatted}"));
    }
    write("kernel void k(device float *a [[buffer(0)]])\n{\n    a[0] = 1;\n}\n")?;
    git(&["add", "-A"])?;
    for hook in ["msl-check", "msl-fmt"] {
        let good = run(hook)?;
        let text = combined(&good);
        if !good.status.success() || !text.contains("Passed") {
            return Err(format!("the {hook} hook should pass on the good shader:\n{text}"));
        }
    }
    println!(
        "   pre-commit's python hooks, without Rust: fail on a bad shader, reformat it, pass on a good one ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::TARGETS;

    /// The hooks users name by default install the wheel; those that build from source
    /// carry `-from-source` in their ids.
    #[test]
    fn the_default_hooks_install_the_wheel() {
        let text = std::fs::read_to_string(root().join(".pre-commit-hooks.yaml")).expect("hooks");
        let hooks: Vec<(String, String)> = text
            .split("\n- ")
            .skip(1)
            .map(|h| {
                let field = |key: &str| {
                    h.lines()
                        .find_map(|l| l.trim().trim_start_matches("- ").strip_prefix(key).map(|v| v.trim().to_string()))
                        .unwrap_or_default()
                };
                (field("id:"), field("language:"))
            })
            .collect();
        let want = [
            ("msl-check", "python"),
            ("msl-fmt", "python"),
            ("msl-check-from-source", "rust"),
            ("msl-fmt-from-source", "rust"),
        ];
        assert_eq!(hooks, want.map(|(id, lang)| (id.to_string(), lang.to_string())).to_vec());
    }

    #[test]
    fn versions_as_python_writes_them() {
        assert_eq!(pep440("0.1.0").as_deref(), Ok("0.1.0"));
        assert_eq!(pep440("1.2.3-rc.1").as_deref(), Ok("1.2.3rc1"));
        assert_eq!(pep440("1.2.3-alpha.02").as_deref(), Ok("1.2.3a2"));
        assert_eq!(pep440("1.2.3-beta.0").as_deref(), Ok("1.2.3b0"));
        for refused in ["1.2", "1.2.3-dev", "1.2.3-rc", "1.2.3+build.5", "1.x.3", "1.2.3-pre.1"] {
            assert!(pep440(refused).is_err(), "{refused}");
        }
        // the pre-commit package's backend converts the same way
        let cases = ["0.1.0", "1.2.3-rc.1", "1.2.3-alpha.02", "1.2.3-beta.0", "1.2.3-dev", "1.2.3+build.5"];
        let out = Command::new(crate::python())
            .args([
                "-c",
                "import sys; sys.path.insert(0, sys.argv[1]); import msl_pre_commit_backend as b\n\
                 for v in sys.argv[2:]:\n\
                 \x20   try: print(b.pep440(v))\n\
                 \x20   except ValueError: print('refused')",
            ])
            .arg(root().join("python/pre-commit"))
            .args(cases)
            .output()
            .expect("python runs");
        let python: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
        let rust: Vec<String> = cases.iter().map(|v| pep440(v).unwrap_or_else(|_| "refused".into())).collect();
        assert_eq!(python, rust, "{}", String::from_utf8_lossy(&out.stderr));
    }

    #[test]
    fn platform_tags() {
        let tags: Vec<(&str, String)> = TARGETS.iter().map(|t| (t.triple, platform_tag(t))).collect();
        let want = [
            ("aarch64-apple-darwin", "macosx_11_0_arm64"),
            ("x86_64-apple-darwin", "macosx_10_12_x86_64"),
            ("x86_64-unknown-linux-gnu", "manylinux_2_17_x86_64"),
            ("x86_64-unknown-linux-musl", "musllinux_1_2_x86_64"),
            ("aarch64-unknown-linux-gnu", "manylinux_2_17_aarch64"),
            ("x86_64-pc-windows-gnu", "win_amd64"),
        ];
        for (triple, tag) in want {
            assert!(tags.iter().any(|(t, g)| *t == triple && g == tag), "{triple}: {tags:?}");
        }
        assert_eq!(tags.len(), want.len());
    }

    /// The wheel's version, the pre-commit package's (read by its backend) and the one the
    /// hooks ask for are the Cargo workspace's.
    #[test]
    fn the_pre_commit_package_asks_for_the_wheel_of_the_same_version() {
        let version = version().expect("version");
        let out = Command::new(crate::python())
            .args([
                "-c",
                "import sys; sys.path.insert(0, sys.argv[1]); import msl_pre_commit_backend as b; \
                 print(b.metadata(b.cargo_version()))",
            ])
            .arg(root().join("python/pre-commit"))
            .output()
            .expect("python3 runs");
        let metadata = String::from_utf8_lossy(&out.stdout);
        // line by line: Python writes \r\n on Windows
        let has = |line: String| metadata.lines().any(|l| l == line);
        assert!(has(format!("Version: {version}")), "{metadata}");
        assert!(has(format!("Requires-Dist: msl-check=={version}")), "{metadata}");
        let pyproject = std::fs::read_to_string(root().join("python/msl-check/pyproject.toml")).expect("pyproject");
        assert!(pyproject.contains("bindings = \"bin\"") && pyproject.contains("manifest-path = \"../../Cargo.toml\""));
    }
}
