#!/usr/bin/env bash
# test.sh — install what the tests need, then: formatting check, clippy with
# -D warnings, every test of the workspace, and the demo's QA suite.
set -euo pipefail
cd "$(dirname "$0")"
. .ci/lib.sh

ensure_cargo
# shellcheck disable=SC2086
ensure_packages $HITBENCH_BUILD_PACKAGES $HITBENCH_GUI_PACKAGES $HITBENCH_TEST_PACKAGES
hitbench_env
export HITBENCH_AUDIO=null CARGO_INCREMENTAL=0

say "cargo fmt --check"
cargo fmt --all --check
say "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings
# The workspace build turns the kira/rodio benchmark peers on (the e2e tests use them);
# the shipped binary is built without them, so lint that build too.
say "cargo clippy -D warnings (hitbench as shipped, without the benchmark peers)"
cargo clippy -p hitbench --all-targets --locked -- -D warnings
say "cargo test"
cargo test --workspace --locked
say "the demo's QA suite (hitbench test projects/demo)"
cargo run -q -p hitbench --locked -- test projects/demo
say "all checks passed"
