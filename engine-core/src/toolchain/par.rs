//! Work over many files on every core, with the results in the files' order: a load
//! stamping 100,000 samples, assembling its sources, `check` decoding every sample.
//! Most of that time is system calls and reading, which two cores do twice as fast.

use std::num::NonZero;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Maps `items` with `map`, a run of at most `chunk` items at a time, on every core
/// (scoped threads named `name`, each taking the next run when done with one) when
/// there are at least `per_thread` items a thread; the results come in the items'
/// order, as one thread would give them. A thread that cannot be started leaves its
/// share to the others (and to this thread); a panic in `map` is this thread's.
pub(crate) fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    chunk: usize,
    per_thread: usize,
    name: &str,
    map: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    let chunk = chunk.max(1);
    let threads = std::thread::available_parallelism()
        .map_or(1, NonZero::get)
        .min(items.len() / per_thread.max(1))
        .max(1);
    if threads == 1 {
        return items.chunks(chunk).flat_map(&map).collect();
    }
    let next = AtomicUsize::new(0);
    let runs = items.len().div_ceil(chunk);
    // Takes runs until none is left: (run number, its results).
    let work = || {
        let mut done = Vec::new();
        loop {
            let run = next.fetch_add(1, Ordering::Relaxed);
            if run >= runs {
                return done;
            }
            let start = run * chunk;
            let end = (start + chunk).min(items.len());
            done.push((run, map(&items[start..end])));
        }
    };
    let mut done: Vec<(usize, Vec<R>)> = on_threads(threads, name, work, work);
    done.sort_unstable_by_key(|(run, _)| *run);
    done.into_iter().flat_map(|(_, results)| results).collect()
}

/// Runs `mine` on this thread and `theirs` on `threads - 1` scoped helpers named
/// `name` at the same time, and gives all their results: this thread's first, then each
/// helper's. A helper that cannot be started leaves the work to the others (so `mine`
/// and `theirs` should take shares of a common pool); a panic on a helper is this
/// thread's.
pub fn on_threads<R: Send>(
    threads: usize,
    name: &str,
    mine: impl FnOnce() -> Vec<R>,
    theirs: impl Fn() -> Vec<R> + Sync,
) -> Vec<R> {
    if threads <= 1 {
        return mine();
    }
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name(name.into())
                    .spawn_scoped(scope, &theirs)
                    .ok()
            })
            .collect();
        let mut done = mine();
        for helper in helpers {
            match helper.join() {
                Ok(more) => done.extend(more),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        done
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_the_items_order_whatever_the_threads() {
        let items: Vec<u32> = (0..10_007).collect();
        for (chunk, per_thread) in [(1, 1), (7, 100), (256, 2048), (64, 1_000_000)] {
            let doubled = map_in_order(&items, chunk, per_thread, "hitbench-test", |run| {
                run.iter().map(|i| u64::from(*i) * 2).collect()
            });
            let expected: Vec<u64> = items.iter().map(|i| u64::from(*i) * 2).collect();
            assert_eq!(doubled, expected, "chunk {chunk}, {per_thread} a thread");
        }
        // A run may give fewer results than items (or none).
        let even = map_in_order(&items, 10, 1, "hitbench-test", |run| {
            run.iter().copied().filter(|i| i % 2 == 0).collect()
        });
        assert_eq!(
            even,
            (0..10_007).filter(|i| i % 2 == 0).collect::<Vec<u32>>()
        );
        assert!(map_in_order(&[] as &[u32], 4, 1, "hitbench-test", |run| run.to_vec()).is_empty());
    }

    #[test]
    #[should_panic(expected = "item 5000")]
    fn a_panic_in_the_work_is_the_callers() {
        let items: Vec<u32> = (0..10_000).collect();
        map_in_order(&items, 100, 1, "hitbench-test", |run| {
            assert!(!run.contains(&5000), "item 5000");
            run.to_vec()
        });
    }
}
