#!/usr/bin/env bash
# The project's test command: install dependencies, configure a Release build with warnings
# as errors into build/, build it and run every CTest (Criterion unit tests and EPD perft
# suites). CI (.ci/run) and the README both call this script, so they cannot drift apart.
# Environment: BUILD_DIR (default build), JOBS (default 2).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${BUILD_DIR:-build}"
JOBS="${JOBS:-2}"

bash scripts/setup.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCHESSVAR_WERROR=ON -DCHESSVAR_TESTS=ON
cmake --build "$BUILD_DIR" -j "$JOBS"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
