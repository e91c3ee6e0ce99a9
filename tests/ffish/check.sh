#!/usr/bin/env bash
# CTest driver of tests/ffish: every count of tests/ffish/VARIANT.epd by Fairy-Stockfish
# (npm package ffish, pinned in package-lock.json) and by `chessvar suite` must agree.
#   usage: check.sh VARIANT CHESSVAR_BINARY
# When node or the pinned ffish is missing the test FAILS under CI (CI set, as .ci/run
# has it, or CHESSVAR_REQUIRE_FFISH=1), because scripts/setup.sh installs both there; on a
# developer's machine it is SKIPPED (exit 77, which ctest reports as "Skipped", never as
# passed) with the command that installs them.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
variant="$1"
binary="$2"

missing=""
if ! command -v node >/dev/null 2>&1; then
    missing="node (Node.js)"
elif [ ! -f "$HERE/node_modules/ffish/package.json" ]; then
    missing="the ffish package in tests/ffish/node_modules"
fi
if [ -n "$missing" ]; then
    message="ffish_$variant: $missing is not installed; run: bash scripts/setup.sh"
    if { [ -n "${CI:-}" ] && [ "${CI}" != "false" ] && [ "${CI}" != "0" ]; } \
        || [ "${CHESSVAR_REQUIRE_FFISH:-0}" = "1" ]; then
        echo "FAIL $message (required under CI)" >&2
        exit 1
    fi
    echo "SKIP $message"
    exit 77
fi
exec node "$HERE/ffish_perft.js" check "$variant" "$HERE/$variant.epd" "$binary"
