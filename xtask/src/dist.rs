//! Release builds for every platform, made on this Linux machine.
//!
//! `cargo xtask dist --target TRIPLE` (repeatable) or `--all` builds `msl-check`, `msl-fmt`
//! and `msl-lsp` for each target with the `shipped` profile, checks what was built (format,
//! machine, loader, least macOS version, size) and writes an archive per target under
//! `target/dist/`, with a VS Code package and a Python wheel (`wheel.rs`) per target.
//! macOS and Linux targets are linked by Zig through `cargo-zigbuild`
//! (both from PyPI, installed into `target/dist-tools/venv`); Windows by Debian's
//! mingw-w64. `cargo xtask test` builds the checker for the targets it can run or read
//! here (Windows under Wine, aarch64 Linux under qemu-user, both macOS builds by their
//! load commands) with the quick `cross-check` profile, and compares their output with the
//! host build's.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::binfmt::{self, Executable, Machine};
use crate::{cargo, root, step, which};

/// The operating system a target runs on, with what its executables must say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    /// Linux with glibc: dynamically linked against glibc `glibc` or later, with `loader`.
    LinuxGnu {
        glibc: &'static str,
        loader: &'static str,
    },
    /// Linux, linked statically against musl: runs on any distribution, Alpine included.
    LinuxStatic,
    Windows,
    /// macOS, from version `min` on.
    Mac {
        min: (u32, u32, u32),
    },
}

/// A platform the release is built for.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    pub triple: &'static str,
    /// VS Code's name for the platform (`vsce package --target`).
    pub vscode: &'static str,
    pub machine: Machine,
    pub os: Os,
}

/// Every release target. The least macOS versions are Rust's own for the two
/// architectures (Apple silicon shipped with macOS 11); the Linux builds need glibc 2.17
/// (2012) or nothing at all.
pub const TARGETS: &[Target] = &[
    Target {
        triple: "aarch64-apple-darwin",
        vscode: "darwin-arm64",
        machine: Machine::Aarch64,
        os: Os::Mac { min: (11, 0, 0) },
    },
    Target {
        triple: "x86_64-apple-darwin",
        vscode: "darwin-x64",
        machine: Machine::X86_64,
        os: Os::Mac { min: (10, 12, 0) },
    },
    Target {
        triple: "x86_64-unknown-linux-gnu",
        vscode: "linux-x64",
        machine: Machine::X86_64,
        os: Os::LinuxGnu { glibc: "2.17", loader: "/lib64/ld-linux-x86-64.so.2" },
    },
    Target { triple: "x86_64-unknown-linux-musl", vscode: "alpine-x64", machine: Machine::X86_64, os: Os::LinuxStatic },
    Target {
        triple: "aarch64-unknown-linux-gnu",
        vscode: "linux-arm64",
        machine: Machine::Aarch64,
        os: Os::LinuxGnu { glibc: "2.17", loader: "/lib/ld-linux-aarch64.so.1" },
    },
    Target { triple: "x86_64-pc-windows-gnu", vscode: "win32-x64", machine: Machine::X86_64, os: Os::Windows },
];

/// The programs each archive carries.
pub const PROGRAMS: [&str; 3] = ["msl-check", "msl-fmt", "msl-lsp"];

/// The largest a stripped server may be.
const SERVER_LIMIT: u64 = 15 * 1024 * 1024;

/// The largest a VS Code package may be.
const VSIX_LIMIT: u64 = 8 * 1024 * 1024;

/// The Python packages the builds and their checks use, at versions known to work together:
/// Zig and `cargo-zigbuild` link the macOS and Linux builds, maturin makes the wheels;
/// pre-commit and uv are what the wheel's checks install it with.
const PYTHON_TOOLS: [&str; 5] =
    ["ziglang==0.17.1", "cargo-zigbuild==0.24.1", "maturin==1.16.0", "pre-commit==4.7.0", "uv==0.13.9"];

