#!/usr/bin/env python3
"""Superchess perft speed beside orthodox chess, and the fast generator checked against the
reference generator on the default arrays.

Each row runs chessvar perft single-threaded on a Superchess start array and on the
orthodox start, alternating A B A B ..., and keeps the median nodes/s of chessvar's own
JSON (wall clock) and the median nodes per CPU second (the child's user+system time less
the CPU time of a depth-1 run, i.e. start-up), which a shared, loaded machine disturbs less. With --reference-depth D it also counts P0, P1 and P0-nr to depth D with the slow
reference generator and records whether it equals the fast count. Writes
results/superchess_speed.json and prints a table.
"""
import argparse
import json
import os
import resource
import statistics
import sys

from scripts.common.measure_env import machine_info  # noqa: E402
from scripts.measure.variant_speed import ROOT, run  # noqa: E402  (one runner for every speed script)

# (label, superchess args, chess args)
ROWS = [
    ("P0 d4", ["--start", "p0", "--depth", "4"], ["--depth", "6"]),
    ("P0 d5", ["--start", "p0", "--depth", "5"], ["--depth", "6"]),
    ("P1 d4", ["--start", "p1", "--depth", "4"], ["--depth", "6"]),
    ("P1 d5", ["--start", "p1", "--depth", "5"], ["--depth", "6"]),
    ("P0-nr d5", ["--start", "p0-nr", "--depth", "5"], ["--depth", "6"]),
]


def cpu_run(binary, variant, args, startup=0.0):
    """run() plus the child's CPU seconds beyond start-up, and nodes per CPU second."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = run(binary, variant, args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime - startup
    r["cpu_seconds"] = cpu
    r["cpu_nps"] = r["nodes"] / cpu if cpu > 0 else 0.0
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--reference-depth", type=int, default=4,
                    help="depth of the fast == reference check on P0, P1, P0-nr (0: skip)")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "superchess_speed.json"))
    args = ap.parse_args()
    startup = statistics.median(cpu_run(args.binary, v, ["--depth", "1"])["cpu_seconds"]
                                for v in ("superchess", "chess") for _ in range(3))
    rows = []
    for label, sargs, cargs in ROWS:
        a, b = [], []
        for _ in range(args.runs):
            a.append(cpu_run(args.binary, "superchess", sargs, startup))
            b.append(cpu_run(args.binary, "chess", cargs, startup))
        va = statistics.median(r["nps"] for r in a)
        vb = statistics.median(r["nps"] for r in b)
        ca = statistics.median(r["cpu_nps"] for r in a)
        cb = statistics.median(r["cpu_nps"] for r in b)
        rows.append({"label": label, "superchess_args": sargs, "chess_args": cargs, "fen": a[0]["fen"],
                     "superchess_nodes": a[0]["nodes"], "chess_nodes": b[0]["nodes"],
                     "superchess_nps_median": va, "chess_nps_median": vb, "ratio": va / vb,
                     "superchess_cpu_nps_median": ca, "chess_cpu_nps_median": cb, "cpu_ratio": ca / cb,
                     "superchess_nps_runs": [r["nps"] for r in a], "chess_nps_runs": [r["nps"] for r in b],
                     "superchess_cpu_nps_runs": [r["cpu_nps"] for r in a],
                     "chess_cpu_nps_runs": [r["cpu_nps"] for r in b]})
        print(f"{label:10s} {a[0]['nodes']:>11d} nodes  wall {va / 1e6:6.1f} Mnps (chess {vb / 1e6:6.1f}, ratio "
              f"{va / vb:4.2f})  cpu {ca / 1e6:6.1f} Mnps (chess {cb / 1e6:6.1f}, ratio {ca / cb:4.2f})")
    checks = []
    for start in (["p0", "p1", "p0-nr"] if args.reference_depth > 0 else []):
        sargs = ["--start", start, "--depth", str(args.reference_depth)]
        fast = run(args.binary, "superchess", sargs)
        ref = run(args.binary, "superchess", sargs + ["--reference"])
        checks.append({"start": start, "depth": args.reference_depth, "fast_nodes": fast["nodes"],
                       "reference_nodes": ref["nodes"], "equal": fast["nodes"] == ref["nodes"],
                       "reference_nps": ref["nps"]})
        print(f"{start:6s} d{args.reference_depth}: fast {fast['nodes']} reference {ref['nodes']} "
              f"{'equal' if fast['nodes'] == ref['nodes'] else 'DIFFERENT'} (reference {ref['nps'] / 1e6:.2f} Mnps)")
    res = {"machine": machine_info(),
           "threads": 1, "runs": args.runs, "startup_cpu_seconds": startup, "rows": rows,
           "fast_vs_reference": checks}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")
    return 0 if all(c["equal"] for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
