#!/usr/bin/env bash
# run.sh — install what the build needs, build, and open the workbench on the demo
# project. Without a display, say so, render the demo tour offline to a WAV file and
# play a short part of the lot live (to the null output when there is no sound card).
set -euo pipefail
cd "$(dirname "$0")"
. .ci/lib.sh

ensure_cargo
# shellcheck disable=SC2086
ensure_packages $HITBENCH_BUILD_PACKAGES $HITBENCH_GUI_PACKAGES
hitbench_env

say "building HitBench (release; the first build takes several minutes)"
cargo build --release --locked -p hitbench
bin=target/release/hitbench
demo=projects/demo

if has_display; then
    say "opening the workbench on $demo"
    exec "$bin" open "$demo" "$@"
fi

say "no display found (DISPLAY and WAYLAND_DISPLAY are unset): rendering the demo tour offline instead"
out=target/demo
mkdir -p "$out"
"$bin" render "$demo" --script "$demo/tour.txt" -o "$out/tour.wav"
say "the demo tour is in $out/tour.wav"
say "playing ten seconds of it live (sound card, or the null output when there is none)"
"$bin" play "$demo" --script "$demo/quick.txt"
