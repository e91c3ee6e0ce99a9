#!/usr/bin/env python3
"""Generate tests/data/chess_stockfish.epd: diverse orthodox positions with Stockfish perft counts.

Positions come from seeded random play driven through Stockfish over UCI (legal moves from
`go perft 1`, sorted, one picked with Python's `random.Random(seed)`, the FEN read back with
`d`), steered per category by move weights (prefer captures to reach endgames, pawn pushes
to reach promotions ...) and kept when the category's condition holds (side to move in
check, a pinned piece, an e.p. square, a castling move legal, a promotion legal, a mate or
stalemate one move away ...). A handful of hand-picked tricky FENs are added. Every count
in the output is Stockfish's `go perft N` of that FEN: depths 1..4 everywhere, depth 5 for
a few sparse endgames.

  python3 -m scripts.data.make_chess_epd                    # writes tests/data/chess_stockfish.epd
  python3 -m scripts.data.make_chess_epd --seed 7 --out other.epd --cross-check none

By default every count is then recomputed by a second engine (Fairy-Stockfish) and the file
is written only if all agree; the header records that cross-check.

The output depends only on the seed, the script and Stockfish's move generator (the move
list is sorted before picking), so a rerun with the same seed reproduces the file.
"""

import argparse
import random
import sys
import time

from scripts.common.uci_engine import UciEngine

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
FILES = "abcdefgh"

# Positions whose depth-4 count is above this are skipped to keep the file fast to run.
MAX_D4 = 6_000_000
# Sparse endgames get a depth-5 count when it stays below this.
MAX_D5 = 3_000_000
MAX_D5_LINES = 12

# Hand-picked positions that random play rarely reaches; counts still come from Stockfish.
HAND_PICKED = [
    ("e.p. capture illegal: the capturing pawn is pinned along the rank",
     "7k/8/8/KPp4r/8/8/8/8 w - c6 0 2"),
    ("e.p. capture legal although the capturing pawn is pinned: it stays on the pin line",
     "8/7k/8/8/3Pp3/8/8/1B2K3 b - d3 0 1"),
    ("e.p. capture is the only pawn answer to a check by the double-stepped pawn",
     "8/8/8/4k3/3Pp3/8/8/4K3 b - d3 0 1"),
    ("e.p. square set but no pawn can take",
     "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1"),
    ("castling with an attacked rook and an attacked b1 is legal",
     "4k3/8/8/8/8/8/1r5r/R3K2R w KQ - 0 1"),
    ("promotion by capturing a castling rook removes the right",
     "r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1"),
    ("stalemate: no legal move",
     "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),
    ("checkmate: no legal move",
     "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"),
    ("double check by a discovered rook and the knight that moved",
     "4r1k1/8/8/8/8/3n4/8/4K3 w - - 0 1"),
    ("non-default move counters",
     "r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 9"),
]


def board_of(fen):
    """Map square index (a1 = 0) to piece letter for the board field of fen."""
    board = {}
    for r, row in enumerate(fen.split()[0].split("/")):
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                board[(7 - r) * 8 + f] = ch
                f += 1
    return board


def sq_index(name):
    """Square index of an algebraic square name."""
    return (int(name[1]) - 1) * 8 + FILES.index(name[0])


def is_white(piece):
    """True when the piece letter is White's."""
    return piece.isupper()


def pinned_count(fen, white):
    """Number of pieces of the given colour pinned to their own king (orthodox sliders)."""
    board = board_of(fen)
    king = "K" if white else "k"
    ksq = next((s for s, p in board.items() if p == king), None)
    if ksq is None:
        return 0
    count = 0
    for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)):
        sliders = "RQ" if df == 0 or dr == 0 else "BQ"
        f, r = ksq % 8 + df, ksq // 8 + dr
        own = None
        while 0 <= f < 8 and 0 <= r < 8:
            p = board.get(r * 8 + f)
            if p is not None:
                if is_white(p) == white:
                    if own is not None:
                        break
                    own = p
                else:
                    if own is not None and p.upper() in sliders:
                        count += 1
                    break
            f, r = f + df, r + dr
    return count


def piece_count(fen):
    """Number of pieces on the board."""
    return len(board_of(fen))


def move_weight(board, move, policy):
    """Relative probability of a move under a steering policy."""
    frm, to = sq_index(move[:2]), sq_index(move[2:4])
    piece = board.get(frm, "?")
    capture = to in board
    pawn = piece in "Pp"
    w = 1.0
    if policy in ("endgame", "mate") and capture:
        w *= 12.0
    if policy == "promotion" and pawn:
        w *= 8.0
    if policy == "promotion" and capture:
        w *= 3.0
    if policy == "castling" and piece in "Kk":
        w *= 0.1
    if policy == "ep" and pawn:
        w *= 4.0
    if len(move) == 5:
        w *= 4.0 if move[4] == "q" else 1.0
    return w


