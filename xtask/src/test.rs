//! `cargo xtask test`: everything CI checks, in order, stopping at the first failure.

use std::process::Command;

pub fn run(args: &[String]) -> Result<u8, String> {
    let quick = args.iter().any(|a| a == "--quick");
    let editors = !quick && !args.iter().any(|a| a == "--no-editors");
    if args.iter().any(|a| a == "--editors-only") {
        crate::editors::test()?;
        return Ok(0);
    }
    let cargo = crate::cargo();
    let mut steps: Vec<(&str, Vec<&str>)> = vec![
        ("format", vec!["fmt", "--all", "--check"]),
        ("clippy", vec!["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]),
        ("tests", vec!["test", "--workspace", "--quiet"]),
    ];
    if quick {
        steps.retain(|(name, _)| *name == "tests");
    }
    for (name, argv) in steps {
        println!("== {name}: cargo {}", argv.join(" "));
        let status = Command::new(&cargo).args(&argv).status().map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() {
            return Err(format!("step `{name}` failed"));
        }
    }
    println!("== corpus");
    let code = crate::corpus::run(&[])?;
    if code != 0 {
        return Err("corpus has failing units".into());
    }
    println!("== corpus through the checker");
    if crate::corpus::run(&["--semantic".to_string()])? != 0 {
        return Err("corpus has units with checker errors".into());
    }
    println!("== typos injected into the corpus");
    if crate::corpus::run(&["--typos".to_string()])? != 0 {
        return Err("too few injected typos reported".into());
    }
    if crate::corpus_dir().join("FILES.tsv").exists() {
        println!("== corpus through msl-check");
        let status = Command::new(&cargo)
            .args(["build", "--release", "--quiet", "-p", "msl-check"])
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() || crate::corpus::run(&["--cli".to_string()])? != 0 {
            return Err("corpus through msl-check failed".into());
        }
    }
    if !quick {
        crate::dist::cross_check()?;
        crate::wheel::test()?;
    }
    if editors {
        crate::dist::check_packages()?;
        crate::editors::test()?;
    }
    println!("== all checks passed");
    Ok(0)
}
