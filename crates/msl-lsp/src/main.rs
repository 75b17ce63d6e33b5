//! `msl-lsp`: the Metal Shading Language server, speaking LSP over standard input/output.

use std::path::PathBuf;

#[global_allocator]
static GLOBAL: msl_memory::MiMalloc = msl_memory::MiMalloc;

const HELP: &str = "\
msl-lsp: a language server for the Metal Shading Language

Usage: msl-lsp [--stdio] [--log-file PATH]

Speaks the Language Server Protocol over standard input and output.

Options:
  --stdio            Use standard input/output (the default and only transport)
  --log-file PATH    Also write the server's log to PATH
  --version          Print the version
  -h, --help         Print this help
";

fn main() {
    msl_memory::return_freed_memory_promptly();
    msl_lsp::memory::no_huge_pages();
    msl_lsp::memory::free_trees_in_background();
    let mut log_file = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--version" | "-V" => {
                println!("msl-lsp {}", env!("CARGO_PKG_VERSION"));
                return;
            }
            "--help" | "-h" => {
                print!("{HELP}");
                return;
            }
            "--stdio" => {}
            "--log-file" => match args.next() {
                Some(p) => log_file = Some(PathBuf::from(p)),
                None => {
                    eprintln!("msl-lsp: --log-file needs a path");
                    std::process::exit(2);
                }
            },
            other => {
                if let Some(p) = other.strip_prefix("--log-file=") {
                    log_file = Some(PathBuf::from(p));
                } else {
                    eprintln!("msl-lsp: unknown argument `{other}`\n\n{HELP}");
                    std::process::exit(2);
                }
            }
        }
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(msl_ide::ANALYSIS_STACK_SIZE)
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("msl-lsp: cannot start: {e}");
            std::process::exit(1);
        }
    };
    let code = runtime.block_on(msl_lsp::run_stdio(log_file));
    // not `drop(runtime)`: that would wait for the blocked read of standard input
    std::process::exit(code);
}
