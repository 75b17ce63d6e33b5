//! The editor packages: `cargo xtask dist` builds the VS Code extension with the release
//! `msl-lsp` inside; `cargo xtask test` runs the extensions' own tests through here.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{cargo, root, step};

fn vscode_dir() -> PathBuf {
    root().join("editors/vscode")
}

fn zed_manifest() -> PathBuf {
    root().join("editors/zed/Cargo.toml")
}

fn npm() -> &'static str {
    if cfg!(windows) { "npm.cmd" } else { "npm" }
}

/// Builds the release server for the host; returns a copy without debug information
/// (the release profile keeps line tables for profiling, which the package does not need).
fn release_server() -> Result<PathBuf, String> {
    step("release msl-lsp", Command::new(cargo()).args(["build", "--release", "--quiet", "-p", "msl-lsp"]))?;
    packaged_server(&root().join("target/release"))
}

/// The server built in `dir`, copied for packaging and stripped of debug information.
fn packaged_server(dir: &Path) -> Result<PathBuf, String> {
    let name = crate::exe("msl-lsp");
    let exe = dir.join(&name);
    if !exe.is_file() {
        return Err(format!("{} was not built", exe.display()));
    }
    let dist = root().join("target/release/dist");
    std::fs::create_dir_all(&dist).map_err(|e| e.to_string())?;
    let copy = dist.join(&name);
    std::fs::copy(&exe, &copy).map_err(|e| format!("{}: {e}", copy.display()))?;
    if cfg!(unix) {
        match Command::new("strip").arg(&copy).status() {
            Ok(s) if s.success() => {}
            _ => println!("   (no `strip` here: the server is packaged with its debug information)"),
        }
    }
    Ok(copy)
}

/// The VS Code package for one platform (`vsce package --target`), with `server` (built
/// for `triple`) as the only server inside, written to `out`; returns its path.
pub fn package_vscode_for(server: &Path, triple: &str, platform: &str, out: &Path) -> Result<PathBuf, String> {
    let dir = bundle_server(server, triple)?;
    let vsix = out.join(format!("msl-{platform}.vsix"));
    step(
        &format!("package the .vsix for {platform}"),
        Command::new(npm())
            .args(["exec", "--", "vsce", "package", "--no-dependencies", "--target", platform, "--out"])
            .arg(&vsix)
            .current_dir(&dir),
    )?;
    Ok(vsix)
}

/// `npm ci` (when the lock file changed or nothing is installed), and `server` (built for
/// `triple`) as the extension's only server, with the notices of the third-party code in
/// it; returns the extension's folder.
fn bundle_server(server: &Path, triple: &str) -> Result<PathBuf, String> {
    let dir = vscode_dir();
    // no install scripts: nothing in the build needs them, and some would fetch
    // prebuilt binaries or headers from outside the package registry
    step(
        "npm ci (editors/vscode)",
        Command::new(npm()).args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"]).current_dir(&dir),
    )?;
    // one server per package: another platform's (`dist --target`) must not linger
    for name in ["msl-lsp", "msl-lsp.exe"] {
        let _ = std::fs::remove_file(dir.join("server").join(name));
    }
    step(
        &format!("bundle {} into the extension", server.display()),
        Command::new(npm()).args(["run", "bundle-server", "--"]).arg(server).current_dir(&dir),
    )?;
    let notices = crate::licenses::for_build(triple, &["msl-lsp"])?;
    let path = dir.join("server").join(crate::licenses::FILE);
    std::fs::write(&path, notices).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(dir)
}

/// The server bundled (see [`bundle_server`]), the `.vsix` packaged; returns its path.
fn package_vscode(server: &Path) -> Result<PathBuf, String> {
    let dir = bundle_server(server, &crate::pgo::host_triple()?)?;
    // a stale package must not be picked up by the end-to-end test
    for e in std::fs::read_dir(&dir).map_err(|e| e.to_string())?.flatten() {
        if e.path().extension().is_some_and(|x| x == "vsix") {
            let _ = std::fs::remove_file(e.path());
        }
    }
    step("package the .vsix", Command::new(npm()).args(["run", "package"]).current_dir(&dir))?;
    std::fs::read_dir(&dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "vsix"))
        .ok_or_else(|| "no .vsix was written".to_string())
}

/// `cargo xtask dist`: the VS Code extension with the release server for this host,
/// built profile-guided (see [`crate::pgo`]) unless `--no-pgo` says otherwise or the
/// toolchain lacks `llvm-profdata`.
pub fn dist(args: &[String]) -> Result<u8, String> {
    let server = if args.iter().any(|a| a == "--no-pgo") {
        release_server()?
    } else {
        match crate::pgo::build() {
            Ok(dir) => packaged_server(&dir)?,
            Err(crate::pgo::Error::NoProfdata(why)) => {
                println!("   (no profile-guided build: {why}; packaging the plain release build)");
                release_server()?
            }
            Err(crate::pgo::Error::Failed(e)) => return Err(e),
        }
    };
    let vsix = package_vscode(&server)?;
    let size = std::fs::metadata(&vsix).map(|m| m.len()).unwrap_or(0);
    println!("wrote {} ({:.1} MB)", vsix.display(), size as f64 / 1e6);
    Ok(0)
}

/// The editors' tests: the VS Code extension's grammar and unit tests, its package,
/// the end-to-end test in a real VS Code (code-server in headless Chromium); the Zed
/// extension's host tests, its wasm build and its queries against the grammar.
pub fn test() -> Result<(), String> {
    println!("== editors");
    let dir = vscode_dir();
    let server = release_server()?;
    let vsix = package_vscode(&server)?;
    step("VS Code extension: grammar and unit tests", Command::new(npm()).arg("test").current_dir(&dir))?;
    // the stand-in for Apple's compiler, so that Show AIR has something to show
    step(
        "stand-in Metal compiler",
        Command::new(cargo()).args(["build", "--quiet", "-p", "msl-compiler", "--bin", "msl-compiler-standin"]),
    )?;
    let standin = root().join("target/debug").join(format!("msl-compiler-standin{}", std::env::consts::EXE_SUFFIX));
    step(
        "VS Code extension: end-to-end in code-server",
        Command::new(npm())
            .args(["run", "test:e2e"])
            .env("MSL_VSIX", &vsix)
            .env("MSL_STANDIN", &standin)
            .current_dir(&dir),
    )?;
    let zed = zed_manifest();
    step("Zed extension: host tests", Command::new(cargo()).args(["test", "--quiet", "--manifest-path"]).arg(&zed))?;
    step(
        "Zed extension: wasm32-wasip2 build",
        Command::new(cargo())
            .args(["build", "--release", "--quiet", "--target", "wasm32-wasip2", "--manifest-path"])
            .arg(&zed),
    )?;
    step(
        "Zed extension: queries against tree-sitter-cpp",
        Command::new("sh").arg(root().join("editors/zed/tests/check-queries.sh")),
    )?;
    Ok(())
}
