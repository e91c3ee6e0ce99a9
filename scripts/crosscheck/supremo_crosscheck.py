#!/usr/bin/env python3
"""Cross-check chessvar's Supremo perft against a second, deliberately naive implementation.

The generator below is written from the rules text alone and shares nothing with the
engine: a position is a list of 100 letters, every move produces a new list, a walk or a
double leap is simulated step by step on copies, and a King is attacked when some enemy
pseudo-move (displacement, intermediate capture or blast) would remove it. It is slow (a
few thousand nodes a second) and meant for depth 1-3 on a handful of positions.

For each FEN (the reference suite's positions by default, or --fen / --file), the counts of
`chessvar perft --variant supremo` and of this implementation must agree at every depth up
to --depth; exit status 1 otherwise.

  python3 -m scripts.crosscheck.supremo_crosscheck                      # suite positions, depth 2
  python3 -m scripts.crosscheck.supremo_crosscheck --file FENS --depth 3
"""

import argparse
import os
import sys

from scripts.common import ROOT
from scripts.common.chessvar_run import perft as chessvar_json_perft  # noqa: E402

KING_STEPS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]
KNIGHT_LEAPS = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
LINES = {"q": KING_STEPS, "r": KING_STEPS[:4], "b": KING_STEPS[4:]}
PROMOTIONS = "qrbntcs"
PAWN_START = (2, 7)  # 0-based ranks: 3 for White, 8 for Black


def parse_fen(fen):
    """Board (list of 100 letters or None, a1 = 0) and side to move (0 White, 1 Black)."""
    fields = fen.split()
    board = [None] * 100
    for i, row in enumerate(fields[0].split("/")):
        rank, file, j = 9 - i, 0, 0
        while j < len(row):
            if row[j].isdigit():
                k = j
                while k < len(row) and row[k].isdigit():
                    k += 1
                file += int(row[j:k])
                j = k
            else:
                board[rank * 10 + file] = row[j]
                file += 1
                j += 1
    return board, 0 if fields[1] == "w" else 1


def colour(piece):
    """0 for a White letter, 1 for a Black one."""
    return 0 if piece.isupper() else 1


def on_board(f, r):
    """Whether file f, rank r is on the 10x10 board."""
    return 0 <= f < 10 and 0 <= r < 10


def capturable(board, sq, side):
    """Whether `side` may capture what stands on sq: an enemy that is not a Protector."""
    p = board[sq]
    return p is not None and colour(p) != side and p.lower() != "s"


