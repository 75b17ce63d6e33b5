//! The `msl-check` command.

#[global_allocator]
static GLOBAL: msl_memory::MiMalloc = msl_memory::MiMalloc;

fn main() -> std::process::ExitCode {
    msl_memory::keep_freed_memory();
    std::process::ExitCode::from(msl_check::run(std::env::args().collect()))
}
