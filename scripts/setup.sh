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
    clang-format        # scripts/check_format.sh (a CTest)
    libclang-rt-14-dev  # clang's sanitizer runtimes (ASan, UBSan, TSan)
    python3
    python3-numpy       # dataset reader (tests/test_selfplay.c, tests/check_sf_formats.py)
)

# Packages only the measuring scripts need, never a test: `bash scripts/setup.sh --measure`
# (named in those scripts' docs) installs them as well.
MEASURE_PACKAGES=(
    python3-matplotlib  # plots in results/ (scripts/make_plots.py, scripts/elo_ladder.py)
    valgrind            # callgrind instruction counts (scripts/instr_counts.py)
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

mapfile -t MISSING < <(missing_packages)
if [ "${#MISSING[@]}" -eq 0 ]; then
    echo "setup: all ${#PACKAGES[@]} packages already installed"
    exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "setup: not root and sudo is not available; cannot install: ${MISSING[*]}" >&2
        exit 1
    fi
fi

echo "setup: installing ${MISSING[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    "${MISSING[@]}"

mapfile -t STILL_MISSING < <(missing_packages)
if [ "${#STILL_MISSING[@]}" -ne 0 ]; then
    echo "setup: still missing after apt-get: ${STILL_MISSING[*]}" >&2
    exit 1
fi
echo "setup: done"
