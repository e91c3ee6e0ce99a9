#!/usr/bin/env bash
# make_books.sh - writes selfplay/books/<variant>.epd: start positions for `chessvar selfplay
# --book`, made by chessvar alone. For each variant it plays short games (6 uniformly random
# plies, then temperature-sampled searched moves), keeps the position at ply 8 of each game
# when its search score is within +-150 centipawns, drops repeated positions (same first
# four FEN fields) and keeps the first 256 in game order. Same binary, same books.
# usage: scripts/data/make_books.sh [path/to/chessvar]   (default: build/chessvar)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$root/build/chessvar}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for v in chess switching superchess supremo; do
    args=(--variant "$v" --games 600 --seed 2026 --random-plies 6 --temperature 60
          --temp-plies 10 --nodes 1000 --ply-cap 10 --format jsonl --progress 0)
    "$bin" selfplay "${args[@]}" --out "$tmp/$v" >/dev/null
    out=$root/selfplay/books/$v.epd
    {
        echo "# $v: start positions for chessvar selfplay --book, made by scripts/data/make_books.sh:"
        echo "# chessvar selfplay ${args[*]}"
        echo "# then the position at ply 8 of each game with |score| <= 150, first of each"
        echo "# position (first four FEN fields), 256 at most, in game order."
        cat "$tmp/$v"/shard-*.jsonl |
            sed -n 's/^{"game":[0-9]*,"ply":8,"fen":"\([^"]*\)".*"score":\(-\{0,1\}[0-9]*\),.*/\2 \1/p' |
            awk '{ s = $1 < 0 ? -$1 : $1; if (s > 150) next; key = $2 " " $3 " " $4 " " $5;
                   if (seen[key]++ || n >= 256) next; $1 = ""; sub(/^ /, ""); print; n++ }'
    } >"$out"
    echo "$out: $(grep -vc '^#' "$out") positions"
done
