//! The notices of the third-party code a release build contains.
//!
//! `cargo metadata` for the target gives every package the shipped programs depend on
//! through normal dependencies (procedural macros among them, to be safe; build-script
//! and dev-dependencies put no code into the programs and are left out). For each, the notice names it, its version, its SPDX license
//! expression and where it comes from, and reproduces the license files it ships
//! (`LICENSE*`, `LICENCE*`, `COPYING*`, `NOTICE*`, `UNLICENSE*`). Texts that several
//! packages share word for word are printed once, with the list of those packages.
//!
//! What the toolchain links in comes after: the Rust standard library (its MIT text, from
//! the toolchain's `share/doc/rust/licenses`), musl in the static Linux build (its
//! `COPYRIGHT`, from Zig's copy of musl) and the mingw-w64 runtime in the Windows build
//! (Debian's `copyright` file of the package).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::dist::{Os, Target};
use crate::{cargo, root};

/// The notices' file name, in the archives and beside the server in the `.vsix`.
pub const FILE: &str = "THIRD-PARTY-LICENSES.txt";

/// One shipped package.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Package {
    pub name: String,
    pub version: String,
    pub license: String,
    pub repository: String,
    /// (file name, text) of each license file in the package's folder.
    pub files: Vec<(String, String)>,
}

/// The third-party packages linked into `roots` when built for `triple`.
pub fn packages(triple: &str, roots: &[&str]) -> Result<Vec<Package>, String> {
    let out = Command::new(cargo())
        .args(["metadata", "--format-version", "1", "--locked", "--filter-platform", triple])
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let by_id: BTreeMap<&str, &serde_json::Value> = meta["packages"]
        .as_array()
        .ok_or("cargo metadata: no packages")?
        .iter()
        .filter_map(|p| Some((p["id"].as_str()?, p)))
        .collect();
    let nodes: BTreeMap<&str, &serde_json::Value> = meta["resolve"]["nodes"]
        .as_array()
        .ok_or("cargo metadata: no resolve graph")?
        .iter()
        .filter_map(|n| Some((n["id"].as_str()?, n)))
        .collect();
    let mut stack: Vec<&str> = by_id
        .iter()
        .filter(|(_, p)| roots.contains(&p["name"].as_str().unwrap_or_default()))
        .map(|(id, _)| *id)
        .collect();
    if stack.len() != roots.len() {
        return Err(format!("cargo metadata does not list all of {roots:?}"));
    }
    let mut seen = BTreeSet::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in nodes.get(id).and_then(|n| n["deps"].as_array()).into_iter().flatten() {
            let normal = dep["dep_kinds"].as_array().into_iter().flatten().any(|k| k["kind"].is_null());
            if let (true, Some(pkg)) = (normal, dep["pkg"].as_str()) {
                stack.push(pkg);
            }
        }
    }
    let mut found = Vec::new();
    for id in seen {
        let p = by_id[id];
        // the workspace's own packages have no source; their license is LICENSE
        if p["source"].is_null() {
            continue;
        }
        let name = p["name"].as_str().unwrap_or_default().to_string();
        let manifest = p["manifest_path"].as_str().ok_or("a package without a manifest")?;
        let dir = Path::new(manifest).parent().ok_or("a manifest without a folder")?;
        let files = license_files(dir)?;
        let license = p["license"].as_str().unwrap_or_default().to_string();
        if files.is_empty() {
            return Err(format!("{name} ships no license file (its license: {license:?})"));
        }
        found.push(Package {
            version: p["version"].as_str().unwrap_or_default().to_string(),
            license,
            repository: p["repository"].as_str().unwrap_or_default().to_string(),
            files,
            name,
        });
    }
    found.sort();
    Ok(found)
}

/// The license files directly in `dir`, sorted by name.
fn license_files(dir: &Path) -> Result<Vec<(String, String)>, String> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let upper = name.to_ascii_uppercase();
        let is_license = ["LICENSE", "LICENCE", "COPYING", "NOTICE", "UNLICENSE"].iter().any(|p| upper.starts_with(p));
        if is_license && entry.path().is_file() {
            let text = std::fs::read_to_string(entry.path()).map_err(|e| format!("{}: {e}", entry.path().display()))?;
            files.push((name, text));
        }
    }
    files.sort();
    Ok(files)
}

/// A part of the toolchain linked into a build: its name and its license text.
pub type Linked = (String, String);

