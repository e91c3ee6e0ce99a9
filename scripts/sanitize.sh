#!/usr/bin/env bash
# Sanitizer tier of the tests:
#   asan  build-asan/: ASan + UBSan build (gcc), every CTest (unit tests, perft suites, the
#         checker's planted faults), then `chessvar check --all` on a few games
#   tsan  build-tsan/: TSan build (clang, libomp with the Archer tool so OpenMP's own
#         synchronisation is understood), the threaded tests: perft with threads and the
#         shared hash, the checker on two threads, and self-play tests when present
#   scripts/sanitize.sh [asan|tsan|all]   (default all). Any sanitizer report fails the
#   run (halt_on_error); leaks count as reports. Environment: JOBS (default 2),
#   ASAN_TESTS / TSAN_TESTS (CTest -R regex of the tests to run).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
JOBS="${JOBS:-2}"
MODE="${1:-all}"
case "$MODE" in asan|tsan|all) ;; *) echo "sanitize.sh: unknown mode '$MODE' (asan, tsan, all)" >&2; exit 2 ;; esac

run_asan() {
    echo "== ASan + UBSan (build-asan)"
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCHESSVAR_SANITIZE=address,undefined >/dev/null
    cmake --build build-asan -j "$JOBS"
    export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
    ctest --test-dir build-asan --output-on-failure -j "$JOBS" ${ASAN_TESTS:+-R "$ASAN_TESTS"}
    build-asan/chessvar check --all --games 2 --plies 60 --quiet --json build-asan/check_report.json
}

run_tsan() {
    echo "== TSan (build-tsan)"
    local archer
    archer="$(ls /usr/lib/llvm-*/lib/libarcher.so 2>/dev/null | sort -V | tail -n 1 || true)"
    CC=clang cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCHESSVAR_SANITIZE=thread >/dev/null
    cmake --build build-tsan -j "$JOBS"
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
    if [ -n "$archer" ]; then export OMP_TOOL_LIBRARIES="$archer"; fi
    ctest --test-dir build-tsan --output-on-failure -j 1 -R "${TSAN_TESTS:-test_perft_scale|test_check|selfplay}"
    build-tsan/chessvar check --all --games 4 --plies 40 --threads 2 --quiet --json build-tsan/check_report.json
}

[ "$MODE" = asan ] || [ "$MODE" = all ] && run_asan
[ "$MODE" = tsan ] || [ "$MODE" = all ] && run_tsan
echo "sanitizers: no reports"