impl Target {
    pub fn find(triple: &str) -> Option<&'static Target> {
        TARGETS.iter().find(|t| t.triple == triple)
    }

    pub fn exe(&self, name: &str) -> String {
        if self.os == Os::Windows { format!("{name}.exe") } else { name.to_string() }
    }

    /// Where cargo puts this target's builds with `profile`.
    fn out_dir(&self, profile: &str) -> PathBuf {
        root().join("target").join(self.triple).join(profile)
    }

    /// The archive's name (without a version, so that a download can name the latest).
    pub fn archive_name(&self) -> String {
        let ext = if self.os == Os::Windows { "zip" } else { "tar.gz" };
        format!("msl-{}.{ext}", self.triple)
    }
}

/// `cargo xtask dist --target TRIPLE... | --all`.
pub fn run(args: &[String]) -> Result<u8, String> {
    let mut targets: Vec<&Target> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--all" => targets = TARGETS.iter().collect(),
            "--target" => {
                let triple = it.next().ok_or("--target needs a target triple")?;
                let t = Target::find(triple).ok_or_else(|| {
                    let known: Vec<&str> = TARGETS.iter().map(|t| t.triple).collect();
                    format!("unknown target `{triple}` (known: {})", known.join(", "))
                })?;
                if !targets.iter().any(|k| k.triple == t.triple) {
                    targets.push(t);
                }
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let tools = Tools::install(&targets)?;
    let dist = root().join("target/dist");
    std::fs::create_dir_all(&dist).map_err(|e| e.to_string())?;
    for t in targets {
        // maturin builds the checker and the formatter for the wheel, into the same folder
        // cargo uses, so the archive takes them from there and only the server is built
        // apart (each fat-LTO link of the two would otherwise be made twice)
        let built = crate::wheel::build(&tools, t, "shipped", &root().join("target/dist-tools/wheels").join(t.triple))?;
        crate::wheel::check(t, &built)?;
        let dir = tools.build(t, "shipped", &["msl-lsp"])?;
        for name in PROGRAMS {
            verify(t, &dir.join(t.exe(name)))?;
        }
        crate::wheel::same_programs(t, &built, &dir)?;
        let server = std::fs::metadata(dir.join(t.exe("msl-lsp"))).map(|m| m.len()).unwrap_or(0);
        if server > SERVER_LIMIT {
            return Err(format!("{}: msl-lsp is {:.1} MB, over the 15 MB limit", t.triple, server as f64 / 1e6));
        }
        let archive = write_archive(t, &dir, &dist)?;
        let size = std::fs::metadata(&archive).map(|m| m.len()).unwrap_or(0);
        println!("wrote {} ({:.1} MB; msl-lsp {:.1} MB)", archive.display(), size as f64 / 1e6, server as f64 / 1e6);
        let vsix = crate::editors::package_vscode_for(&dir.join(t.exe("msl-lsp")), t.triple, t.vscode, &dist)?;
        check_vsix(t, &vsix)?;
        let size = std::fs::metadata(&vsix).map(|m| m.len()).unwrap_or(0);
        if size > VSIX_LIMIT {
            return Err(format!("{}: {:.1} MB, over the 8 MB limit", vsix.display(), size as f64 / 1e6));
        }
        println!("wrote {} ({:.1} MB)", vsix.display(), size as f64 / 1e6);
        // a folder of wheels alone, as PyPI's upload takes it
        let wheels = dist.join("wheels");
        std::fs::create_dir_all(&wheels).map_err(|e| e.to_string())?;
        let wheel = wheels.join(built.file_name().ok_or("a wheel without a name")?);
        std::fs::rename(&built, &wheel).map_err(|e| format!("{}: {e}", wheel.display()))?;
        let size = std::fs::metadata(&wheel).map(|m| m.len()).unwrap_or(0);
        println!("wrote {} ({:.1} MB)", wheel.display(), size as f64 / 1e6);
    }
    Ok(0)
}

/// Checks a platform's `.vsix`: its manifest names the platform, and the one server inside
/// is the one for that platform, under the name the extension looks for.
fn check_vsix(t: &Target, vsix: &Path) -> Result<(), String> {
    let names = crate::zip_names(vsix)?;
    let notices = format!("extension/server/{}", crate::licenses::FILE);
    if !names.contains(&notices) {
        return Err(format!("{}: no {notices}", vsix.display()));
    }
    let servers: Vec<&String> =
        names.iter().filter(|name| name.starts_with("extension/server/") && **name != notices).collect();
    let want = format!("extension/server/{}", t.exe("msl-lsp"));
    if servers != [&want] {
        return Err(format!("{}: servers inside are {servers:?}, not [{want}]", vsix.display()));
    }
    let manifest = String::from_utf8_lossy(&crate::zip_read(vsix, "extension.vsixmanifest")?).into_owned();
    if !manifest.contains(&format!("TargetPlatform=\"{}\"", t.vscode)) {
        return Err(format!("{}: the manifest does not name the platform {}", vsix.display(), t.vscode));
    }
    // the server in the package is the one built for the target
    let inside = root().join("target/dist-tools/vsix-server");
    std::fs::write(&inside, crate::zip_read(vsix, &want)?).map_err(|e| e.to_string())?;
    verify(t, &inside)
}

/// The toolchains the chosen targets need, installed where they are missing.
pub struct Tools {
    /// The `bin` directory of the virtual environment with [`PYTHON_TOOLS`].
    pub venv_bin: PathBuf,
}

impl Tools {
    pub fn install(targets: &[&Target]) -> Result<Tools, String> {
        let installed = Command::new("rustup")
            .args(["target", "list", "--installed"])
            .output()
            .map_err(|e| format!("cannot run rustup: {e}"))?;
        let installed = String::from_utf8_lossy(&installed.stdout).to_string();
        let missing: Vec<&str> =
            targets.iter().map(|t| t.triple).filter(|t| !installed.lines().any(|l| l.trim() == *t)).collect();
        if !missing.is_empty() {
            step("rustup target add", Command::new("rustup").args(["target", "add"]).args(&missing))?;
        }
        if targets.iter().any(|t| t.os == Os::Windows) && which("x86_64-w64-mingw32-gcc").is_none() {
            return Err(
                "the Windows build links with mingw-w64: apt-get install gcc-mingw-w64-x86-64 (what .ci/run installs)"
                    .into(),
            );
        }
        let venv = root().join("target/dist-tools/venv");
        let venv_bin = venv.join("bin");
        let stamp = venv.join("installed.txt");
        let wanted = PYTHON_TOOLS.join("\n");
        if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
            step("python3 -m venv target/dist-tools/venv", Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
            step(
                &format!("pip install {}", PYTHON_TOOLS.map(|t| t.split("==").next().unwrap_or(t)).join(" ")),
                Command::new(venv_bin.join("python3"))
                    .args(["-m", "pip", "install", "--quiet"])
                    .args(PYTHON_TOOLS)
                    // the index's releases, not the wheels of a local folder
                    .env_remove("PIP_FIND_LINKS"),
            )?;
            std::fs::write(&stamp, &wanted).map_err(|e| e.to_string())?;
        }
        Ok(Tools { venv_bin })
    }

    /// `PATH` with the tools' virtual environment first (cargo-zigbuild and maturin find Zig
    /// through its `python3`).
    pub fn path(&self) -> Result<std::ffi::OsString, String> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.venv_bin.clone()];
        paths.extend(std::env::split_paths(&path));
        std::env::join_paths(paths).map_err(|e| e.to_string())
    }

    /// Builds `programs` for `t` with `profile`; returns the directory they are in.
    pub fn build(&self, t: &Target, profile: &str, programs: &[&str]) -> Result<PathBuf, String> {
        let mut cmd = if t.os == Os::Windows {
            let mut c = Command::new(cargo());
            c.arg("build").arg("--target").arg(t.triple);
            c
        } else {
            let mut c = Command::new(self.venv_bin.join("cargo-zigbuild"));
            let target = match t.os {
                Os::LinuxGnu { glibc, .. } => format!("{}.{glibc}", t.triple),
                _ => t.triple.to_string(),
            };
            c.arg("zigbuild").arg("--target").arg(target);
            c
        };
        self.environment(t, &mut cmd)?;
        cmd.args(["--quiet", "--profile", profile]);
        // the root package has the checker and the formatter, msl-lsp the server
        if programs.iter().any(|p| *p != "msl-lsp") {
            cmd.args(["-p", "msl-check"]);
        }
        if programs.contains(&"msl-lsp") {
            cmd.args(["-p", "msl-lsp"]);
        }
        for p in programs {
            cmd.args(["--bin", p]);
        }
        cmd.current_dir(root());
        step(&format!("build {} for {} ({profile})", programs.join(", "), t.triple), &mut cmd)?;
        Ok(t.out_dir(profile))
    }

    /// What a build for `t` needs in its environment: the tools on `PATH`, the linker for
    /// Windows, the least macOS version.
    pub fn environment(&self, t: &Target, cmd: &mut Command) -> Result<(), String> {
        cmd.env("PATH", self.path()?);
        match t.os {
            Os::Windows => {
                cmd.env("CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER", "x86_64-w64-mingw32-gcc");
            }
            Os::Mac { min: (major, minor, _) } => {
                cmd.env("MACOSX_DEPLOYMENT_TARGET", format!("{major}.{minor}"));
            }
            Os::LinuxGnu { .. } | Os::LinuxStatic => {}
        }
        Ok(())
    }
}

