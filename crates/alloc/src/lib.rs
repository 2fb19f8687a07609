//! The tracekit command's allocator, and how it gives freed pages back.
//!
//! The command allocates with jemalloc (settings in `.cargo/config.toml`):
//! on a big trace it is faster than the system's allocator and keeps less
//! memory. Like any allocator it keeps freed pages for a while, to reuse
//! them; [`release_freed_pages`] gives them all back at once, and the
//! command registers it with the engine
//! (`tracekit::memory::set_release`),
//! which calls it between its phases, where a phase's memory has just been
//! freed and the next one's is about to be allocated.
//!
//! The library crates leave the allocator to their users; this crate is the
//! command's alone. Where jemalloc does not build (MSVC) it is empty and
//! the command keeps the system's allocator.

#[cfg(not(target_env = "msvc"))]
pub use tikv_jemallocator::Jemalloc;

/// Has jemalloc give back to the system, now, the pages of every arena
/// that are free but still resident (its `arena.<all>.purge`). The
/// allocations in use are untouched; later ones take fresh pages.
///
/// Only meaningful when jemalloc is the global allocator; otherwise it
/// purges jemalloc's own empty arenas, which costs next to nothing.
#[cfg(not(target_env = "msvc"))]
pub fn release_freed_pages() {
    // `MALLCTL_ARENAS_ALL` (4096 in jemalloc 5) names all arenas at once.
    const PURGE_ALL: &std::ffi::CStr = c"arena.4096.purge";
    // SAFETY: the name is a NUL-terminated string that outlives the call;
    // `arena.<i>.purge` reads and writes no value, so the old and new
    // value pointers are null and the new length is 0, as its contract
    // asks (jemalloc refuses the call, and changes nothing, otherwise).
    #[allow(unsafe_code)]
    let status = unsafe {
        tikv_jemalloc_sys::mallctl(
            PURGE_ALL.as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        )
    };
    // A purge that fails (it cannot, with this name) only leaves the pages
    // resident: nothing to report to the user.
    debug_assert_eq!(status, 0, "jemalloc refused arena.4096.purge");
}

#[cfg(all(test, target_os = "linux", not(target_env = "msvc")))]
mod tests {
    #[global_allocator]
    static ALLOCATOR: super::Jemalloc = super::Jemalloc;

    /// The process' resident memory (`VmRSS` of `/proc/self/status`, in
    /// kB whatever the page size).
    fn resident_bytes() -> usize {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        let kb: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kb * 1024
    }

    #[test]
    fn freed_pages_go_back_to_the_system() {
        const SIZE: usize = 64 << 20;
        // Touched, so that its pages are resident, then freed: jemalloc
        // keeps them for reuse (for 300 ms with the project's settings, 10 s
        // with its own).
        let block = vec![1u8; SIZE];
        std::hint::black_box(&block);
        drop(block);
        let kept = resident_bytes();
        super::release_freed_pages();
        let after = resident_bytes();
        assert!(
            kept.saturating_sub(after) >= SIZE / 2,
            "resident {} MB before the release, {} MB after",
            kept >> 20,
            after >> 20
        );
    }
}
