#!/usr/bin/env bash
# The default job: install dependencies, build the chessvar program (Release, no tests) into
# build/, count perft from the start position of every registered variant, then play a short
# self-play run that writes training data and a rule-consistency report, and say where they
# are and how to load the data in Python.
# Environment: BUILD_DIR (default build), JOBS (default 2), DEPTH (default: 5 on 8x8 boards,
# 4 on the 10x10 board), GAMES (self-play games, default 24).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${BUILD_DIR:-build}"
JOBS="${JOBS:-2}"
DEPTH="${DEPTH:-}"
GAMES="${GAMES:-24}"

bash scripts/setup.sh
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCHESSVAR_TESTS=OFF
cmake --build "$BUILD_DIR" -j "$JOBS" --target chessvar
"$BUILD_DIR/chessvar" perft --all ${DEPTH:+--depth "$DEPTH"}

# The other main job: self-play data with its rule-consistency report (a fresh run each time).
OUT="$BUILD_DIR/first-run"
rm -rf "$OUT"
echo
echo "self-play: $GAMES chess games into $OUT (data, and the rules checked on every move)"
"$BUILD_DIR/chessvar" selfplay --variant chess --games "$GAMES" --out "$OUT/data" --format bin,pgn \
    --report "$OUT/report.json" --progress 10
echo
echo "training data:   $OUT/data/ (shard-*.bin: selfplay/FORMAT.md; shard-*.pgn: the games)"
echo "rule report:     $OUT/report.md (and report.json)"
echo "load in Python:  python3 -m scripts.data.read_dataset $OUT/data   (a summary; in a script:"
echo "                 from scripts.data.read_dataset import load_dataset; d = load_dataset('$OUT/data'))"
