#!/usr/bin/env python3
"""Compare chessvar's Supremo generator with Fairy-Stockfish on 10x10: same counts, and speed.

Fairy-Stockfish 11.1 (the Debian package) has no customPiece option, so it cannot define
Supremo's Super pieces (slider plus cannon hop). The comparison uses the pieces both engines
express, defined in bench/fairy_variants.ini and in chessvar as the `cannon10` variant,
which runs on the Supremo operations unchanged (the same 128-bit generator, hop machinery
and legality filter): rook, bishop, queen, xiangqi cannon, king, single-step pawn.

For every position, first the counts at depths 1..D must agree (exit status 1 otherwise).
Then runs alternate, chessvar then Fairy-Stockfish, `--pairs` times, one thread each:

  chessvar:         `chessvar perft --variant cannon10 --fen F --depth D --json --threads 1`;
                    the `seconds` field of its JSON (the perft alone) is timed.
  Fairy-Stockfish:  one process per run, VariantPath and UCI_Variant set, Threads 1; the
                    clock runs from sending `go perft D` to reading `Nodes searched`.

Both engines count the last ply in bulk (the number of legal moves). Medians, nodes per
second and the ratio chessvar/Fairy-Stockfish go to results/supremo_fairy.json.

  python3 scripts/compare_fairy.py
  python3 scripts/compare_fairy.py --quick      # shallower, one pair, separate output file
  python3 scripts/compare_fairy.py --make-epd tests/data/supremo_cannon10.epd
        # writes a perft suite whose every number is counted by Fairy-Stockfish alone: the
        # positions above and seeded random walks from the start (no chessvar involved)
"""

import argparse
import datetime
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_env import git_state, machine_info  # noqa: E402
from chessvar_run import perft  # noqa: E402
from uci_engine import UciEngine, find_engine  # noqa: E402

VARIANT = "cannon10"

# (name, FEN, timed depth, quick depth). The middle-game positions are 24 random plies
# from the start (seeds 1 and 3 of a seeded random walk), kept here as data.
POSITIONS = [
    ("start", "rcbbqkbbcr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RCBBQKBBCR w - - 0 1", 6, 4),
    ("middle1", "r1bb1kbb1r/p1pppqpp2/8pp/1c3p4/9C/10/5P4/1PP2c3B/P1BQP1PP1P/R1B2KB1CR w - - 4 13", 4, 3),
    ("middle3", "rcbb1k1b1r/p1ppp1p1p1/1p3p1pcB/10/8q1/5Q4/10/Pb1P2P3/1PP1PPBP1P/RC1B1KB2R w - - 0 13", 4, 3),
]


def chessvar_run(path, fen, depth):
    """One chessvar process: return (nodes, seconds of the perft from its JSON)."""
    obj = perft(path, "--variant", VARIANT, "--fen", fen, "--depth", str(depth), "--threads", "1")
    return int(obj["nodes"]), float(obj["seconds"])


class Fairy(UciEngine):
    """Fairy-Stockfish with the cannon10 variant loaded."""

    def __init__(self, path, ini):
        super().__init__(path, threads=1)
        self.set_option("VariantPath", ini)
        self.set_option("UCI_Variant", VARIANT)
        self.ready()

    def moves(self, fen, moves=()):
        """Legal moves (long algebraic, any length) of fen after moves, from `go perft 1`."""
        self.set_position(fen, moves)
        self.ready()
        self._send("go perft 1")
        out = []
        for line in self._lines_until(lambda ln: ln.startswith("Nodes searched")):
            if ":" in line and not line.startswith("Nodes searched"):
                out.append(line.split(":", 1)[0].strip())
        return out


def make_epd(fairy, ini, path, walks, seed):
    """Writes a cannon10 perft suite counted by Fairy-Stockfish alone: the timed positions
    and the end positions of seeded random walks of 10..60 plies from the start."""
    import random
    rng = random.Random(seed)
    lines = []
    with Fairy(fairy, ini) as engine:
        fens = [fen for _, fen, _, _ in POSITIONS]
        start = POSITIONS[0][1]
        for _ in range(walks):
            played = []
            for _ in range(rng.randint(10, 60)):
                legal = engine.moves(start, played)
                if not legal:
                    break
                played.append(rng.choice(legal))
            fen, _ = engine.board_info(start, played)
            if fen not in fens:
                fens.append(fen)
        for fen in fens:
            ops = []
            for depth in range(1, 5):
                engine.set_position(fen)
                nodes = engine.perft_divide(depth)[0]
                ops.append(f";D{depth} {nodes}")
                if nodes > 3_000_000:
                    break
            lines.append(f"{fen} {' '.join(ops)} ;variant {VARIANT}")
            print(lines[-1])
        name = engine.name
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(f"# cannon10 perft suite (the piece set chessvar's Supremo generator shares with\n"
                 f"# Fairy-Stockfish: bench/fairy_variants.ini). Source of every number: {name}\n"
                 f"# (Debian package), `go perft` with that ini file, written by scripts/compare_fairy.py\n"
                 f"# --make-epd (seed {seed}); positions: the start, two middle games, and the ends of\n"
                 f"# seeded random walks chosen by that engine's legal-move lists.\n")
        for line in lines:
            fh.write(line + "\n")


