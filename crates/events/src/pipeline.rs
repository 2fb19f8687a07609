//! Work made on all cores and taken in order, with no core waiting for a
//! batch to end: the shape of the tokenizer's loading, where chunks of
//! text are scanned anywhere but handed to the handlers one after the
//! other.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// Makes items `0..count` with `make` on the cores of the current Rayon
/// pool and hands each to `take`, in order, on the calling thread, as soon
/// as it is made. Item 0 is made on the calling thread; the others are all
/// queued at once, oldest first, and the calling thread makes queued ones
/// while it waits for the next it needs, so that a core waits only for an
/// item being made on another. Once `take` returns `false`, no item not yet
/// started is made. A panic in `make` is raised here, once the items
/// started are done.
pub(crate) fn make_ahead<T, M, K>(count: usize, make: M, mut take: K)
where
    T: Send,
    M: Fn(usize) -> T + Sync,
    K: FnMut(usize, T) -> bool + Send,
{
    let slots: Vec<Mutex<Slot<T>>> = (0..count).map(|_| Mutex::new(Slot::Making)).collect();
    let stopped = AtomicBool::new(false);
    rayon::scope_fifo(|scope| {
        // However the taking ends (done, told to stop, or a panic), the
        // items still queued are not made.
        let _stop = StopOnDrop(&stopped);
        for (index, slot) in slots.iter().enumerate().skip(1) {
            let (make, stopped) = (&make, &stopped);
            scope.spawn_fifo(move |_| {
                if stopped.load(Ordering::Relaxed) {
                    return;
                }
                let filling = Filling(slot);
                let item = make(index);
                filling.fill(item);
            });
        }
        let mut first = (count > 0).then(|| make(0));
        for (index, slot) in slots.iter().enumerate() {
            let Some(item) = first.take().or_else(|| wait_for(slot)) else {
                // Its making panicked: the scope raises the panic.
                return;
            };
            if !take(index, item) {
                return;
            }
        }
    });
}

/// An item of [`make_ahead`], from its queueing to its taking.
enum Slot<T> {
    Making,
    Made(T),
    /// Its making panicked.
    Lost,
}

/// Fills a slot with its item, or marks it lost if the making panicked
/// (dropped unfilled), so that the taker never waits for it in vain.
struct Filling<'s, T>(&'s Mutex<Slot<T>>);

impl<T> Filling<'_, T> {
    fn fill(self, item: T) {
        *lock(self.0) = Slot::Made(item);
    }
}

impl<T> Drop for Filling<'_, T> {
    fn drop(&mut self) {
        let mut slot = lock(self.0);
        if matches!(*slot, Slot::Making) {
            *slot = Slot::Lost;
        }
    }
}

struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A slot's lock. A panic never happens with it held (the making runs
/// outside it), but a poisoned lock is still usable: its data is a whole
/// value.
fn lock<T>(slot: &Mutex<Slot<T>>) -> std::sync::MutexGuard<'_, Slot<T>> {
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Waits for an item, meanwhile making others queued on the pool: `None`
/// if its making panicked.
fn wait_for<T>(slot: &Mutex<Slot<T>>) -> Option<T> {
    loop {
        match std::mem::replace(&mut *lock(slot), Slot::Making) {
            Slot::Made(item) => return Some(item),
            Slot::Lost => return None,
            Slot::Making => {}
        }
        if rayon::yield_now() != Some(rayon::Yield::Executed) {
            // Nothing queued: the item is being made on another core.
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
    }

    #[test]
    fn takes_every_item_in_order_whatever_the_making_time() {
        for threads in [1, 2, 4] {
            let mut taken = Vec::new();
            pool(threads).install(|| {
                make_ahead(
                    200,
                    |i| {
                        // Uneven work, so that items are made out of order.
                        let spins = (i * 7919) % 5000;
                        (0..spins).fold(i, |acc, k| std::hint::black_box(acc ^ k))
                            ^ (0..spins).fold(0, |acc, k| acc ^ k)
                    },
                    |index, item| {
                        assert_eq!(index, item);
                        taken.push(item);
                        true
                    },
                );
            });
            assert_eq!(taken, (0..200).collect::<Vec<_>>(), "{threads} threads");
        }
    }

    #[test]
    fn stops_making_once_told_to() {
        let made = AtomicUsize::new(0);
        let mut taken = 0;
        pool(2).install(|| {
            make_ahead(
                10_000,
                |i| {
                    made.fetch_add(1, Ordering::Relaxed);
                    i
                },
                |index, _| {
                    taken += 1;
                    index < 3
                },
            );
        });
        assert_eq!(taken, 4);
        assert!(made.load(Ordering::Relaxed) < 10_000, "every item was made");
    }

    #[test]
    fn a_panic_in_the_making_is_raised_not_waited_for() {
        for bad in [0, 5] {
            let result = std::panic::catch_unwind(|| {
                pool(2).install(|| {
                    make_ahead(
                        50,
                        |i| {
                            assert!(i != bad, "item {i} cannot be made");
                            i
                        },
                        |_, _| true,
                    );
                });
            });
            let message = result.expect_err("the panic was lost");
            let text = message.downcast_ref::<String>().cloned().unwrap_or_default();
            assert_eq!(text, format!("item {bad} cannot be made"));
        }
    }

    #[test]
    fn makes_nothing_of_nothing() {
        let mut taken = 0;
        pool(2).install(|| {
            make_ahead(
                0,
                |i| i,
                |_, _| {
                    taken += 1;
                    true
                },
            )
        });
        assert_eq!(taken, 0);
    }
}
