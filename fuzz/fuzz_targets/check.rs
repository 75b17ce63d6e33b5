//! Every check over arbitrary bytes: the definitions, inference of every body and of the
//! instantiations the unit makes, constant evaluation and layout. The input may carry a
//! second file after a NUL byte, reachable as `#include "h.h"`. Nothing may panic, hang
//! (templates and constants stop at their budgets) or report a place outside its file.
//! Seeds: `fuzz/seeds/check/` (runaway templates, endless constants, deep expressions).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use msl_hir::Analysis;
use msl_syntax::PpConfig;

fuzz_target!(|data: &[u8]| {
    let (main, header) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b""[..]),
    };
    let mut a = Analysis::new(msl_hir::RootDatabase::default());
    a.set_file_bytes(Path::new("/f/h.h"), header);
    let f = a.set_file_bytes(Path::new("/f/main.metal"), main);
    let unit = a.unit(f, PpConfig::default());
    let parse = a.parse(unit);
    let within = |file: u32, range: msl_syntax::TextRange| {
        parse.files().get(file as usize).is_some_and(|f| usize::from(range.end()) <= f.text.len())
    };
    for d in a.diagnostics(unit, false) {
        assert!(within(d.diagnostic.file, d.diagnostic.range), "a diagnostic past the end of its file: {d:?}");
        for (file, range, _) in &d.related {
            assert!(within(*file, *range), "a related place past the end of its file: {d:?}");
        }
    }
    // the instantiations stop at their limits
    let instances = msl_hir::unit_instances(&a.db, unit);
    assert!(instances.list.len() <= msl_hir::MAX_INSTANCES);
});
