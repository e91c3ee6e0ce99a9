#!/usr/bin/env python3
"""Writes tests/data/supremo_cannon10.epd: a cannon10 perft suite whose every number is
counted by Fairy-Stockfish alone (no chessvar involved).

cannon10 is the piece set chessvar's Supremo generator shares with Fairy-Stockfish 11.1
(the Debian package, which cannot define custom pieces): rook, bishop, queen, xiangqi
cannon, king, single-step pawn on 10x10, defined in bench/fairy_variants.ini. Positions:
the start, the two middle games that scripts.measure.perft_speed times, and the end
positions of seeded random walks of 10..60 plies from the start, each move picked from
that engine's legal-move list; counts at depths 1..4 (stopping after 3 million nodes).

  python3 -m scripts.data.make_cannon10_epd                       # seed 2026, 12 walks
  python3 -m scripts.data.make_cannon10_epd --out other.epd --seed 7
"""
import argparse
import os
import random
import sys

from scripts.common import ROOT
from scripts.common.uci_engine import UciEngine, find_engine
from scripts.measure.perft_speed import CANNON10, INI

VARIANT = "cannon10"


def legal_moves(engine, fen, moves):
    """Legal moves (long algebraic of any length: 10x10 squares have two-digit ranks) of fen
    after moves, from `go perft 1`."""
    engine.set_position(fen, moves)
    engine.ready()
    engine._send("go perft 1")
    out = []
    for line in engine._lines_until(lambda ln: ln.startswith("Nodes searched")):
        if ":" in line and not line.startswith("Nodes searched"):
            out.append(line.split(":", 1)[0].strip())
    return out


def make_epd(fairy, ini, path, walks, seed):
    """Writes the suite to path and prints its lines."""
    rng = random.Random(seed)
    lines = []
    with UciEngine(fairy, threads=1) as engine:
        engine.load_variant(ini, VARIANT)
        fens = [fen for _, fen, _, _ in CANNON10]
        start = CANNON10[0][1]
        for _ in range(walks):
            played = []
            for _ in range(rng.randint(10, 60)):
                legal = legal_moves(engine, start, played)
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
                 f"# (Debian package), `go perft` with that ini file, written by\n"
                 f"# `python3 -m scripts.data.make_cannon10_epd` (seed {seed}); positions: the start,\n"
                 f"# two middle games, and the ends of seeded random walks chosen by that engine's\n"
                 f"# legal-move lists.\n")
        for line in lines:
            fh.write(line + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fairy", default=None, help="Fairy-Stockfish binary (default: fairy-stockfish)")
    ap.add_argument("--ini", default=INI)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "data", "supremo_cannon10.epd"))
    ap.add_argument("--walks", type=int, default=12, help="random walks from the start")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    try:
        fairy = find_engine(args.fairy, ("fairy-stockfish",))
    except FileNotFoundError as e:
        print(f"make_cannon10_epd: {e}", file=sys.stderr)
        return 2
    make_epd(fairy, os.path.abspath(args.ini), args.out, args.walks, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