/// What the toolchain links into a build for `triple` (see the module's comment).
pub fn toolchain(triple: &str) -> Result<Vec<Linked>, String> {
    let sysroot = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| format!("cannot run rustc: {e}"))?;
    let sysroot = String::from_utf8_lossy(&sysroot.stdout).trim().to_string();
    let read = |path: &Path| std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()));
    let mut linked = vec![(
        "the Rust standard library (MIT OR Apache-2.0, used under MIT)".to_string(),
        read(&Path::new(&sysroot).join("share/doc/rust/licenses/MIT.txt"))?,
    )];
    match Target::find(triple).map(|t| t.os) {
        Some(Os::LinuxStatic) => {
            let lib = root().join("target/dist-tools/venv/lib");
            let copyright = std::fs::read_dir(&lib)
                .map_err(|e| format!("{}: {e} (Zig's musl is read from the tools' environment)", lib.display()))?
                .flatten()
                .map(|python| python.path().join("site-packages/ziglang/lib/libc/musl/COPYRIGHT"))
                .find(|p| p.is_file())
                .ok_or("Zig's copy of musl has no COPYRIGHT file")?;
            linked.push(("musl, the C library of the static Linux build (MIT)".to_string(), read(&copyright)?));
        }
        Some(Os::Windows) => {
            let copyright = Path::new("/usr/share/doc/mingw-w64-common/copyright");
            linked.push(("the mingw-w64 runtime of the Windows build".to_string(), read(copyright)?));
        }
        _ => {}
    }
    Ok(linked)
}

/// The notices file for `packages` and the `linked` parts of the toolchain.
pub fn notices(packages: &[Package], linked: &[Linked]) -> String {
    let mut out = String::from(
        "Third-party code in these programs\n\
         ==================================\n\n\
         The programs are built from the msl sources (see LICENSE) and from the Rust\n\
         packages below. Each package is named with its version, its license and where it\n\
         comes from; after the list come the license files the packages ship, each text\n\
         once, with the packages that ship it, and last the licenses of what the toolchain\n\
         links in.\n\n",
    );
    for p in packages {
        out.push_str(&format!("  {} {}  ({})  {}\n", p.name, p.version, p.license, p.repository));
    }
    // each distinct text once, with the files that carry it
    let mut texts: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for p in packages {
        for (file, text) in &p.files {
            texts.entry(text.trim()).or_default().push(format!("{} {} ({file})", p.name, p.version));
        }
    }
    let mut texts: Vec<(&str, Vec<String>)> = texts.into_iter().collect();
    texts.sort_by(|a, b| a.1.cmp(&b.1));
    for (text, owners) in texts {
        out.push_str("\n\n-------------------------------------------------------------------------------\n");
        out.push_str(&format!("From: {}\n\n", owners.join(", ")));
        out.push_str(text);
        out.push('\n');
    }
    for (what, text) in linked {
        out.push_str("\n\n-------------------------------------------------------------------------------\n");
        out.push_str(&format!("Linked by the toolchain: {what}\n\n"));
        out.push_str(text.trim());
        out.push('\n');
    }
    out
}

/// The whole notices file for the given programs built for `triple`.
pub fn for_build(triple: &str, roots: &[&str]) -> Result<String, String> {
    Ok(notices(&packages(triple, roots)?, &toolchain(triple)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped programs' packages all carry a license file, and the notices name each
    /// of them and reproduce every text.
    #[test]
    fn the_notices_name_every_package_and_carry_its_texts() {
        let packages = packages("x86_64-unknown-linux-gnu", &["msl-check", "msl-lsp"]).expect("cargo metadata");
        for expected in ["rowan", "salsa", "tower-lsp-server", "tokio", "serde_json", "libmimalloc-sys"] {
            assert!(packages.iter().any(|p| p.name == expected), "{expected} is not among the shipped packages");
        }
        // a dev-dependency only, never linked into the programs
        assert!(!packages.iter().any(|p| p.name == "expect-test"), "a dev-dependency was listed");
        // a macOS build links nothing but the standard library in
        let linked = toolchain("aarch64-apple-darwin").expect("the toolchain's notices");
        assert_eq!(linked.len(), 1);
        let text = notices(&packages, &linked);
        assert!(text.contains("Linked by the toolchain: the Rust standard library"));
        assert!(text.contains("Permission is hereby granted"));
        // Windows builds carry the mingw-w64 runtime, where its package is installed
        if Path::new("/usr/share/doc/mingw-w64-common/copyright").exists() {
            let linked = toolchain("x86_64-pc-windows-gnu").expect("the toolchain's notices");
            assert!(notices(&packages, &linked).contains("Linked by the toolchain: the mingw-w64 runtime"));
        }
        for p in &packages {
            assert!(text.contains(&format!("  {} {}  ({})", p.name, p.version, p.license)), "{}", p.name);
            for (_, license) in &p.files {
                assert!(text.contains(license.trim()), "{}: a license text is missing", p.name);
            }
        }
    }
}
