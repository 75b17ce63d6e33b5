//! The pre-commit hooks built from source (`msl-check-from-source`, `msl-fmt-from-source`),
//! installed from this repository by `pre-commit` itself (from PyPI), fail on a bad shader
//! and pass once it is fixed. (The default hooks install the prebuilt wheel instead;
//! `cargo xtask test` checks those, with the wheel it builds.)
//!
//! pre-commit clones the repository at HEAD and builds `msl-check` with `cargo install`,
//! so this test takes a minute or two and needs the network for crates.io and PyPI.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").args(args).current_dir(dir).output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `pre-commit` from PATH, or installed into a virtual environment under target/.
fn pre_commit() -> PathBuf {
    if Command::new("pre-commit").arg("--version").output().is_ok_and(|o| o.status.success()) {
        return PathBuf::from("pre-commit");
    }
    let venv = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pre-commit-venv");
    // a virtual environment's programs are in Scripts on Windows, where Python is `python`
    let (bin, python) = if cfg!(windows) { ("Scripts", "python") } else { ("bin", "python3") };
    let exe = venv.join(bin).join(format!("pre-commit{}", std::env::consts::EXE_SUFFIX));
    if !exe.exists() {
        let ok = Command::new(python).args(["-m", "venv"]).arg(&venv).status().is_ok_and(|s| s.success());
        assert!(ok, "{python} -m venv failed");
        let ok = Command::new(venv.join(bin).join("pip"))
            .args(["install", "--quiet", "pre-commit"])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "pip install pre-commit failed");
    }
    exe
}

#[test]
fn hook_fails_on_a_bad_shader_and_passes_on_a_good_one() {
    let root = repo_root();
    let rev = git(&root, &["rev-parse", "HEAD"]);
    let pc = pre_commit();

    let dir = std::env::temp_dir().join(format!("msl-precommit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q"]);
    git(&dir, &["config", "user.email", "ci@example.com"]);
    git(&dir, &["config", "user.name", "CI"]);
    std::fs::write(
        dir.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: msl-check-from-source\n      - id: msl-fmt-from-source\n",
            root.display()
        ),
    )
    .unwrap();
    std::fs::write(dir.join("shader.metal"), "kernel void k(device float *a [[buffer(0)]]) {\n    a[0] = 1\n}\n")
        .unwrap();
    std::fs::write(dir.join("notes.txt"), "not checked: the hook only sees .metal files\n").unwrap();
    git(&dir, &["add", "-A"]);

    let run = || {
        Command::new(&pc)
            .args(["run", "--all-files", "--color", "never"])
            .current_dir(&dir)
            .env("PRE_COMMIT_HOME", dir.join(".pre-commit-cache"))
            .output()
            .expect("pre-commit runs")
    };
    let bad = run();
    let text = String::from_utf8_lossy(&bad.stdout).to_string() + &String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success(), "the hook should fail:\n{text}");
    assert!(text.contains("msl-check") && text.contains("Failed"), "{text}");
    assert!(text.contains("shader.metal:2:13: error[E0100]: expected `;`"), "{text}");
    // the formatter put the body's brace on a line of its own, and left the broken line
    assert!(text.contains("msl-fmt") && text.contains("files were modified by this hook"), "{text}");
    assert_eq!(
        std::fs::read_to_string(dir.join("shader.metal")).unwrap(),
        "kernel void k(device float *a [[buffer(0)]])\n{\n    a[0] = 1\n}\n"
    );

    std::fs::write(dir.join("shader.metal"), "kernel void k(device float *a [[buffer(0)]])\n{\n    a[0] = 1;\n}\n")
        .unwrap();
    git(&dir, &["add", "-A"]);
    let good = run();
    let text = String::from_utf8_lossy(&good.stdout).to_string() + &String::from_utf8_lossy(&good.stderr);
    assert!(good.status.success(), "the hook should pass:\n{text}");
    assert!(text.contains("Passed"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
