#!/usr/bin/env bash
# Dependency rule: the front ends (bench/, selfplay/) use the engine only through its one
# public header, engine/chessvar.h (which includes engine/types.h), and the engine never
# includes a front-end header. Prints each violation and exits 1 if there is any.
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bad=0
for f in bench/*.[ch] selfplay/*.[ch]; do
    while IFS= read -r line; do
        inc=$(sed -E 's/^#include "([^"]+)".*/\1/' <<<"$line")
        case "$inc" in
            ../engine/chessvar.h | ../engine/types.h) ;;
            ../engine/* | engine/*) echo "$f: includes engine-internal header $inc"; bad=1 ;;
            *) base=$(basename "$inc")
               if [ -e "engine/$base" ] && [ ! -e "$(dirname "$f")/$inc" ]; then
                   echo "$f: includes engine-internal header $inc"; bad=1
               fi ;;
        esac
    done < <(grep -E '^#include "' "$f")
done
for f in engine/*.[ch]; do
    if grep -nE '^#include "\.\./(bench|selfplay)/' "$f"; then echo "$f: the engine includes a front-end header"; bad=1; fi
done
[ $bad -eq 0 ] && echo "layering: front ends use only engine/chessvar.h"
exit $bad
