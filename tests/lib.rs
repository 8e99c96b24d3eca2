//! End-to-end test support for HitBench (the tests live in `e2e/`).
