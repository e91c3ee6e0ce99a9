#!/usr/bin/env python3
"""chessvar perft next to the installed engines, on the same positions, in one run.

Rows (position, depth) per variant; every engine that can express the row runs it:
  orthodox chess      chessvar, Stockfish, Fairy-Stockfish (and qperft when on PATH)
  superchess (subset) chessvar --variant superchess, Fairy-Stockfish `superchess-amazon`
  supremo (subset)    chessvar --variant cannon10 (the Supremo generator with the pieces
                      both express), Fairy-Stockfish `cannon10` (10x10)
The Fairy-Stockfish variants are in bench/fairy_variants.ini (Debian's version 11.1 has
no custom pieces; that file says what each subset covers).

Runs alternate engine by engine (A B C A B C ...), single-threaded, each run a fresh
process. chessvar's time is its JSON `seconds` (the perft alone); a UCI engine's time runs
from sending `go perft` to reading `Nodes searched` (start-up and network loading
excluded). Every engine's count must agree, or the script exits 1. Medians, nodes/s and
ratios chessvar/engine go to results/engine_comparison.json and .csv.
"""
import argparse
import csv
import json
import os
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure_env import machine_info  # noqa: E402
from chessvar_run import run_timed  # noqa: E402
from uci_engine import UciEngine  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INI = os.path.join(ROOT, "bench", "fairy_variants.ini")
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
# (label, chessvar variant, fen, depth, quick depth, {engine: UCI_Variant or None})
ROWS = [
    ("chess start", "chess", START, 6, 5, {"stockfish": None, "fairy-stockfish": "chess"}),
    ("chess kiwipete", "chess", KIWIPETE, 5, 4, {"stockfish": None, "fairy-stockfish": "chess"}),
    ("superchess amazons", "superchess", "rnbakbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBAKBNR w - - 0 1", 5, 4,
     {"fairy-stockfish": "superchess-amazon"}),
    ("superchess amazons mid", "superchess", "r1b1k2r/ppp2ppp/2n2n2/2bpp1A1/4P3/2NP1N2/PPP2PPP/R1B1KB1R w - - 0 1",
     4, 3, {"fairy-stockfish": "superchess-amazon"}),
    ("cannon10 start (Supremo generator)", "cannon10",
     "rcbbqkbbcr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RCBBQKBBCR w - - 0 1", 6, 5, {"fairy-stockfish": "cannon10"}),
    ("cannon10 middlegame", "cannon10",
     "r1bb1kbb1r/p1pppqpp2/8pp/1c3p4/9C/10/5P4/1PP2c3B/P1BQP1PP1P/R1B2KB1CR w - - 4 13", 4, 3,
     {"fairy-stockfish": "cannon10"}),
]


def chessvar_run(binary, variant, fen, depth):
    r, timing = run_timed([binary, "perft", "--variant", variant, "--fen", fen, "--depth", str(depth),
                           "--threads", "1", "--quiet"])
    return r["nodes"], r["seconds"], timing["wall_seconds"]


def uci_run(binary, uci_variant, fen, depth):
    t0 = time.perf_counter()
    eng = UciEngine(binary, threads=1, hash_mb=16)
    try:
        if uci_variant:
            eng.set_option("VariantPath", INI)
            eng.set_option("UCI_Variant", uci_variant)
        eng.set_position(fen)
        nodes, _, secs = eng.perft_divide(depth)
    finally:
        eng.close()
    return nodes, secs, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="shallower depths, 1 run (smoke test)")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "engine_comparison"))
    args = ap.parse_args()
    runs = 1 if args.quick else args.runs
    engines = {}
    for name in ("stockfish", "fairy-stockfish"):
        path = shutil.which(name) or (f"/usr/games/{name}" if os.access(f"/usr/games/{name}", os.X_OK) else None)
        if path:
            engines[name] = path
        else:
            print(f"note: {name} not found, its rows are skipped (scripts/setup.sh installs it)")
    rows, ok = [], True
    for label, variant, fen, depth, qdepth, others in ROWS:
        d = qdepth if args.quick else depth
        names = ["chessvar"] + [e for e in others if e in engines]
        samples = {n: [] for n in names}
        counts = {n: set() for n in names}
        for _ in range(runs):
            for n in names:
                if n == "chessvar":
                    nodes, secs, wall = chessvar_run(args.binary, variant, fen, d)
                else:
                    nodes, secs, wall = uci_run(engines[n], others[n], fen, d)
                samples[n].append((secs, wall))
                counts[n].add(nodes)
        allcounts = set().union(*counts.values())
        agree = len(allcounts) == 1
        ok &= agree
        nodes = min(allcounts)
        row = {"label": label, "variant": variant, "fen": fen, "depth": d, "nodes": nodes, "counts_agree": agree,
               "counts": {n: sorted(c) for n, c in counts.items()}, "engines": {}}
        for n in names:
            med = statistics.median(s for s, _ in samples[n])
            row["engines"][n] = {"median_seconds": med, "nps": nodes / med if med else None,
                                 "runs_seconds": [s for s, _ in samples[n]],
                                 "median_process_seconds": statistics.median(w for _, w in samples[n]),
                                 "uci_variant": others.get(n)}
        cv = row["engines"]["chessvar"]["median_seconds"]
        for n in names[1:]:
            row["engines"][n]["chessvar_speed_ratio"] = row["engines"][n]["median_seconds"] / cv
        rows.append(row)
        line = f"{label:32s} d{d} {nodes:>11d} {'ok ' if agree else 'DIFF'}"
        for n in names:
            e = row["engines"][n]
            line += f"  {n} {e['nps'] / 1e6:7.1f} Mn/s"
            if "chessvar_speed_ratio" in e:
                line += f" (x{e['chessvar_speed_ratio']:.2f})"
        print(line)
    versions = {}
    for n, p in engines.items():
        e = UciEngine(p)
        versions[n] = e.name
        e.close()
    res = {"machine": machine_info(), "runs": runs, "threads": 1, "engines": versions,
           "ratio": "engine median seconds / chessvar median seconds (>1: chessvar faster)", "rows": rows}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".json", "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")
    with open(args.out + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["row", "variant", "depth", "nodes", "engine", "median_seconds", "nps", "chessvar_speed_ratio"])
        for r in rows:
            for n, e in r["engines"].items():
                w.writerow([r["label"], r["variant"], r["depth"], r["nodes"], n, f"{e['median_seconds']:.6f}",
                            f"{e['nps']:.0f}", f"{e.get('chessvar_speed_ratio', 1.0):.3f}"])
    print(f"written to {os.path.relpath(args.out, ROOT)}.json and .csv")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
