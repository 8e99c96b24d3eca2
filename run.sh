#!/usr/bin/env bash
# run.sh — install what the build needs, build, and open the workbench on the demo
# project. Without a display, say so and run the command line on the demo instead.
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

say "no display found (DISPLAY and WAYLAND_DISPLAY are unset): running the command line on $demo instead"
out=target/demo
mkdir -p "$out"
status=0
for source in "$demo"/*.src; do
    "$bin" asm "$source" -o "$out" || status=1
done
say "assembled the demo's tracks into $out/ (.hit, .hsm, .hot, .hdb, .sym); try: $bin disasm $out/<name>.hit"
exit $status
