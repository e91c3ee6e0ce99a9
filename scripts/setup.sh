#!/usr/bin/env bash
# Install every Debian package chessvar needs to build and test itself (with --measure, also
# what the measuring and plotting scripts need). Idempotent and non-interactive: when all
# packages are already installed it does nothing, so reruns (CI, scripts/run.sh,
# scripts/test.sh) cost a second.
set -euo pipefail

PACKAGES=(
    build-essential     # gcc, make, libc headers; gcc brings its own OpenMP (libgomp)
    cmake
    pkg-config
    libxxhash-dev       # XXH3 for Zobrist tables and fingerprints
    libcriterion-dev    # unit tests
    libomp-dev          # OpenMP runtime and headers for clang (FindOpenMP with CC=clang)
    libopenmpi-dev      # MPI headers and mpicc wrappers for distributed perft
    openmpi-bin         # mpirun
    stockfish           # reference engine for orthodox perft counts and speed comparison
    fairy-stockfish     # reference engine for variants
    polyglot            # UCI -> xboard adapter: a real client drives `chessvar uci` in a test
    clang
    clang-format        # scripts/ci/check_format.sh (a CTest)
    libclang-rt-14-dev  # clang's sanitizer runtimes (ASan, UBSan, TSan)
    python3
    python3-numpy       # dataset reader (tests/test_selfplay.c, tests/check_sf_formats.py)
    python3-scipy       # the evaluation tuner's sparse fits (tests/check_eval_params.py)
    python3-torch       # the network trainer's oracle: gradients and quantised forward pass
)

# tests/check_install.py (a CTest) fails when a test imports a Python module, directly or
# through the scripts it uses, whose Debian package is not in PACKAGES.
# Packages only the measuring scripts need, never a test: `bash scripts/setup.sh --measure`
# (named in those scripts' docs) installs them as well.
MEASURE_PACKAGES=(
    python3-matplotlib  # plots in results/ (scripts/measure/make_plots.py, scripts/measure/elo_ladder.py)
    valgrind            # callgrind instruction counts (scripts/measure/instr_counts.py)
)
if [ "${1:-}" = "--measure" ]; then
    PACKAGES+=("${MEASURE_PACKAGES[@]}")
elif [ $# -gt 0 ]; then
    echo "usage: bash scripts/setup.sh [--measure]" >&2
    exit 2
fi

# Print the packages from PACKAGES that dpkg does not report as installed.
missing_packages() {
    local pkg
    for pkg in "${PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
            echo "$pkg"
        fi
    done
}

# Run apt-get update and install the given packages, as root or through sudo.
apt_install() {
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "setup: not root and sudo is not available; cannot install: $*" >&2
            exit 1
        fi
    fi
    echo "setup: installing $*"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
}

mapfile -t MISSING < <(missing_packages)
if [ "${#MISSING[@]}" -eq 0 ]; then
    echo "setup: all ${#PACKAGES[@]} packages already installed"
else
    apt_install "${MISSING[@]}"
    mapfile -t STILL_MISSING < <(missing_packages)
    if [ "${#STILL_MISSING[@]}" -ne 0 ]; then
        echo "setup: still missing after apt-get: ${STILL_MISSING[*]}" >&2
        exit 1
    fi
    echo "setup: done"
fi

# Node.js and npm for tests/ffish (Fairy-Stockfish as WebAssembly, the ffish_* CTests):
# Debian's nodejs and npm when the machine has no node and npm yet. A machine with its own
# Node.js keeps it (Debian's npm package conflicts with other Node.js packages that bundle
# npm). Then the pinned npm packages of tests/ffish/package-lock.json, by `npm ci`, only
# when node_modules does not hold that lock file's install already.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    echo "setup: node $(node --version) and npm $(npm --version) already installed"
else
    apt_install nodejs npm
fi
FFISH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../tests/ffish" && pwd)"
FFISH_STAMP="$FFISH_DIR/node_modules/.chessvar-package-lock.json"
if [ -f "$FFISH_STAMP" ] && cmp -s "$FFISH_STAMP" "$FFISH_DIR/package-lock.json"; then
    echo "setup: tests/ffish npm packages already installed"
else
    echo "setup: npm ci in tests/ffish"
    (cd "$FFISH_DIR" && npm ci --no-audit --no-fund)
    cp "$FFISH_DIR/package-lock.json" "$FFISH_STAMP"
fi
