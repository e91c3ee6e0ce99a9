#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) into build-fuzz/ and runs each one:
#   fuzz_fen   the FEN parser of every variant
#   fuzz_move  the move parser of every variant
#   fuzz_play  random move sequences, every position checked by the consistency checker
#   fuzz_uci   UCI sessions (command lines in any order) through the `chessvar uci` loop
#   fuzz_chain the chain codec: games coded and decoded back, changed and raw payloads
#
#   scripts/fuzz.sh            short run: 60 s per target (CI uses FUZZ_SECONDS=20)
#   scripts/fuzz.sh long       long run: 1 hour per target (FUZZ_SECONDS overrides)
#   scripts/fuzz.sh TARGET...  only these targets (fen, move, play, uci, chain)
#
# Each target starts from the seed corpus in fuzz/corpus/NAME and grows a working corpus
# in build-fuzz/corpus/NAME (kept between runs, never written into the repository). A
# finding is written to build-fuzz/artifacts/ and makes the script exit non-zero; replay
# it with `build-fuzz/fuzz_NAME FILE`. Environment: FUZZ_SECONDS, JOBS (default 2).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SECONDS_PER_TARGET="${FUZZ_SECONDS:-60}"
JOBS="${JOBS:-2}"
TARGETS=()
for arg in "$@"; do
    case "$arg" in
        long) SECONDS_PER_TARGET="${FUZZ_SECONDS:-3600}" ;;
        fen|move|play|uci|chain) TARGETS+=("$arg") ;;
        *) echo "fuzz.sh: unknown argument '$arg' (long, fen, move, play, uci)" >&2; exit 2 ;;
    esac
done
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(fen move play uci chain)

cmake -S fuzz -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "$JOBS"

mkdir -p build-fuzz/artifacts
status=0
for t in "${TARGETS[@]}"; do
    mkdir -p "build-fuzz/corpus/$t"
    echo "== fuzz_$t: ${SECONDS_PER_TARGET} s"
    # A UCI session that does not come back within 10 s is a hang (the finding fuzz_uci is for).
    timeout=60
    [ "$t" = uci ] && timeout=10
    if ! build-fuzz/fuzz_$t -max_total_time="$SECONDS_PER_TARGET" -timeout="$timeout" -rss_limit_mb=2048 \
            -max_len=512 -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/fuzz_$t- \
            "build-fuzz/corpus/$t" "fuzz/corpus/$t" 2>"build-fuzz/fuzz_$t.log"; then
        echo "fuzz_$t FAILED: see build-fuzz/fuzz_$t.log and build-fuzz/artifacts/" >&2
        grep -E "fuzz:|runtime error|ERROR" "build-fuzz/fuzz_$t.log" | head -5 >&2 || true
        status=1
    fi
    grep -E "stat::number_of_executed_units|Done [0-9]+ runs" "build-fuzz/fuzz_$t.log" || true
done
exit $status