def fairy_run(path, ini, fen, depth):
    """One Fairy-Stockfish process: return (nodes, seconds of the perft, engine name)."""
    with Fairy(path, ini) as engine:
        engine.set_position(fen)
        nodes, _, secs = engine.perft_divide(depth)
        return nodes, secs, engine.name


def summarise(times, nodes):
    """Median, min, max of a list of seconds and the nodes/s at the median."""
    med = statistics.median(times)
    return {"runs_seconds": [round(t, 6) for t in times], "median_seconds": round(med, 6),
            "min_seconds": round(min(times), 6), "max_seconds": round(max(times), 6),
            "nps_at_median": round(nodes / med) if med > 0 else None}


def main():
    """Command-line entry point."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chessvar", default=os.path.join(root, "build", "chessvar"))
    ap.add_argument("--fairy", default=None, help="Fairy-Stockfish binary (default: fairy-stockfish)")
    ap.add_argument("--ini", default=os.path.join(root, "bench", "fairy_variants.ini"))
    ap.add_argument("--pairs", type=int, default=None, help="alternating run pairs (default 3)")
    ap.add_argument("--quick", action="store_true", help="shallower depths, one pair")
    ap.add_argument("--out", default=None, help="output JSON (default results/supremo_fairy.json)")
    ap.add_argument("--make-epd", default=None, metavar="PATH",
                    help="write a perft suite counted by Fairy-Stockfish alone, then stop")
    ap.add_argument("--walks", type=int, default=12, help="random walks for --make-epd")
    ap.add_argument("--seed", type=int, default=2026, help="seed for --make-epd")
    args = ap.parse_args()

    fairy = find_engine(args.fairy, ("fairy-stockfish",))
    if args.make_epd:
        make_epd(fairy, os.path.abspath(args.ini), args.make_epd, args.walks, args.seed)
        return 0
    pairs = args.pairs or (1 if args.quick else 3)
    out = args.out or os.path.join(root, "results",
                                   "supremo_fairy_quick.json" if args.quick else "supremo_fairy.json")
    if not os.access(args.chessvar, os.X_OK):
        sys.exit(f"chessvar binary not found: {args.chessvar} (build first, or pass --chessvar)")
    head, dirty = git_state(root)
    ok = True
    rows = []
    engine_name = None
    for name, fen, depth, quick_depth in POSITIONS:
        d = quick_depth if args.quick else depth
        counts = []
        for k in range(1, d):
            a, _ = chessvar_run(args.chessvar, fen, k)
            b, _, engine_name = fairy_run(fairy, args.ini, fen, k)
            counts.append({"depth": k, "chessvar": a, "fairy": b})
            if a != b:
                ok = False
                print(f"MISMATCH {name} depth {k}: chessvar {a}, Fairy-Stockfish {b}")
        cv_times, fs_times, nodes = [], [], None
        for _ in range(pairs):
            n1, t1 = chessvar_run(args.chessvar, fen, d)
            n2, t2, engine_name = fairy_run(fairy, args.ini, fen, d)
            for n in (n1, n2):
                if nodes is None:
                    nodes = n
                if n != nodes:
                    ok = False
                    print(f"MISMATCH {name} depth {d}: {n1} (chessvar) vs {n2} (Fairy-Stockfish)")
            cv_times.append(t1)
            fs_times.append(t2)
        counts.append({"depth": d, "chessvar": n1, "fairy": n2})
        cv, fs = summarise(cv_times, nodes), summarise(fs_times, nodes)
        ratio = round(fs["median_seconds"] / cv["median_seconds"], 2) if cv["median_seconds"] > 0 else None
        rows.append({"name": name, "fen": fen, "depth": d, "nodes": nodes, "counts_agree": all(
            c["chessvar"] == c["fairy"] for c in counts), "counts": counts, "chessvar": cv,
            "fairy_stockfish": fs, "speed_ratio": ratio})
        print(f"{name:8} depth {d}  nodes {nodes:>11}  chessvar {cv['nps_at_median'] / 1e6:6.2f} Mn/s  "
              f"Fairy-Stockfish {fs['nps_at_median'] / 1e6:6.2f} Mn/s  ratio {ratio:.2f}x")
    total_cv = sum(r["chessvar"]["median_seconds"] for r in rows)
    total_fs = sum(r["fairy_stockfish"]["median_seconds"] for r in rows)
    result = {
        "what": "perft, chessvar (Supremo generator, variant cannon10) vs Fairy-Stockfish, one thread each",
        "why_cannon10": "Fairy-Stockfish 11.1 cannot define custom pieces, so Supremo's Super "
                        "pieces (slider + cannon hop) are not expressible; cannon10 uses the pieces "
                        "both engines have, on the same 10x10 generator",
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "fairy_stockfish": engine_name,
        "fairy_ini": os.path.relpath(args.ini, root),
        "chessvar_commit": head,
        "chessvar_tree_dirty": dirty,
        "pairs": pairs,
        "machine": machine_info(),
        "positions": rows,
        "overall_speed_ratio": round(total_fs / total_cv, 2) if total_cv > 0 else None,
        "counts_agree": ok,
    }
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=2)
        fh.write("\n")
    print(f"overall ratio (sum of median times) {result['overall_speed_ratio']}x; written {os.path.relpath(out, root)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
