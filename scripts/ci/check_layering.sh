#!/usr/bin/env bash
# The dependency graph of the layout, checked on every test run:
#   engine/    depends on nothing else here (and its internal headers stay inside it)
#   bench/     perft harness library  -> engine (only engine/chessvar.h)
#   selfplay/  self-play library      -> engine (only engine/chessvar.h), in rooms:
#     selfplay/*.[ch]  the profile records: read by every room
#     player/   search and evaluation     -> nothing else in selfplay/
#     check/    rule checks and reports   -> nothing else in selfplay/
#     games/    games, runs, records      -> player, check
#     match/    outside engines, SPRT     -> games, player
#     train/    the trainer and its data reader -> player; only the data reader
#               (train/dataset.*) reads the record formats of games/
#   cli/       the chessvar program   -> bench, selfplay, engine/chessvar.h
# never bench <-> selfplay, never anything -> cli. Tests and fuzzers may reach inside the
# engine but never include a .c file. Prints each violation and exits 1 if there is any.
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
bad=0

# Prints the quoted includes of file $1 as paths relative to the repository root.
includes_of() {
    local f=$1 dir inc
    dir=$(dirname "$f")
    grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed -E 's/.*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/' |
        while IFS= read -r inc; do
            # Not beside the file: found on the include path, where engine/ is.
            if [ ! -e "$dir/$inc" ] && [ -e "engine/$inc" ]; then
                realpath -m --relative-to="$ROOT" "engine/$inc"
            else
                realpath -m --relative-to="$ROOT" "$dir/$inc"
            fi
        done
}

# Folder $1 may include only files under the folders listed after it (and engine/chessvar.h
# or engine/types.h when "engine-public" is listed).
allow() {
    local folder=$1
    shift
    local f inc ok a
    for f in "$folder"/*.[ch]; do
        [ -e "$f" ] || continue
        while IFS= read -r inc; do
            ok=0
            case "$inc" in "$folder"/*) ok=1 ;; esac
            for a in "$@"; do
                case "$a" in
                    engine-public) case "$inc" in engine/chessvar.h | engine/types.h) ok=1 ;; esac ;;
                    *) case "$inc" in "$a" | "$a"/*) ok=1 ;; esac ;;
                esac
            done
            case "$inc" in *.c) ok=0 ;; esac
            if [ $ok -eq 0 ]; then
                echo "layering: $f includes $inc"
                bad=1
            fi
        done < <(includes_of "$f")
    done
}

allow engine
allow bench engine-public
allow selfplay engine-public selfplay/player
allow selfplay/player engine-public selfplay/profile.h selfplay/files.h
allow selfplay/check engine-public selfplay/profile.h selfplay/files.h
allow selfplay/games engine-public selfplay/profile.h selfplay/files.h selfplay/player selfplay/check
allow selfplay/match engine-public selfplay/profile.h selfplay/files.h selfplay/player selfplay/games selfplay/check
allow selfplay/train engine-public selfplay/profile.h selfplay/files.h selfplay/player selfplay/games
# Training reads data only through its data reader.
for f in selfplay/train/*.[ch]; do
    case "$f" in selfplay/train/dataset.*) continue ;; esac
    while IFS= read -r inc; do
        case "$inc" in selfplay/games/*) echo "layering: $f includes $inc (read data through train/dataset.h)"; bad=1 ;; esac
    done < <(includes_of "$f")
done
# Every source file of selfplay/ sits in a known room or beside them.
for f in selfplay/*/*.[ch]; do
    case "$f" in selfplay/player/* | selfplay/check/* | selfplay/games/* | selfplay/match/* | selfplay/train/*) ;;
        *) echo "layering: $f is in no room of selfplay/ (player, check, games, match, train)"; bad=1 ;;
    esac
done
allow cli bench selfplay engine-public

# Tests and fuzzers: anything but the program (fuzz_uci.c: its UCI loop) and .c files.
for f in tests/*.[ch] fuzz/*.[ch]; do
    [ -e "$f" ] || continue
    while IFS= read -r inc; do
        case "$inc" in
            # The one exception: the UCI fuzzer drives the program's command loop itself.
            cli/cli.h) [ "$f" = fuzz/fuzz_uci.c ] || { echo "layering: $f includes the program's $inc"; bad=1; } ;;
            cli/*) echo "layering: $f includes the program's $inc"; bad=1 ;;
            *.c) echo "layering: $f includes a source file $inc (link the library instead)"; bad=1 ;;
        esac
    done < <(includes_of "$f")
done

# The build graph: each library links only what the layout allows.
cm=CMakeLists.txt
check_links() {
    local target=$1 forbidden=$2
    if grep -E "target_link_libraries\(${target}[[:space:]]" "$cm" | grep -qE "$forbidden"; then
        echo "layering: $cm links $target against one of: $forbidden"
        bad=1
    fi
}
check_links chessvar_engine 'chessvar_(bench|selfplay)'
check_links chessvar_bench 'chessvar_selfplay'
check_links chessvar_selfplay 'chessvar_bench'

[ $bad -eq 0 ] && echo "layering: cli -> bench, selfplay -> engine; no other arrows"
exit $bad
