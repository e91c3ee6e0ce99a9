#!/usr/bin/env bash
# The default job: install dependencies, build chessvar (Release) into build/, then count
# perft from the start position of every registered variant.
# Environment: BUILD_DIR (default build), JOBS (default 2), DEPTH (default: 5 on 8x8 boards,
# 4 on the 10x10 board).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${BUILD_DIR:-build}"
JOBS="${JOBS:-2}"
DEPTH="${DEPTH:-}"

bash scripts/setup.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" -j "$JOBS"
"$BUILD_DIR/chessvar" perft --all ${DEPTH:+--depth "$DEPTH"}
