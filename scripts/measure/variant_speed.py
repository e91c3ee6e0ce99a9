#!/usr/bin/env python3
"""Perft speed of each variant next to orthodox chess, measured in one run.

For every (position, depth) row, chessvar runs the variant and orthodox chess on the same
FEN (or the variant's own start beside the orthodox start), single-threaded, alternating
A B A B ..., and records median nodes/s from chessvar's own JSON `seconds`. Writes
results/variant_speed.json and prints a table of ratios (variant nps / chess nps).
"""
import argparse
import json
import os
import statistics
import sys

from scripts.common.measure_env import machine_info  # noqa: E402
from scripts.common.chessvar_run import perft  # noqa: E402

from scripts.common import ROOT
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

# (label, variant, variant args, chess args): chess runs beside it on the same or the orthodox start
ROWS = [
    ("switching start d4", "switching", ["--depth", "4"], ["--depth", "4"]),
    ("switching start d5", "switching", ["--depth", "5"], ["--depth", "5"]),
    ("switching kiwipete d4", "switching", ["--fen", KIWIPETE, "--depth", "4"], ["--fen", KIWIPETE, "--depth", "4"]),
    ("switching kiwipete d5", "switching", ["--fen", KIWIPETE, "--depth", "5"], ["--fen", KIWIPETE, "--depth", "5"]),
    ("superchess P0 d4", "superchess", ["--start", "p0", "--depth", "4"], ["--depth", "6"]),
    ("superchess P1 d4", "superchess", ["--start", "p1", "--depth", "4"], ["--depth", "6"]),
    ("supremo S30 d3", "supremo", ["--depth", "3"], ["--depth", "6"]),
]


def run(binary, variant, args):
    return perft(binary, "--variant", variant, "--threads", "1", *args)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", help="run only rows whose label contains this text")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "variant_speed.json"))
    args = ap.parse_args()
    rows = []
    for label, variant, vargs, cargs in ROWS:
        if args.only and args.only not in label:
            continue
        a, b = [], []
        for _ in range(args.runs):
            a.append(run(args.binary, variant, vargs))
            b.append(run(args.binary, "chess", cargs))
        va = statistics.median(r["nps"] for r in a)
        vb = statistics.median(r["nps"] for r in b)
        rows.append({"label": label, "variant": variant, "variant_args": vargs, "chess_args": cargs,
                     "variant_nodes": a[0]["nodes"], "chess_nodes": b[0]["nodes"],
                     "variant_nps_median": va, "chess_nps_median": vb, "ratio": va / vb,
                     "variant_nps_runs": [r["nps"] for r in a], "chess_nps_runs": [r["nps"] for r in b]})
        print(f"{label:24s} {va / 1e6:8.1f} Mnps   chess {vb / 1e6:8.1f} Mnps   ratio {va / vb:5.2f}")
    res = {"machine": machine_info(),
           "threads": 1, "runs": args.runs, "rows": rows}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