/// Checks that `path` is an executable for `t`: its format and machine, and what it needs
/// to run (the loader on Linux, the least macOS version).
pub fn verify(t: &Target, path: &Path) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let found = binfmt::read(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let ok = match (&found, t.os) {
        (Executable::Elf { machine, interpreter }, Os::LinuxGnu { loader, glibc }) => {
            // no glibc symbol newer than the version the target promises
            let promised = glibc.split_once('.').and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
            let newest = binfmt::newest_glibc(&bytes);
            if newest.zip(promised).is_some_and(|(n, p)| n > p) {
                return Err(format!("{} needs glibc {newest:?}, newer than {glibc}", path.display()));
            }
            *machine == t.machine && interpreter.as_deref() == Some(loader)
        }
        (Executable::Elf { machine, interpreter }, Os::LinuxStatic) => *machine == t.machine && interpreter.is_none(),
        (Executable::Pe { machine }, Os::Windows) => *machine == t.machine,
        (Executable::MachO { machine, min_macos }, Os::Mac { min }) => *machine == t.machine && *min_macos == Some(min),
        _ => false,
    };
    if ok { Ok(()) } else { Err(format!("{} is not a {} executable: {found:?}", path.display(), t.triple)) }
}

/// What each archive says about itself.
const ARCHIVE_README: &str = "\
msl: tools for the Metal Shading Language

  msl-check   checks .metal files and reports problems (for terminals, CI, hooks)
  msl-fmt     formats .metal files (whitespace only)
  msl-lsp     the language server, for editors that speak LSP

