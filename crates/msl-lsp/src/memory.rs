//! How the server's memory goes back to the system.
//!
//! The server replaces the tree of an 11,000-line unit on every keystroke. `main` asks the
//! allocator to return freed memory at once and in ordinary pages (see
//! `msl_memory::return_freed_memory_promptly`); this module does the rest: old trees are
//! freed off the path from an edit to its diagnostics, and the process itself gets no
//! transparent huge pages.

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
