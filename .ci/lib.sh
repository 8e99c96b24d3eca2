# .ci/lib.sh — shell helpers shared by run.sh, test.sh and .ci/run (sourced, not run).

# The Debian packages each step needs (see ARCHITECTURE.md, "Build and CI").
#   build: cpal's ALSA backend needs the ALSA headers through pkg-config.
#   gui:   what a window (Xvfb) and wgpu's software renderers (lavapipe, llvmpipe) need.
#   (rfd's file dialogs, `xdg-portal` only, need no -dev package: at run time they
#   dlopen libdbus-1.so.3 and fall back to zenity; without either they choose nothing.)
HITBENCH_BUILD_PACKAGES="pkg-config libasound2-dev"
HITBENCH_GUI_PACKAGES="libegl1 libegl-mesa0 libgl1-mesa-dri mesa-vulkan-drivers libvulkan1 \
libx11-6 libx11-xcb1 libxcursor1 libxrandr2 libxi6 libxkbcommon0 libxkbcommon-x11-0"
HITBENCH_TEST_PACKAGES="xvfb xauth"

say() { printf '==> %s\n' "$*" >&2; }

# ensure_packages PKG... — installs the packages that are not installed yet with apt-get
# (as root, or through sudo), non-interactively. Does nothing when all are present.
ensure_packages() {
    local missing=() pkg
    for pkg in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$pkg")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if ! command -v apt-get >/dev/null 2>&1; then
        say "missing system packages: ${missing[*]} (no apt-get here: install them yourself)"
        return 1
    fi
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo="sudo"
        else
            say "missing system packages: ${missing[*]}; run as root or install them yourself"
            return 1
        fi
    fi
    say "installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# ensure_cargo — checks that the Rust toolchain is there (it cannot be installed here).
ensure_cargo() {
    if ! command -v cargo >/dev/null 2>&1; then
        say "cargo not found: install Rust 1.95 (https://rustup.rs) and run again"
        return 1
    fi
}

# Environment for building and testing: the pinned software renderer for snapshot PNGs,
# no sound card ever touched by tests, quiet and lean builds.
hitbench_env() {
    export WGPU_BACKEND="${WGPU_BACKEND:-vulkan}"
    if [ -z "${XDG_RUNTIME_DIR:-}" ] || [ ! -d "${XDG_RUNTIME_DIR}" ]; then
        XDG_RUNTIME_DIR="$(mktemp -d)"
        chmod 700 "$XDG_RUNTIME_DIR"
        export XDG_RUNTIME_DIR
    fi
    export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
}

# has_display — true when a window can be opened.
has_display() {
    [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]
}
