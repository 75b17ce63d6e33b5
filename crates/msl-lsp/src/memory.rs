//! How the server's memory goes back to the system.
//!
//! The binary allocates with mimalloc. By default it keeps freed pages for a second before
//! returning them, and backs its arenas with transparent huge pages, which it then only
//! returns in whole 2 MB pieces. The server replaces the tree of an 11,000-line unit on
//! every keystroke and frees the old one on another thread (see `msl_syntax::free_later`):
//! with those defaults, memory the analysis no longer uses stayed resident, and the
//! resident size of a session on a large file was two to three times what was live.
//! The server asks for prompt returns in ordinary pages instead, once, at start.

use std::os::raw::{c_int, c_long};

/// Options of the mimalloc 3 that `libmimalloc-sys` builds (`mi_option_e` in
/// `mimalloc.h`), with the defaults that identify them.
const PURGE_DELAY: (c_int, c_long) = (15, 1000);
const ALLOW_THP: (c_int, c_long) = (43, 1);
const MINIMAL_PURGE_SIZE: (c_int, c_long) = (44, 0);

/// Returns freed memory to the system without delay and in ordinary pages. Call first
/// thing in `main`, before other threads start (`mi_option_set` is not thread-safe).
/// Returns whether the options were set: they are left alone when the linked mimalloc is
/// not the version whose option table this knows, or was configured from the
/// environment (`MIMALLOC_PURGE_DELAY`, `MIMALLOC_ALLOW_THP`).
pub fn configure() -> bool {
    // SAFETY: plain calls into the allocator's option table, before other threads exist.
    unsafe {
        if libmimalloc_sys::mi_version() < 300 {
            return false;
        }
        let mut set = false;
        // (a minimal purge size of 0 stands for 2 MB when huge pages are allowed at start)
        for ((option, default), value) in [(PURGE_DELAY, 0), (ALLOW_THP, 0), (MINIMAL_PURGE_SIZE, 64)] {
            if libmimalloc_sys::mi_option_get(option) == default {
                libmimalloc_sys::mi_option_set(option, value);
                set = true;
            }
        }
        set
    }
}

/// Old syntax trees are freed on a background thread, off the path from an edit to its
/// diagnostics (see `msl_syntax::free_in_background`).
pub fn free_trees_in_background() {
    msl_ide::free_in_background(true);
}

/// Transparent huge pages off for the process (Linux): the allocator's arena was reserved
/// with huge pages allowed before `main` ran, and a 2 MB page stays resident while any
/// of its bytes is in use. Returns whether the kernel accepted it.
pub fn no_huge_pages() -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0)` only sets a flag of the process.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_option_table_is_the_one_this_knows() {
        // the test binary does not call `configure`: the defaults identify the options
        // (`MIMALLOC_*` variables in the environment would change them)
        if std::env::vars().any(|(k, _)| k.starts_with("MIMALLOC_")) {
            return;
        }
        unsafe {
            assert!(libmimalloc_sys::mi_version() >= 300);
            assert_eq!(libmimalloc_sys::mi_option_get(super::PURGE_DELAY.0), super::PURGE_DELAY.1);
            assert_eq!(libmimalloc_sys::mi_option_get(super::ALLOW_THP.0), super::ALLOW_THP.1);
            assert_eq!(libmimalloc_sys::mi_option_get(super::MINIMAL_PURGE_SIZE.0), super::MINIMAL_PURGE_SIZE.1);
        }
    }
}
