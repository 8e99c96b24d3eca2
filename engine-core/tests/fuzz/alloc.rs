//! The counting allocator: wraps `System` and keeps, per thread, the bytes currently
//! allocated and the peak since the last reset, so a fuzz case can be held to its memory
//! bound. It never allocates itself (its counters are `const` thread-locals of `Cell`s),
//! and when a thread passes its hard ceiling it raises a flag the watchdog reads, so a
//! runaway allocation is reported before it takes the machine down.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Counts every allocation of the thread that makes it.
pub struct Counting;

thread_local! {
    /// Bytes allocated (and not yet freed) by this thread since the last [`reset`]
    /// (frees of older memory can take it below zero).
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    /// Highest value of `CURRENT` since the last [`reset`].
    static PEAK: Cell<isize> = const { Cell::new(0) };
    /// Passing this raises [`OVER_CEILING`].
    static CEILING: Cell<isize> = const { Cell::new(isize::MAX) };
}

/// Set when a thread's allocations pass its ceiling; the watchdog ends the run.
pub static OVER_CEILING: AtomicBool = AtomicBool::new(false);
/// The bytes the thread held when it passed its ceiling.
pub static OVER_BYTES: AtomicUsize = AtomicUsize::new(0);

fn add(bytes: usize) {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    // `try_with` cannot fail for a `const` thread-local without a destructor, but it
    // costs nothing to stay quiet if it ever does.
    let _ = CURRENT.try_with(|current| {
        let now = current.get().saturating_add(bytes);
        current.set(now);
        let _ = PEAK.try_with(|peak| {
            if now > peak.get() {
                peak.set(now);
                let _ = CEILING.try_with(|ceiling| {
                    if now > ceiling.get() && !OVER_CEILING.swap(true, Ordering::SeqCst) {
                        OVER_BYTES.store(now.unsigned_abs(), Ordering::SeqCst);
                    }
                });
            }
        });
    });
}

fn sub(bytes: usize) {
    let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
    let _ = CURRENT.try_with(|current| current.set(current.get().saturating_sub(bytes)));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so
// `System`'s guarantees hold; the counting beside it touches only `Cell`s and atomics
// and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is (the caller upholds `alloc`'s contract).
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            add(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            add(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is: `ptr` came from this allocator, i.e. from `System`.
        unsafe { System.dealloc(ptr, layout) };
        sub(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            if new_size >= layout.size() {
                add(new_size - layout.size());
            } else {
                sub(layout.size() - new_size);
            }
        }
        new
    }
}

/// Starts measuring this thread afresh: current and peak to zero, and the ceiling past
/// which the watchdog is told.
pub fn reset(ceiling: usize) {
    CURRENT.with(|c| c.set(0));
    PEAK.with(|p| p.set(0));
    CEILING.with(|c| c.set(isize::try_from(ceiling).unwrap_or(isize::MAX)));
}

/// The peak of this thread's allocations since the last [`reset`], in bytes.
pub fn peak() -> usize {
    PEAK.with(|p| p.get().max(0).unsigned_abs())
}

/// Stops watching this thread's ceiling (between cases).
pub fn unwatch() {
    CEILING.with(|c| c.set(isize::MAX));
}
