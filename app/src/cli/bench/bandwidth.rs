//! The machine's streaming read bandwidth, measured on one core: what bounds a benchmark
//! whose work is reading memory once (`bench mix` prints the mixer's bound with it).

use super::Size;
use std::hint::black_box;
use std::time::Instant;

/// Bytes of the buffer read (full size; a quick run reads an eighth).
const BYTES: usize = 512 << 20;
/// Passes over the buffer; the fastest counts.
const REPEATS: usize = 3;

/// The streaming read bandwidth in bytes per second: the best of a few sums over a
/// buffer much larger than the caches.
pub fn read_bandwidth(size: Size) -> f64 {
    let words = match size {
        Size::Full => BYTES,
        Size::Quick => BYTES / 8,
    } / size_of::<u64>();
    let buffer: Vec<u64> = (0..words as u64).collect();
    let mut best = f64::MAX;
    for _ in 0..REPEATS {
        let start = Instant::now();
        // Four sums side by side, so the adds keep up with the loads.
        let mut sums = [0u64; 4];
        for chunk in black_box(&buffer).chunks_exact(4) {
            for (sum, word) in sums.iter_mut().zip(chunk) {
                *sum = sum.wrapping_add(*word);
            }
        }
        black_box(sums);
        best = best.min(start.elapsed().as_secs_f64());
    }
    (words * size_of::<u64>()) as f64 / best.max(1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_memory_takes_time() {
        let bandwidth = read_bandwidth(Size::Quick);
        // Between 100 MB/s and 10 TB/s on anything that runs the tests.
        assert!((1e8..1e13).contains(&bandwidth), "{bandwidth}");
    }
}
