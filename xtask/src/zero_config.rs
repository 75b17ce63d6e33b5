//! `cargo xtask zero-config [--msl-check PATH]`: `msl-check --no-config .` at the root of
//! every source folder of the corpus, as a user who writes no configuration would run it
//! (none of FILES.tsv's flags), and how many files get errors. Directories are searched
//! for the extensions the folder's units have (as a user of SPIRV-Cross' `.frag` files
//! would ask for with `--include-ext`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::corpus::load_units;

pub fn run(args: &[String]) -> Result<u8, String> {
    let mut exe = std::env::current_exe().map_err(|e| e.to_string())?.with_file_name(crate::exe("msl-check"));
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--msl-check" => exe = PathBuf::from(it.next().ok_or("--msl-check needs a path")?),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if !exe.exists() {
        return Err(format!("{} not found: build it with `cargo build --release -p msl-check`", exe.display()));
    }
    let root = crate::corpus_dir();
    let units = load_units(&root)?;
    // the source folders: each top-level folder, and each folder of `samples/`
    let mut folders: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for u in units.iter().filter(|u| u.role == "tu") {
        let mut parts = u.path.split('/');
        let first = parts.next().unwrap_or_default();
        let folder = if first == "samples" {
            format!("samples/{}", parts.next().unwrap_or_default())
        } else {
            first.to_string()
        };
        let ext = Path::new(&u.path).extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default();
        folders.entry(folder).or_default().insert(ext);
    }
    let (mut files_total, mut with_errors_total, mut errors_total) = (0usize, 0usize, 0usize);
    println!("{:<52} {:>7} {:>12} {:>8}", "folder", "files", "with errors", "errors");
    for (folder, exts) in &folders {
        let mut cmd = Command::new(&exe);
        cmd.current_dir(root.join(folder)).args(["--no-config", "--format", "json", "--color", "never"]);
        for ext in exts.iter().filter(|e| *e != "metal") {
            cmd.args(["--include-ext", ext]);
        }
        cmd.arg(".");
        let out = cmd.output().map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let checked = stderr
            .lines()
            .find_map(|l| l.strip_prefix("checked "))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| format!("{folder}: msl-check did not finish: {stderr}"))?;
        let report: serde_json::Value =
            serde_json::from_slice(&out.stdout).map_err(|e| format!("{folder}: bad JSON from msl-check: {e}"))?;
        let errors: Vec<&serde_json::Value> =
            report.as_array().into_iter().flatten().filter(|d| d["severity"] == "error").collect();
        let paths: BTreeSet<&str> = errors.iter().filter_map(|d| d["path"].as_str()).collect();
        println!("{folder:<52} {checked:>7} {:>12} {:>8}", paths.len(), errors.len());
        for p in &paths {
            let codes: BTreeSet<&str> =
                errors.iter().filter(|d| d["path"] == *p).filter_map(|d| d["code"].as_str()).collect();
            println!("    {p}: {}", codes.into_iter().collect::<Vec<_>>().join(", "));
        }
        files_total += checked;
        with_errors_total += paths.len();
        errors_total += errors.len();
    }
    println!(
        "zero-config: {} folders, {files_total} files, {with_errors_total} with errors, {errors_total} errors",
        folders.len()
    );
    Ok(0)
}
