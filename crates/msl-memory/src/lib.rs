//! The allocator the msl binaries link (mimalloc 3, built by `libmimalloc-sys`), and the
//! two ways they set it up: `msl-lsp` returns freed memory to the system at once, because
//! it runs for hours beside an editor; `msl-check` (and the bench, which measures its
//! parse) keeps freed memory for reuse, because it is a batch job that ends when it is done.
//!
//! The settings are the allocator's options: call them first thing in `main`, before any
//! other thread starts (`mi_option_set` is not thread-safe). Each returns whether it set
//! anything; an option the environment set (`MIMALLOC_PURGE_DELAY` and the like) is left
//! as it is, and so is everything when the linked mimalloc is not the version whose option
//! table this crate knows.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;
use std::os::raw::{c_int, c_long};

use libmimalloc_sys as mi;

/// mimalloc as the global allocator.
///
/// Rust passes an alignment with every request; mimalloc's aligned entry points serve it,
/// but in mimalloc 3 they take a slower path, and for a size whose block size class is not
/// a power of two (a 48-byte tree node, say) they over-allocate into the next class. Every
/// mimalloc block is aligned to at least [`MIN_ALIGN`] bytes, so requests that ask for no
/// more go through the plain entry points; the rest through the aligned ones.
pub struct MiMalloc;

/// The alignment of every block mimalloc hands out: its smallest size class is one word,
/// and the classes above it are multiples of a word.
pub const MIN_ALIGN: usize = std::mem::size_of::<usize>();

// SAFETY: each method forwards to the mimalloc function with the same contract; blocks of
// alignment up to `MIN_ALIGN` come from the plain functions, whose blocks are always that
// aligned, and all others from the aligned functions with the requested alignment.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe {
            if layout.align() <= MIN_ALIGN {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe {
            if layout.align() <= MIN_ALIGN {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        unsafe {
            if layout.align() <= MIN_ALIGN {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

/// Options of mimalloc 3 (`mi_option_e` in `mimalloc.h`), each with the default that
/// identifies it.
const PURGE_DELAY: (c_int, c_long) = (15, 1000);
const ALLOW_THP: (c_int, c_long) = (43, 1);
const MINIMAL_PURGE_SIZE: (c_int, c_long) = (44, 0);

/// The purge delay that turns purging off.
const NEVER: c_long = -1;

/// Sets each option still at its default to the value given, if the linked mimalloc is
/// version 3. Returns whether any was set.
///
/// # Safety
/// No other thread may use the allocator's options meanwhile (call before starting any).
unsafe fn set_defaults(options: &[((c_int, c_long), c_long)]) -> bool {
    unsafe {
        if mi::mi_version() < 300 {
            return false;
        }
        let mut set = false;
        for &((option, default), value) in options {
            if mi::mi_option_get(option) == default {
                mi::mi_option_set(option, value);
                set = true;
            }
        }
        set
    }
}

/// For the server: freed memory goes back to the system without delay, in ordinary pages.
///
/// By default mimalloc keeps freed pages for a second before returning them, and backs its
/// arenas with transparent huge pages, which it then only returns in whole 2 MB pieces.
/// The server replaces the tree of an 11,000-line unit on every keystroke and frees the old
/// one on another thread: with the defaults, memory the analysis no longer used stayed
/// resident, and the resident size of a session on a large file was two to three times
/// what was live.
pub fn return_freed_memory_promptly() -> bool {
    // SAFETY: called, as documented, before other threads exist.
    // (a minimal purge size of 0 stands for 2 MB when huge pages are allowed at start)
    unsafe { set_defaults(&[(PURGE_DELAY, 0), (ALLOW_THP, 0), (MINIMAL_PURGE_SIZE, 64)]) }
}

/// For batch runs: freed memory stays in the process for reuse, never returned early.
///
/// A check parses one unit after another, and each parse frees what the one before it
/// allocated. In a run longer than mimalloc's purge delay, pages were handed back only for
/// the next units to fault them in again, each fault zeroing a page (2 MB with transparent
/// huge pages) in the kernel: over the corpus parsed on one thread, 13,000-21,000 faults
/// a run, against about 330 with purging off. The process ends when its work is done, and
/// its peak memory is the same either way.
pub fn keep_freed_memory() -> bool {
    // SAFETY: called, as documented, before other threads exist.
    unsafe { set_defaults(&[(PURGE_DELAY, NEVER)]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_table_is_the_one_this_knows() {
        // the test binary sets no option: the defaults identify them (`MIMALLOC_*`
        // variables in the environment would change them)
        if std::env::vars().any(|(k, _)| k.starts_with("MIMALLOC_")) {
            return;
        }
        // SAFETY: reads the option table only.
        unsafe {
            assert!(mi::mi_version() >= 300);
            for (option, default) in [PURGE_DELAY, ALLOW_THP, MINIMAL_PURGE_SIZE] {
                assert_eq!(mi::mi_option_get(option), default, "option {option}");
            }
        }
    }

    /// Allocates, fills, grows, shrinks and frees blocks of many sizes and alignments
    /// through [`MiMalloc`], checking each block's alignment and contents.
    #[test]
    fn blocks_have_the_alignment_and_contents_asked_for() {
        let sizes = [1usize, 7, 8, 12, 16, 24, 40, 48, 56, 100, 1000, 4096, 70_000, 3 << 20];
        let aligns = [1usize, 2, 4, 8, 16, 32, 64, 4096];
        let byte = |i: usize| (i % 251) as u8;
        for &size in &sizes {
            for &align in &aligns {
                let layout = |size| Layout::from_size_align(size, align).expect("a valid layout");
                // SAFETY: the layouts have non-zero sizes; each block is read and written
                // within its size and passed on with the layout it has.
                unsafe {
                    let zeroed = MiMalloc.alloc_zeroed(layout(size));
                    assert!(!zeroed.is_null());
                    assert_eq!(zeroed as usize % align, 0, "zeroed {size} bytes aligned to {align}");
                    assert!(std::slice::from_raw_parts(zeroed, size).iter().all(|&b| b == 0));
                    MiMalloc.dealloc(zeroed, layout(size));

                    let p = MiMalloc.alloc(layout(size));
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "{size} bytes aligned to {align}");
                    for i in 0..size {
                        *p.add(i) = byte(i);
                    }
                    let grown = size * 3 + 5;
                    let p = MiMalloc.realloc(p, layout(size), grown);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "{size} -> {grown} bytes aligned to {align}");
                    assert!((0..size).all(|i| *p.add(i) == byte(i)), "{size} -> {grown} bytes kept");
                    let shrunk = size.div_ceil(2);
                    let p = MiMalloc.realloc(p, layout(grown), shrunk);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "{grown} -> {shrunk} bytes aligned to {align}");
                    assert!((0..shrunk).all(|i| *p.add(i) == byte(i)), "{grown} -> {shrunk} bytes kept");
                    MiMalloc.dealloc(p, layout(shrunk));
                }
            }
        }
    }
}
