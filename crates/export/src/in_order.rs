//! Output made of pieces formatted apart and written in order: on rayon's
//! pool with [`Parallelism::Rayon`], so that the formatting of large
//! outputs (tracks, exports) uses every core while this thread writes,
//! and the bytes are the same on any number of cores.

use std::io;

use tracekit_engine::Parallelism;

/// Pieces formatted or waiting to be written at a time (pieces are about a
/// megabyte: about 8 MB in all).
const IN_FLIGHT: usize = 8;

/// Writes the bytes `format` makes of each item, in order.
///
/// With [`Parallelism::Rayon`], the items are formatted on rayon's pool:
/// up to [`IN_FLIGHT`] are formatted or waiting at a time, and as soon as
/// the next one in order is ready this thread writes it and hands the pool
/// another. So the pool's threads never wait for each other (as they would
/// if a window of items were formatted at a time), memory stays bounded,
/// and writing overlaps formatting. Sequentially, each is formatted and
/// written in turn on this thread.
pub(crate) fn write_in_order<T: Sync, B: AsRef<[u8]> + Send>(
    items: &[T],
    parallelism: Parallelism,
    w: &mut dyn io::Write,
    format: impl Fn(&T) -> B + Sync,
) -> io::Result<()> {
    match parallelism {
        Parallelism::Sequential => items.iter().try_for_each(|item| w.write_all(format(item).as_ref())),
        Parallelism::Rayon => write_formatted_on_pool(items, w, &format),
    }
}

fn write_formatted_on_pool<T: Sync, B: AsRef<[u8]> + Send>(
    items: &[T],
    w: &mut dyn io::Write,
    format: &(impl Fn(&T) -> B + Sync),
) -> io::Result<()> {
    use std::collections::BTreeMap;
    use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
    let (sender, receiver) = std::sync::mpsc::channel::<(usize, std::thread::Result<B>)>();
    rayon::in_place_scope(|scope| {
        let mut to_hand_out = items.iter().enumerate();
        let mut hand_out_next = || {
            if let Some((index, item)) = to_hand_out.next() {
                let sender = sender.clone();
                // A panic is sent too, and raised here: else this thread
                // would wait for that item forever.
                scope.spawn(move |_| {
                    let _ = sender.send((index, catch_unwind(AssertUnwindSafe(|| format(item)))));
                });
            }
        };
        for _ in 0..IN_FLIGHT {
            hand_out_next();
        }
        let mut ready: BTreeMap<usize, B> = BTreeMap::new();
        let mut written = 0;
        while written < items.len() {
            let (index, bytes) = next_message(&receiver);
            ready.insert(index, bytes.unwrap_or_else(|panic| resume_unwind(panic)));
            while let Some(bytes) = ready.remove(&written) {
                // On an error, what is in flight ends on its own (the scope
                // waits for it) and nothing more is handed out.
                w.write_all(bytes.as_ref())?;
                written += 1;
                hand_out_next();
            }
        }
        Ok(())
    })
}

/// The next message of tasks still in flight (there is one at least).
/// Off the pool this thread sleeps until it comes; on one of the pool's
/// threads (a caller inside `install`, or a parallel loop writing several
/// outputs) it runs the pool's work meanwhile, since a pool whose threads
/// all waited would wait for itself.
fn next_message<M>(receiver: &std::sync::mpsc::Receiver<M>) -> M {
    use std::sync::mpsc::TryRecvError;
    const IN_FLIGHT: &str = "a task is in flight until it sends";
    loop {
        match receiver.try_recv() {
            Ok(message) => return message,
            Err(TryRecvError::Disconnected) => panic!("{IN_FLIGHT}"),
            Err(TryRecvError::Empty) => match rayon::yield_now() {
                None => return receiver.recv().expect(IN_FLIGHT),
                Some(rayon::Yield::Executed) => {}
                Some(rayon::Yield::Idle) => std::thread::yield_now(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items whose formatting ends out of order are written in order; a
    /// writer's error ends the writing (with that error) and a panic in
    /// the formatting reaches the caller: neither leaves it waiting.
    #[test]
    fn items_formatted_on_the_pool_are_written_in_order() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().expect("a pool");
        let items: Vec<u64> = (0..40).collect();
        // Every third item takes longer, so that later ones finish first.
        let format = |&i: &u64| {
            if i % 3 == 0 {
                std::thread::sleep(std::time::Duration::from_millis(3));
            }
            format!("{i},")
        };
        let expected: String = items.iter().map(|i| format!("{i},")).collect();
        // Called off the pool, from one of its threads, and from the only
        // thread of a pool; and sequentially.
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
        for parallelism in [Parallelism::Rayon, Parallelism::Sequential] {
            for on_pool in [false, true] {
                for pool in [&pool, &one] {
                    let mut written = Vec::new();
                    let mut write = || write_in_order(&items, parallelism, &mut written, format);
                    let done = if on_pool { pool.install(write) } else { write() };
                    done.expect("written");
                    assert_eq!(String::from_utf8(written).expect("UTF-8"), expected);
                }
            }
        }

        struct FailsAfter(usize);
        impl io::Write for FailsAfter {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                if self.0 < buf.len() {
                    return Err(io::Error::other("disk full"));
                }
                self.0 -= buf.len();
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let error = pool
            .install(|| write_in_order(&items, Parallelism::Rayon, &mut FailsAfter(20), format))
            .expect_err("the writer fails");
        assert_eq!(error.to_string(), "disk full");

        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| {
                write_in_order(&items, Parallelism::Rayon, &mut Vec::new(), |&i: &u64| {
                    assert!(i != 25, "item 25 cannot be formatted");
                    i.to_string()
                })
            })
        }));
        assert!(panicked.is_err());
    }
}
