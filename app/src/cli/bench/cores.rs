//! How far apart the machine's cores are right now: the time a cache line takes to go
//! from one thread to another and back. On a virtual machine the host moves its virtual
//! cores about, and this changes from one second to the next (measured on a 2-core
//! virtual machine: 43–130 ns in some seconds, 350–550 ns in others); whatever two
//! threads hand each other costs in proportion. `bench vm` measures it beside each
//! pair of runs, so its capture figure says which of those seconds it was taken in.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A value alone in its cache lines (two, as some cores fetch lines in pairs).
#[repr(align(128))]
struct Line(AtomicU64);

/// Spins before a waiting thread lets others run: a round trip is far shorter, but on
/// a machine with one core the other thread only runs when this one gives way.
const SPINS: u32 = 10_000;

/// Round trips made before any is timed.
const WARM_UP: Duration = Duration::from_millis(2);

/// A median round trip longer than this, in nanoseconds, is not two cores passing a
/// cache line but two threads taking turns on one core (the system had not spread them
/// out, or the host was not running the other core).
const SIDE_BY_SIDE: f64 = 20_000.0;

/// The median round trip of a cache line between this thread and another, in
/// nanoseconds, over `within`: this thread writes an odd number, the other answers
/// with the even one after it, and so on. `None` when the two did not run side by side.
pub fn round_trip(within: Duration) -> Option<f64> {
    let line = Arc::new(Line(AtomicU64::new(0)));
    let stop = Arc::new(AtomicBool::new(false));
    let answerer = {
        let (line, stop) = (Arc::clone(&line), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut last = 0;
            while let Some(asked) =
                wait_for(&line.0, |value| value != last && value % 2 == 1, &stop)
            {
                last = asked + 1;
                line.0.store(last, Ordering::Release);
            }
        })
    };
    // One round trip: the next odd number out, the even one after it back.
    let mut value = 0;
    let mut round = || {
        line.0.store(value + 1, Ordering::Release);
        value += 2;
        let answer = value;
        let _ = wait_for(&line.0, |seen| seen == answer, &stop);
    };
    // Rounds untimed first: the other thread has started, and the system has had time
    // to move it off this thread's core (a new thread may start beside its parent,
    // where each round trip waits for the two to take turns).
    let start = Instant::now();
    while start.elapsed() < WARM_UP {
        round();
    }
    // Then rounds timed in groups, so reading the clock costs little beside them; the
    // median group is the figure (a group the host interrupted is not).
    const GROUP: u32 = 64;
    let mut groups = Vec::new();
    let start = Instant::now();
    while start.elapsed() < within {
        let group = Instant::now();
        for _ in 0..GROUP {
            round();
        }
        groups.push(group.elapsed().as_secs_f64() * 1e9 / f64::from(GROUP));
    }
    stop.store(true, Ordering::Release);
    let _ = answerer.join();
    groups.sort_by(f64::total_cmp);
    groups
        .get(groups.len() / 2)
        .copied()
        .filter(|&nanos| nanos <= SIDE_BY_SIDE)
}

/// Waits until `value` holds what `wanted` accepts, and gives it; `None` once `stop`.
fn wait_for(value: &AtomicU64, wanted: impl Fn(u64) -> bool, stop: &AtomicBool) -> Option<u64> {
    let mut spins = 0;
    loop {
        let seen = value.load(Ordering::Acquire);
        if wanted(seen) {
            return Some(seen);
        }
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        spins += 1;
        if spins == SPINS {
            spins = 0;
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_trip_takes_some_time_and_ends() {
        // On one core (or a host that does not run both) there is no figure.
        if let Some(nanos) = round_trip(Duration::from_millis(20)) {
            assert!(nanos > 0.0 && nanos <= SIDE_BY_SIDE, "{nanos} ns");
        }
    }
}
