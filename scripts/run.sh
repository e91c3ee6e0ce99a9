#!/usr/bin/env bash
# The default job: install dependencies, build chessvar (Release) into build/, then count
# perft to depth 4 from the start position of every registered variant.
# Environment: BUILD_DIR (default build), JOBS (default 2), DEPTH (default 4).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${BUILD_DIR:-build}"
JOBS="${JOBS:-2}"
DEPTH="${DEPTH:-4}"

bash scripts/setup.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j "$JOBS"
"$BUILD_DIR/chessvar" perft --all --depth "$DEPTH"
