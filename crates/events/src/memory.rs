//! Giving freed memory back to the system where a phase's memory has just
//! been freed.
//!
//! Loading a big trace frees tens of MB at a time: the read blocks and the
//! chunks' event lists after the event pass, the handlers' raw lists as
//! they finalize, each thread's entries and JS calls once its tree is
//! built. An allocator that keeps freed pages for reuse (jemalloc, for a
//! while) keeps those resident, and the next phase's big lists (a thread's
//! nodes, the entity mappings) want blocks bigger than the pieces left, so
//! they take fresh pages beside them: the pieces add to the peak. On the
//! bench trace, giving them back before the trees and before the insights
//! lowered the peak resident memory of loading the tracks from about 200
//! to 156 MB, and of the insights from about 282 to 238 MB.
//!
//! The library does not know the process' allocator, so it does nothing
//! unless the program registers, once, what gives the freed pages back
//! ([`set_release`]); the engine then calls [`release_freed`] between its
//! phases.

use std::sync::OnceLock;

static RELEASE: OnceLock<fn()> = OnceLock::new();

/// Registers, for the whole process, the function that has the allocator
/// give its freed pages back to the system (for jemalloc, a purge of its
/// arenas). Only the first registration counts: a later one is returned
/// as the error.
pub fn set_release(release: fn()) -> Result<(), fn()> {
    RELEASE.set(release)
}

/// Has the allocator give its freed pages back, if the program registered
/// how ([`set_release`]); otherwise does nothing. Called where a phase has
/// just freed a large part of its memory and the next one is about to
/// allocate its own: before the tracks' trees, and before the insights.
pub fn release_freed() {
    if let Some(release) = RELEASE.get() {
        release();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    fn count() {
        CALLS.fetch_add(1, Ordering::SeqCst);
    }

    fn other() {}

    #[test]
    fn the_registered_release_is_called_and_a_second_is_refused() {
        release_freed(); // nothing registered yet: nothing to call
        assert_eq!(CALLS.load(Ordering::SeqCst), 0);
        assert!(set_release(count).is_ok());
        assert!(set_release(other).is_err());
        release_freed();
        release_freed();
        assert_eq!(CALLS.load(Ordering::SeqCst), 2);
    }
}
