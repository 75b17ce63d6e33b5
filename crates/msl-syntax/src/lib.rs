//! The syntax layer of msl: lexer, C preprocessor, error-tolerant parser, rowan tree and
//! typed AST for the Metal Shading Language.
//!
//! Parsing never fails: every entry point returns a value together with the errors it
//! found. No input, however broken, huge or deeply nested, makes it panic.

pub mod ast;
pub mod codes;
pub mod config;
mod free;
pub mod lexer;
pub mod line_index;
mod parse;
mod parser;
pub mod pp;
mod reparse;
mod short;
mod syntax_kind;
mod threads;
pub mod vfs;

pub use free::{free_in_background, free_later};
pub use line_index::{LineCol, LineIndex};
pub use threads::parse_on_two_threads;

/// Whether `name` is a type or template of the Metal library that the parser knows
/// (`float4`, `half3x3`, `packed_float3`, `texture2d`, `int32_t`, ...).
pub fn is_library_type_name(name: &str) -> bool {
    parser::is_library_type_name(name)
}

/// Whether the parser takes `name` for a class or alias template of the Metal library
/// (`texture2d`, `vec`, `sparse_block_color`).
pub fn is_library_template_name(name: &str) -> bool {
    parser::is_library_template_name(name)
}

/// Whether the parser knows `name` from the Metal library: a type, a class, function or
/// variable template (`as_type`, `is_same_v`), or a namespace (`metal`, `simd`).
pub fn is_library_name(name: &str) -> bool {
    parser::is_library_name(name)
}
pub use parse::{Diagnostic, FilePiece, Origin, Parse, debug_dump, parse_file, parse_file_ahead, parse_text};
pub use pp::{Include, METAL_HEADERS as LIBRARY_HEADERS, MacroCall, MacroInfo, PpFile};

pub use config::{MetalVersion, Platform, PpConfig};
pub use rowan::{NodeOrToken, TextRange, TextSize, WalkEvent};
pub use syntax_kind::{Msl, SyntaxElement, SyntaxKind, SyntaxNode, SyntaxToken};
pub use vfs::{FileId, FileResolver, Vfs};

/// The `.metal` fixtures under `fixtures/<dir>` for each of `dirs`, sorted (unit tests).
#[cfg(test)]
pub(crate) fn fixture_files(dirs: &[&str]) -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files: Vec<_> = dirs
        .iter()
        .flat_map(|dir| std::fs::read_dir(root.join(dir)).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "metal"))
        .collect();
    files.sort();
    files
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}
