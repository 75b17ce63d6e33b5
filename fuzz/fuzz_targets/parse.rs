//! Lex + preprocess + parse arbitrary bytes. The input may carry a second file after a
//! NUL byte, reachable as `#include "h.h"`. Checks the tree invariants too, and that the
//! path of long main files gives the same tree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use msl_syntax::{PpConfig, Vfs, parse_file, parse_file_ahead};

fuzz_target!(|data: &[u8]| {
    let (main, header) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b""[..]),
    };
    let vfs = Vfs::new();
    vfs.add_bytes("/f/h.h", header);
    let id = vfs.add_bytes("/f/main.metal", main);
    let parse = parse_file(id, &vfs, &PpConfig::default());
    // the tree always holds the whole main file
    assert_eq!(parse.main_file_text_from_tree(), *parse.files()[0].text);
    // every piece's text is in the tree at the piece's offset
    let tree = parse.syntax().text().to_string();
    let pp = parse.preprocessed();
    for (i, piece) in pp.pieces.iter().enumerate() {
        let at = usize::from(parse.piece_start(i).expect("every piece has a tree offset"));
        assert_eq!(tree.get(at..at + piece.len as usize), Some(pp.text(piece)), "piece {i}");
    }
    for d in parse.diagnostics() {
        let len = parse.files()[d.file as usize].text.len();
        assert!(usize::from(d.range.end()) <= len, "diagnostic range past the end of its file");
    }
    // the path of long main files (two threads, tree tokens made ahead) gives the same
    let ahead = parse_file_ahead(id, &vfs, &PpConfig::default());
    assert_eq!(ahead.green(), parse.green(), "the trees differ");
    assert_eq!(ahead.diagnostics(), parse.diagnostics(), "the diagnostics differ");
});