def pseudo_moves(board, side):
    """{(from, to, mid, promo): (board after, squares emptied of enemies)} for `side`."""
    out = {}

    def add(key, after, victims):
        out.setdefault(key, (after, victims))

    for s in range(100):
        p = board[s]
        if p is None or colour(p) != side:
            continue
        kind, f, r = p.lower(), s % 10, s // 10

        def plain(to):
            after = list(board)
            victims = [to] if after[to] is not None else []
            after[to], after[s] = after[s], None
            if kind == "p" and to // 10 == (9 if side == 0 else 0):
                for q in PROMOTIONS:
                    promoted = list(after)
                    promoted[to] = q.upper() if side == 0 else q
                    add((s, to, None, q), promoted, victims)
            else:
                add((s, to, None, None), after, victims)

        if kind in ("k", "n"):
            for df, dr in KING_STEPS if kind == "k" else KNIGHT_LEAPS:
                if on_board(f + df, r + dr):
                    to = (r + dr) * 10 + f + df
                    if board[to] is None or capturable(board, to, side):
                        plain(to)
        if kind in LINES:
            for df, dr in LINES[kind]:
                ff, rr, screen = f + df, r + dr, False
                while on_board(ff, rr):
                    to = rr * 10 + ff
                    if board[to] is None:
                        plain(to)
                    else:
                        if capturable(board, to, side):
                            plain(to)
                        if screen:
                            break
                        screen = True
                    ff, rr = ff + df, rr + dr
        elif kind == "p":
            dr = 1 if side == 0 else -1
            if on_board(f, r + dr) and board[(r + dr) * 10 + f] is None:
                plain((r + dr) * 10 + f)
                two = (r + 2 * dr) * 10 + f
                if r == PAWN_START[side] and on_board(f, r + 2 * dr) and board[two] is None:
                    plain(two)
            for df in (-1, 1):
                if on_board(f + df, r + dr) and capturable(board, (r + dr) * 10 + f + df, side):
                    plain((r + dr) * 10 + f + df)
        elif kind == "n":
            for df, dr in KNIGHT_LEAPS:
                if not on_board(f + df, r + dr):
                    continue
                m = (r + dr) * 10 + f + df
                if not (board[m] is None or capturable(board, m, side)):
                    continue
                first = list(board)
                took = first[m] is not None
                first[m], first[s] = first[s], None
                for df2, dr2 in KNIGHT_LEAPS:
                    if not on_board(m % 10 + df2, m // 10 + dr2):
                        continue
                    to = (m // 10 + dr2) * 10 + m % 10 + df2
                    if not (first[to] is None or capturable(first, to, side)):
                        continue
                    if to == s and not took:
                        continue
                    after = list(first)
                    victims = ([m] if took else []) + ([to] if after[to] is not None else [])
                    after[to], after[m] = after[m], None
                    add((s, to, m if took else None, None), after, victims)
        elif kind == "t":
            for df, dr in KING_STEPS:
                if not on_board(f + df, r + dr):
                    continue
                near = (r + dr) * 10 + f + df
                far = (r + 2 * dr) * 10 + f + 2 * df
                if board[near] is None:
                    land = near
                elif on_board(f + 2 * df, r + 2 * dr) and board[far] is None:
                    land = far
                else:
                    continue
                after = list(board)
                after[land], after[s] = after[s], None
                victims = [(land // 10 + er) * 10 + land % 10 + ef for ef, er in KING_STEPS
                           if on_board(land % 10 + ef, land // 10 + er)
                           and capturable(after, (land // 10 + er) * 10 + land % 10 + ef, side)]
                for v in victims:
                    after[v] = None
                add((s, land, None, None), after, victims)
        elif kind in ("c", "s"):

            def walk(cur_board, cur, left, mid, took, victims):
                if left == 0:
                    if cur != s or took:
                        add((s, cur, mid, None), cur_board, victims)
                    return
                cf, cr = cur % 10, cur // 10
                for df, dr in KING_STEPS:
                    if not on_board(cf + df, cr + dr):
                        continue
                    nb = (cr + dr) * 10 + cf + df
                    landings = [nb]
                    if cur_board[nb] is not None and on_board(cf + 2 * df, cr + 2 * dr):
                        landings.append((cr + 2 * dr) * 10 + cf + 2 * df)
                    for x in landings:
                        if cur_board[x] is None:
                            nxt = list(cur_board)
                            nxt[x], nxt[cur] = nxt[cur], None
                            walk(nxt, x, left - 1, mid, took, victims)
                        elif kind == "c" and capturable(cur_board, x, side):
                            nxt = list(cur_board)
                            nxt[x], nxt[cur] = nxt[cur], None
                            inter = left > 1
                            walk(nxt, x, left - 1, x if inter else mid, took or inter, victims + [x])

            walk(list(board), s, 2 if kind == "c" else 3, None, False, [])
    return out


def king_attacked(board, side):
    """Whether some pseudo-move of the other side removes `side`'s King."""
    king = board.index("K" if side == 0 else "k")
    return any(king in victims for _, victims in pseudo_moves(board, 1 - side).values())


def perft(board, side, depth):
    """Leaves of the legal-move tree."""
    if depth == 0:
        return 1
    legal = [after for after, _ in pseudo_moves(board, side).values()
             if not king_attacked(after, side)]
    if depth == 1:
        return len(legal)
    return sum(perft(after, 1 - side, depth - 1) for after in legal)


def chessvar_perft(binary, fen, depth):
    """chessvar's count for fen at depth."""
    return int(chessvar_json_perft(binary, "--variant", "supremo", "--fen", fen, "--depth",
                                   str(depth), "--threads", "1")["nodes"])


def main():
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chessvar", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--fen", action="append", default=[])
    ap.add_argument("--file", help="one FEN per line (text after ';' ignored)")
    args = ap.parse_args()
    fens = list(args.fen)
    source = args.file or (None if fens else os.path.join(ROOT, "tests", "data", "supremo.epd"))
    if source:
        with open(source, encoding="utf-8") as fh:
            fens += [ln.split(";")[0].strip() for ln in fh if ln.strip() and not ln.startswith("#")]
    bad = 0
    for fen in fens:
        board, side = parse_fen(fen)
        counts = []
        for depth in range(1, args.depth + 1):
            mine, theirs = perft(board, side, depth), chessvar_perft(args.chessvar, fen, depth)
            counts.append(str(mine))
            if mine != theirs:
                bad += 1
                print(f"DIFF depth {depth}: naive {mine}, chessvar {theirs}: {fen}")
        print(f"{' '.join(counts):>24}  {fen}", flush=True)
    print(f"{len(fens)} positions, {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
