//! Whether parsing one large unit may use a second thread.
//!
//! Lexing a long file and building the tree of a large unit each split their work with a
//! second thread (see `lexer::lex` and `parse::build`); a unit whose main file is long
//! uses the second thread from the start, to make the tree's tokens while the unit is
//! preprocessed (`parse::parse_long_file`). That cuts the time to parse an 11,000-line
//! kernel library by 40% on two cores. A batch tool that already keeps
//! every core busy with other files gains nothing from it, and a measurement of one core
//! must not use it: both can turn it off.

use std::sync::atomic::{AtomicBool, Ordering};

static SECOND_THREAD: AtomicBool = AtomicBool::new(true);

/// Whether parsing a large unit may use a second thread (on by default). Returns the
/// setting it replaces.
pub fn parse_on_two_threads(on: bool) -> bool {
    SECOND_THREAD.swap(on, Ordering::Relaxed)
}

pub(crate) fn second_thread() -> bool {
    SECOND_THREAD.load(Ordering::Relaxed)
}
