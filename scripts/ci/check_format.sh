#!/usr/bin/env bash
# Checks that every tracked C source and header is formatted as .clang-format says
# (clang-format 14, Debian 12's). Prints the files that differ and exits 1 if any does.
# Fix with: clang-format -i $(git ls-files '*.c' '*.h')
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
if ! command -v clang-format >/dev/null 2>&1; then
    echo "check_format: clang-format not found (scripts/setup.sh installs it)" >&2
    exit 1
fi
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t FILES < <(git ls-files '*.c' '*.h')
else
    mapfile -t FILES < <(find engine bench selfplay cli tests fuzz -name '*.[ch]' 2>/dev/null)
fi
bad=0
for f in "${FILES[@]}"; do
    [ -f "$f" ] || continue
    if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
        echo "check_format: $f is not formatted (clang-format -i $f)"
        bad=1
    fi
done
[ $bad -eq 0 ] && echo "check_format: ${#FILES[@]} files formatted"
exit $bad