def random_game_position(engine, rng, policy, min_ply, max_ply, accept):
    """Play one seeded random game; return the first (fen, info) after min_ply that accept()s.

    Returns None when the game ends or max_ply passes without an acceptable position.
    """
    moves = []
    last_move = None
    prev_fen = None
    for ply in range(max_ply + 1):
        fen, checkers = engine.board_info(None, moves)
        legal = engine.legal_moves(None, moves)
        if ply >= min_ply:
            info = {"fen": fen, "checkers": checkers, "legal": legal,
                    "last_move": last_move, "prev_fen": prev_fen}
            if accept(engine, info):
                return info["fen"]
        if not legal:
            return None
        board = board_of(fen)
        weights = [move_weight(board, m, policy) for m in legal]
        last_move = rng.choices(legal, weights=weights)[0]
        prev_fen = fen
        moves.append(last_move)
    return None


def double_step(info):
    """If the last move was a pawn double step, return the skipped square name, else None."""
    mv, prev = info["last_move"], info["prev_fen"]
    if not mv or not prev:
        return None
    piece = board_of(prev).get(sq_index(mv[:2]))
    if piece not in ("P", "p") or mv[0] != mv[2] or abs(int(mv[1]) - int(mv[3])) != 2:
        return None
    return mv[0] + str((int(mv[1]) + int(mv[3])) // 2)


def with_ep(fen, square):
    """Return fen with its e.p. field set to square."""
    f = fen.split()
    f[3] = square
    return " ".join(f)


def zero_child(engine, fen):
    """True when some legal move leaves the opponent without a legal move (mate/stalemate)."""
    engine.set_position(fen)
    _, divide, _ = engine.perft_divide(2)
    return any(c == 0 for c in divide.values())


def accept_any(engine, info):
    """Accept every position."""
    return bool(info["legal"])


def accept_check(engine, info):
    """Side to move is in check (and has moves)."""
    return bool(info["checkers"]) and bool(info["legal"])


def accept_double_check(engine, info):
    """Side to move is in double check."""
    return len(info["checkers"]) >= 2 and bool(info["legal"])


def accept_pin(engine, info):
    """The side to move has at least one piece pinned to its king."""
    white = info["fen"].split()[1] == "w"
    return bool(info["legal"]) and pinned_count(info["fen"], white) >= 1


def accept_ep_takeable(engine, info):
    """Stockfish reports an e.p. square (an enemy pawn attacks it)."""
    return info["fen"].split()[3] != "-" and bool(info["legal"])


def accept_ep_untakeable(engine, info):
    """Last move was a double step that no pawn can take: write its e.p. square anyway."""
    sq = double_step(info)
    if sq is None or info["fen"].split()[3] != "-" or not info["legal"]:
        return False
    info["fen"] = with_ep(info["fen"], sq)
    return True


def accept_castling(engine, info):
    """A castling move is legal for the side to move."""
    board = board_of(info["fen"])
    for mv in info["legal"]:
        if mv in ("e1g1", "e1c1", "e8g8", "e8c8") and board.get(sq_index(mv[:2])) in "Kk":
            return True
    return False


def accept_castling_rights_blocked(engine, info):
    """Castling rights remain but no castling move is legal right now."""
    return (info["fen"].split()[2] != "-" and bool(info["legal"])
            and not accept_castling(engine, info))


def accept_promotion(engine, info):
    """A promotion is legal for the side to move."""
    return any(len(m) == 5 for m in info["legal"])


def accept_endgame(engine, info):
    """At most ten pieces on the board, kings included."""
    return bool(info["legal"]) and piece_count(info["fen"]) <= 10


def accept_mate_near(engine, info):
    """Some legal move mates or stalemates the opponent."""
    return bool(info["legal"]) and piece_count(info["fen"]) <= 20 and zero_child(engine,
                                                                                 info["fen"])


# (category, how many, policy, min ply, max ply, acceptance test)
CATEGORIES = [
    ("opening", 16, "uniform", 2, 14, accept_any),
    ("middlegame", 16, "uniform", 20, 60, accept_any),
    ("castling move legal", 12, "castling", 6, 40, accept_castling),
    ("castling rights kept but castling not legal now", 6, "castling", 8, 40,
     accept_castling_rights_blocked),
    ("e.p. capture possible", 10, "ep", 2, 80, accept_ep_takeable),
    ("e.p. square that no pawn can take", 6, "ep", 2, 80, accept_ep_untakeable),
    ("side to move in check", 12, "uniform", 4, 120, accept_check),
    ("double check", 2, "endgame", 4, 200, accept_double_check),
    ("pinned piece", 12, "uniform", 6, 120, accept_pin),
    ("promotion available", 12, "promotion", 10, 200, accept_promotion),
    ("sparse endgame", 14, "endgame", 20, 250, accept_endgame),
    ("mate or stalemate one move away", 10, "mate", 20, 250, accept_mate_near),
]


def perft_counts(engine, fen, depth):
    """Stockfish's counts for depths 1..depth, stopping early if D4 exceeds MAX_D4."""
    counts = []
    for d in range(1, depth + 1):
        n = engine.perft(fen, d)
        counts.append(n)
        if d == 4 and n > MAX_D4:
            return None
    return counts


def generate(engine, seed, log):
    """Return [(category, [(fen, counts), ...]), ...] for all categories and hand picks."""
    rng = random.Random(seed)
    seen = set()
    sections = []
    d5_lines = 0

    def key(fen):
        return " ".join(fen.split()[:4])

    for name, want, policy, min_ply, max_ply, accept in CATEGORIES:
        found = []
        attempts = 0
        while len(found) < want and attempts < want * 40:
            attempts += 1
            lo = rng.randint(min_ply, max(min_ply, (min_ply + max_ply) // 2))
            fen = random_game_position(engine, rng, policy, lo, max_ply, accept)
            if fen is None or key(fen) in seen:
                continue
            counts = perft_counts(engine, fen, 4)
            if counts is None:
                continue
            if (d5_lines < MAX_D5_LINES and counts[3] * 20 < MAX_D5
                    and name in ("sparse endgame", "mate or stalemate one move away")):
                d5 = engine.perft(fen, 5)
                if d5 <= MAX_D5:
                    counts.append(d5)
                    d5_lines += 1
            seen.add(key(fen))
            found.append((fen, counts))
            log(f"{name}: {len(found)}/{want}  {fen}  D4={counts[3]}")
        sections.append((name, found))

    hand = []
    for why, fen in HAND_PICKED:
        depth = 5 if piece_count(fen) <= 4 else 4
        counts = [engine.perft(fen, d) for d in range(1, depth + 1)]
        hand.append((fen, counts, why))
    return sections, hand


def cross_check(path, sections, hand, log):
    """Recompute every count with a second engine; return its name, or raise on a mismatch."""
    with UciEngine(path) as other:
        rows = [(fen, counts) for _, found in sections for fen, counts in found]
        rows += [(fen, counts) for fen, counts, _ in hand]
        for fen, counts in rows:
            for d, n in enumerate(counts, 1):
                got = other.perft(fen, d)
                if got != n:
                    raise RuntimeError(f"{other.name} disagrees on {fen} D{d}: {got} != {n}")
        log(f"cross-check: {other.name} agrees on all {sum(len(c) for _, c in rows)} counts")
        return other.name


def main():
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--out", default="tests/data/chess_stockfish.epd")
    ap.add_argument("--engine", default=None, help="Stockfish binary (default: stockfish)")
    ap.add_argument("--cross-check", default="fairy-stockfish",
                    help="second engine that must agree on every count ('none' to skip)")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args()

    def log(msg):
        if not args.quiet:
            print(msg, file=sys.stderr)

    t0 = time.time()
    with UciEngine(args.engine) as engine:
        sections, hand = generate(engine, args.seed, log)
        name = engine.name
    checked_by = None
    if args.cross_check != "none":
        try:
            checked_by = cross_check(args.cross_check, sections, hand, log)
        except RuntimeError as err:
            print(f"error: {err}; nothing written", file=sys.stderr)
            return 1

    lines = [
        "# Orthodox chess perft positions with counts computed by Stockfish.",
        "#",
        f"# Counts: {name} (`go perft N`), depths 1..4, depth 5 for a few sparse endgames.",
        "# Positions: seeded random play through the same engine, steered per category",
        "# (see the section headers), plus hand-picked tricky positions at the end.",
        f"# Regenerate: python3 -m scripts.data.make_chess_epd --seed {args.seed}",
        (f"# Cross-check: {checked_by} computes the same count for every entry."
         if checked_by else "# Cross-check: none."),
        "# Format: FEN ;D1 n ;D2 n ...   (# starts a comment)",
    ]
    total = 0
    npos = 0
    body = []
    for sec_name, found in sections:
        body.append("")
        body.append(f"# --- {sec_name}")
        for fen, counts in found:
            body.append(fen + "".join(f" ;D{d} {n}" for d, n in enumerate(counts, 1)))
            total += sum(counts)
            npos += 1
    body.append("")
    body.append("# --- hand-picked")
    for fen, counts, why in hand:
        body.append(f"# {why}")
        body.append(fen + "".join(f" ;D{d} {n}" for d, n in enumerate(counts, 1)))
        total += sum(counts)
        npos += 1
    lines.append(f"# {npos} positions, {total} nodes summed over all listed depths.")
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines + body) + "\n")
    print(f"wrote {args.out}: {npos} positions, {total} nodes, {time.time() - t0:.0f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