Put the programs on your PATH, or point your editor's msl settings at msl-lsp.
`msl-check --help` and `msl-fmt --help` list the options. Each program runs on its
own: nothing else is needed, and Apple's Metal compiler is used only when it is found
(msl-check --compiler, the server's compiler setting).

Licensed under the MIT license or the Apache License 2.0, at your option (LICENSE).
THIRD-PARTY-LICENSES.txt lists the Rust packages built into the programs, with their
licenses.
";

/// Writes `target/dist/msl-<triple>.tar.gz` (`.zip` for Windows): a folder
/// `msl-<triple>` with the programs, the license, the third-party notices and a short
/// README. Returns its path.
fn write_archive(t: &Target, built: &Path, dist: &Path) -> Result<PathBuf, String> {
    let folder = format!("msl-{}", t.triple);
    let stage = root().join("target/dist-tools/stage");
    let _ = std::fs::remove_dir_all(&stage);
    let inside = stage.join(&folder);
    std::fs::create_dir_all(&inside).map_err(|e| e.to_string())?;
    for name in PROGRAMS {
        let from = built.join(t.exe(name));
        std::fs::copy(&from, inside.join(t.exe(name))).map_err(|e| format!("{}: {e}", from.display()))?;
    }
    std::fs::copy(root().join("LICENSE"), inside.join("LICENSE")).map_err(|e| format!("LICENSE: {e}"))?;
    let notices = crate::licenses::for_build(t.triple, &["msl-check", "msl-lsp"])?;
    std::fs::write(inside.join(crate::licenses::FILE), notices).map_err(|e| e.to_string())?;
    std::fs::write(inside.join("README.txt"), ARCHIVE_README).map_err(|e| e.to_string())?;
    let archive = dist.join(t.archive_name());
    let _ = std::fs::remove_file(&archive);
    let mut cmd = if t.os == Os::Windows {
        let mut c = Command::new("python3");
        c.args(["-m", "zipfile", "-c"]).arg(&archive).arg(&folder);
        c
    } else {
        let mut c = Command::new("tar");
        c.arg("czf").arg(&archive).args(["--owner=0", "--group=0"]).arg(&folder);
        c
    };
    step(&format!("archive {}", t.archive_name()), cmd.current_dir(&stage))?;
    Ok(archive)
}

/// The targets `cargo xtask test` builds: those this machine can run (Windows under Wine,
/// aarch64 Linux under qemu-user) or read (macOS).
const CROSS_CHECKED: [&str; 4] =
    ["x86_64-pc-windows-gnu", "aarch64-unknown-linux-gnu", "aarch64-apple-darwin", "x86_64-apple-darwin"];

/// Whether a check of the release builds runs here. They are made on x86-64 Linux only;
/// elsewhere, or when `missing` names what this machine lacks, the check is skipped with
/// a note, unless `MSL_REQUIRE_CROSS` is set (as `.ci/run` sets it): then a lack fails it.
pub fn can_run(missing: impl FnOnce() -> Option<String>) -> Result<bool, String> {
    if !(cfg!(target_os = "linux") && cfg!(target_arch = "x86_64")) {
        println!("   (made on x86-64 Linux only: skipped)");
        return Ok(false);
    }
    match missing() {
        None => Ok(true),
        Some(what) if std::env::var_os("MSL_REQUIRE_CROSS").is_some() => Err(what),
        Some(what) => {
            println!("   ({what}: skipped)");
            Ok(false)
        }
    }
}

/// `cargo xtask test`'s cross builds: the checker built for each of [`CROSS_CHECKED`] with
/// the `cross-check` profile, its format checked, and where it can run, run on the fixtures
/// with the same arguments as the host build: the exit codes and the output must be the
/// same.
///
/// The builds are made and run on x86-64 Linux only. Without mingw-w64, Wine or qemu-user
/// they are skipped with a note, unless `MSL_REQUIRE_CROSS` is set (as CI sets it).
pub fn cross_check() -> Result<(), String> {
    println!("== cross builds");
    let missing = || -> Option<String> {
        let missing: Vec<&str> = [
            ("x86_64-w64-mingw32-gcc", "gcc-mingw-w64-x86-64"),
            ("wine", "wine wine64"),
            ("qemu-aarch64-static", "qemu-user-static"),
            ("/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1", "libc6-arm64-cross"),
        ]
        .into_iter()
        .filter(|(tool, _)| if tool.starts_with('/') { !Path::new(tool).exists() } else { which(tool).is_none() })
        .map(|(_, package)| package)
        .collect();
        (!missing.is_empty())
            .then(|| format!("the cross builds need Debian's {} (apt-get install; .ci/run does)", missing.join(", ")))
    };
    if !can_run(missing)? {
        return Ok(());
    }
    let targets: Vec<&Target> = CROSS_CHECKED.iter().filter_map(|t| Target::find(t)).collect();
    let tools = Tools::install(&targets)?;
    step(
        "build msl-check for this machine (cross-check)",
        Command::new(cargo()).args([
            "build",
            "--quiet",
            "--profile",
            "cross-check",
            "-p",
            "msl-check",
            "--bin",
            "msl-check",
        ]),
    )?;
    let host = root().join("target/cross-check").join(crate::exe("msl-check"));
    let cases = cases()?;
    let expected: Vec<Outcome> =
        cases.iter().map(|args| outcome(&mut Command::new(&host), args)).collect::<Result<_, _>>()?;
    for t in targets {
        let dir = tools.build(t, "cross-check", &["msl-check"])?;
        let exe = dir.join(t.exe("msl-check"));
        verify(t, &exe)?;
        // makes the command that runs the build here
        let runner: Box<dyn Fn() -> Command> = match t.os {
            Os::Windows => {
                let wine = which("wine")
                    .or_else(|| which("wine64"))
                    .ok_or("Wine runs the Windows build: apt-get install wine wine64 (what .ci/run installs)")?;
                let prefix = root().join("target/dist-tools/wine");
                std::fs::create_dir_all(&prefix).map_err(|e| e.to_string())?;
                wine_stand_ins(&dir)?;
                Box::new(move || {
                    let mut c = Command::new(&wine);
                    c.arg(&exe).env("WINEPREFIX", &prefix).env("WINEDEBUG", "-all");
                    c
                })
            }
            Os::LinuxGnu { .. } if t.machine == Machine::Aarch64 => {
                let qemu = which("qemu-aarch64-static").or_else(|| which("qemu-aarch64")).ok_or(
                    "qemu-user runs the aarch64 build: apt-get install qemu-user-static libc6-arm64-cross (what .ci/run installs)",
                )?;
                Box::new(move || {
                    let mut c = Command::new(&qemu);
                    c.arg("-L").arg("/usr/aarch64-linux-gnu").arg(&exe);
                    c
                })
            }
            Os::Mac { min: (major, minor, _) } => {
                println!("   {}: Mach-O for {:?}, macOS {major}.{minor} or later", t.triple, t.machine);
                continue;
            }
            _ => continue,
        };
        let started = std::time::Instant::now();
        for (args, want) in cases.iter().zip(&expected) {
            let got = outcome(&mut runner(), args)?;
            let want = &Outcome { code: want.code, stdout: normalized(&want.stdout) };
            let got = Outcome { code: got.code, stdout: normalized(&got.stdout) };
            if got != *want {
                return Err(format!(
                    "{}: `msl-check {}` differs from the host build:\n  exit {:?} against {:?}\n  output:\n{}\n  the host's:\n{}",
                    t.triple,
                    args.join(" "),
                    got.code,
                    want.code,
                    excerpt(&got.stdout),
                    excerpt(&want.stdout)
                ));
            }
        }
        println!(
            "   {}: {} runs, the same exit codes and output as this machine's build ({:.1} s)",
            t.triple,
            cases.len(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// `cargo xtask test`'s check of the per-platform VS Code packages (with the editors'
/// tests, which bundle the host's server again afterwards): the servers of
/// [`PACKAGES_CHECKED`] built with the `cross-check` profile, each packaged as `dist`
/// packages it and checked the same way. Skipped like [`cross_check`].
pub fn check_packages() -> Result<(), String> {
    println!("== per-platform VS Code packages");
    let missing = || {
        which("x86_64-w64-mingw32-gcc").is_none().then(|| {
            "the Windows package's server links with mingw-w64 (apt-get install gcc-mingw-w64-x86-64)".to_string()
        })
    };
    if !can_run(missing)? {
        return Ok(());
    }
    let targets: Vec<&Target> = PACKAGES_CHECKED.iter().filter_map(|t| Target::find(t)).collect();
    let tools = Tools::install(&targets)?;
    let out = root().join("target/dist-tools/vsix-check");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    for t in targets {
        let dir = tools.build(t, "cross-check", &["msl-lsp"])?;
        let vsix = crate::editors::package_vscode_for(&dir.join(t.exe("msl-lsp")), t.triple, t.vscode, &out)?;
        check_vsix(t, &vsix)?;
        println!("   {}: one server, {}'s, under the name the extension looks for", vsix.display(), t.triple);
    }
    Ok(())
}

/// The platforms whose VS Code packages `cargo xtask test` makes and checks: the one most
/// users have, and the one whose server is an `.exe`.
const PACKAGES_CHECKED: [&str; 2] = ["aarch64-apple-darwin", "x86_64-pc-windows-gnu"];

/// Rust's standard library draws random numbers on Windows from `ProcessPrng` in
/// `bcryptprimitives.dll` (Windows 10 on), which Debian's Wine 8 does not have. The
/// stand-in, built here with mingw-w64 and put next to the program under test (never in a
/// package), answers from `BCryptGenRandom`, which Wine has.
const PROCESS_PRNG: &str = r#"#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0) return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
"#;

/// Builds the stand-ins Wine needs (see [`PROCESS_PRNG`]) into `dir`.
fn wine_stand_ins(dir: &Path) -> Result<(), String> {
    let src = root().join("target/dist-tools/process_prng.c");
    std::fs::write(&src, PROCESS_PRNG).map_err(|e| e.to_string())?;
    step(
        "stand-in bcryptprimitives.dll for Wine",
        Command::new("x86_64-w64-mingw32-gcc")
            .args(["-O2", "-shared", "-o"])
            .arg(dir.join("bcryptprimitives.dll"))
            .arg(&src)
            .arg("-lbcrypt"),
    )
}

/// `text` with the paths in JSON output written with `/` (Windows builds write them with
/// backslashes).
fn normalized(text: &str) -> String {
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m.iter_mut() {
                    match v {
                        serde_json::Value::String(s) if k == "path" => *s = s.replace('\\', "/"),
                        _ => walk(v),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(mut v) => {
            walk(&mut v);
            v.to_string()
        }
        Err(_) => text.to_string(),
    }
}

/// An exit code and what was written to standard output.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    code: Option<i32>,
    stdout: String,
}

/// Runs `cmd` with `args` in the fixtures folder.
fn outcome(cmd: &mut Command, args: &[String]) -> Result<Outcome, String> {
    let out = cmd
        .args(args)
        .current_dir(root().join("fixtures"))
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    Ok(Outcome { code: out.status.code(), stdout: String::from_utf8_lossy(&out.stdout).into_owned() })
}

fn excerpt(text: &str) -> String {
    text.lines().take(12).map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}

/// The runs compared: the checker's fixtures that pass, and those that fail, as JSON; a
/// file with syntax errors; an explanation; a bad argument (the exit code alone matters,
/// the message goes to standard error).
fn cases() -> Result<Vec<Vec<String>>, String> {
    let mut files: Vec<String> = std::fs::read_dir(root().join("fixtures/check"))
        .map_err(|e| format!("fixtures/check: {e}"))?
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(|n| format!("check/{n}")))
        .filter(|n| n.ends_with(".metal"))
        .collect();
    files.sort();
    let common = ["--no-config", "--compiler", "off", "--format", "json", "-q"].map(String::from);
    let with = |filter: &str| -> Vec<String> {
        let mut v = common.to_vec();
        v.extend(files.iter().filter(|f| f.ends_with(filter)).cloned());
        v
    };
    let pass = with("_pass.metal");
    let fail = with("_fail.metal");
    if pass.len() == common.len() || fail.len() == common.len() {
        return Err("fixtures/check has no _pass.metal or _fail.metal files".into());
    }
    Ok(vec![
        pass,
        fail,
        ["--no-config", "--syntax-only", "--format", "json", "-q", "hello.metal"].map(String::from).to_vec(),
        ["--explain", "E0100"].map(String::from).to_vec(),
        ["--no-such-option"].map(String::from).to_vec(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The VS Code extension's tests read the same table: each platform's package, and the
    /// server name the extension looks for there.
    #[test]
    fn targets_match_the_extension_platform_table() {
        let text = std::fs::read_to_string(root().join("editors/vscode/platforms.json")).expect("platforms.json");
        let table: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let packages = table["packages"].as_array().expect("packages");
        assert_eq!(packages.len(), TARGETS.len());
        for t in TARGETS {
            let p = packages.iter().find(|p| p["vscode"] == t.vscode).unwrap_or_else(|| panic!("{}", t.vscode));
            assert_eq!(p["triple"], t.triple);
            assert_eq!(p["server"], format!("server/{}", t.exe("msl-lsp")));
            let node = match t.os {
                Os::Mac { .. } => "darwin",
                Os::Windows => "win32",
                Os::LinuxGnu { .. } | Os::LinuxStatic => "linux",
            };
            assert_eq!(p["node"], node, "{}", t.vscode);
        }
    }

    #[test]
    fn archive_names_carry_no_version() {
        let names: Vec<String> = TARGETS.iter().map(Target::archive_name).collect();
        assert!(names.contains(&"msl-x86_64-pc-windows-gnu.zip".to_string()));
        assert!(names.contains(&"msl-aarch64-apple-darwin.tar.gz".to_string()));
    }
}
