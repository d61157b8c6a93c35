//! The process's memory setup: transparent huge pages off, and Tree-sitter's
//! C allocations on mimalloc.
//!
//! mimalloc asks for huge pages on its arenas (`MADV_HUGEPAGE`), and the
//! kernel then zeroes 2 MiB at each first touch. A short-lived process that
//! builds its tables once pays for every page it touches: on the benchmark
//! VM an update spent up to two thirds of its CPU time in the kernel's
//! `clear_page`, and a 10-file update of rust-vendor took 156–317 ms with
//! them against 201–240 ms without (ansible 215–277 against 174–204).
//! Children (language servers, installers) get back the setting refgraph
//! started with: the flag is inherited across `fork` and `exec`.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether huge pages were already off when refgraph started.
static STARTED_OFF: AtomicBool = AtomicBool::new(false);

/// Turns transparent huge pages off for this process (Linux; elsewhere
/// nothing). Call first in `main`, before the heap grows.
pub fn huge_pages_off() {
    #[cfg(target_os = "linux")]
    {
        if let Ok(off) = rustix::thread::transparent_huge_pages_are_disabled() {
            STARTED_OFF.store(off, Ordering::Relaxed);
        }
        if let Err(e) = rustix::thread::disable_transparent_huge_pages(true) {
            tracing::debug!(error = %e, "transparent huge pages left as they were");
        }
    }
}

/// The process's memory setup: [`huge_pages_off`], and Tree-sitter's C
/// allocations on mimalloc (`tree_sitter_on_mimalloc`). The binary and the stages benchmark call it,
/// so the benchmark measures what `refgraph index` runs.
///
/// # Safety
/// Call first, on the main thread, before any Tree-sitter call (the
/// allocator setting is global and not synchronized).
pub unsafe fn setup() {
    huge_pages_off();
    // SAFETY: the caller's guarantee.
    unsafe { tree_sitter_on_mimalloc() };
}

/// Routes Tree-sitter's C allocations (parse trees, parser stacks) to
/// mimalloc: parsing thousands of files allocates and frees millions of small
/// nodes, and glibc malloc was ~15% of a cold index. Tree-sitter does not
/// check for a failed allocation: one aborts the process, as Rust's own
/// allocation failures do.
///
/// # Safety
/// Call first, on the main thread, before any other Tree-sitter call (the
/// setting is global and not synchronized): memory allocated by one
/// allocator and freed by the other is undefined behaviour.
unsafe fn tree_sitter_on_mimalloc() {
    // SAFETY: the caller guarantees no Tree-sitter call came before; the
    // four functions are one allocator family (mimalloc), aligned like libc
    // malloc, and never return null for a non-zero size.
    unsafe {
        tree_sitter::set_allocator(Some(tree_sitter::Allocator {
            malloc: ts_malloc,
            calloc: ts_calloc,
            realloc: ts_realloc,
            free: libmimalloc_sys::mi_free,
        }));
    }
}

/// `p`, or the process aborted when an allocation of `size` bytes failed.
fn or_abort(p: *mut std::ffi::c_void, size: usize) -> *mut std::ffi::c_void {
    if p.is_null() && size != 0 {
        std::process::abort();
    }
    p
}

unsafe extern "C" fn ts_malloc(size: usize) -> *mut std::ffi::c_void {
    // SAFETY: mimalloc's malloc, any size.
    or_abort(unsafe { libmimalloc_sys::mi_malloc(size) }, size)
}

unsafe extern "C" fn ts_calloc(count: usize, size: usize) -> *mut std::ffi::c_void {
    // SAFETY: mimalloc's calloc, any sizes (an overflowing product fails).
    let p = unsafe { libmimalloc_sys::mi_calloc(count, size) };
    or_abort(p, count.saturating_mul(size))
}

unsafe extern "C" fn ts_realloc(ptr: *mut std::ffi::c_void, size: usize) -> *mut std::ffi::c_void {
    // SAFETY: `ptr` is null or came from these functions (Tree-sitter's
    // contract for its `realloc`).
    or_abort(unsafe { libmimalloc_sys::mi_realloc(ptr, size) }, size)
}

/// Gives a child command the huge-page setting refgraph started with.
pub fn restore_in_child(cmd: &mut std::process::Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let off = STARTED_OFF.load(Ordering::Relaxed);
        // SAFETY: the closure makes one `prctl` system call (async-signal
        // safe) and allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
                let _ = rustix::thread::disable_transparent_huge_pages(off);
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (cmd, &STARTED_OFF, Ordering::Relaxed);
}

/// This process's resident memory in MiB, for debug logs (0 where unknown).
pub fn rss_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let kib = s.lines().find_map(|l| l.strip_prefix("VmRSS:"))?;
            kib.trim().trim_end_matches("kB").trim().parse::<u64>().ok()
        })
        .map_or(0, |kib| kib >> 10)
}

/// Returns the memory this thread freed so far to the system (mimalloc
/// keeps freed pages for reuse).
fn give_back() {
    // SAFETY: mi_collect has no preconditions.
    unsafe { libmimalloc_sys::mi_collect(true) };
}

/// Returns freed memory to the system, on this thread and on every worker
/// (a page freed here that a worker allocated is that worker's to return):
/// called between stages whose tables die at the end.
pub fn give_back_everywhere() {
    give_back();
    crate::index::workers().broadcast(|_| give_back());
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Touching 64 MiB shows in the resident memory read back.
    #[test]
    fn resident_memory_is_read() {
        let before = rss_mib();
        assert!(before > 0);
        let touched = vec![1u8; 64 << 20];
        let after = rss_mib();
        assert!(after >= before + 48, "{before} MiB, then {after} MiB");
        drop(std::hint::black_box(touched));
    }

    /// A child started through `restore_in_child` has huge pages as the
    /// parent had them before `huge_pages_off`, whatever the parent has now.
    #[test]
    fn children_get_the_starting_setting_back() {
        let before = rustix::thread::transparent_huge_pages_are_disabled().unwrap();
        huge_pages_off();
        assert!(rustix::thread::transparent_huge_pages_are_disabled().unwrap());
        let status = |restore: bool| {
            let mut cmd = std::process::Command::new("grep");
            cmd.args(["^THP_enabled:", "/proc/self/status"]);
            if restore {
                restore_in_child(&mut cmd);
            }
            String::from_utf8(cmd.output().unwrap().stdout).unwrap()
        };
        // `THP_enabled: 0` when the flag is set (kernels from 5.0 list it).
        let inherited = status(false);
        if inherited.is_empty() {
            return;
        }
        assert!(inherited.contains('0'), "{inherited}");
        let restored = status(true);
        assert_eq!(restored.contains('0'), before, "{restored}");
    }
}
