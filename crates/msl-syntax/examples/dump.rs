//! Prints the syntax tree and diagnostics of a file: `cargo run --example dump -- FILE [-I DIR] [-D X] [--std metal3.2] [--errors]`
use msl_syntax::{PpConfig, Vfs, config, parse_file};
use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut cfg = PpConfig::default();
    let mut file = None;
    let mut errors_only = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "-I" => cfg.include_dirs.push(PathBuf::from(args.next().unwrap_or_default())),
            "-D" => cfg.define(&args.next().unwrap_or_default()),
            "--std" => {
                if let Some((v, p)) = config::parse_std(&args.next().unwrap_or_default()) {
                    cfg.version = v;
                    cfg.platform = p.unwrap_or(cfg.platform);
                }
            }
            "--errors" => errors_only = true,
            _ => file = Some(PathBuf::from(a)),
        }
    }
    let Some(file) = file else {
        eprintln!("usage: dump FILE [-I DIR] [-D NAME[=VALUE]] [--std metalX.Y] [--errors]");
        std::process::exit(2);
    };
    let vfs = Vfs::with_disk();
    let id = match vfs.load(&file) {
        Ok(id) => id,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            std::process::exit(2);
        }
    };
    let parse = parse_file(id, &vfs, &cfg);
    if !errors_only {
        print!("{}", parse.debug_tree());
    }
    for d in parse.diagnostics() {
        let f = &parse.files()[d.file as usize];
        let line = f.text[..usize::from(d.range.start()).min(f.text.len())].matches('\n').count() + 1;
        println!("{}:{}: {:?} {}: {}", f.path.display(), line, d.severity, d.code, d.message);
    }
}
