#!/usr/bin/env python3
"""Supremo Superchess perft on the default array S30: counts, speed, and the cross-checks.

For S30 at depths 1..D (default 4), one thread:
  * the fast generator with bulk counting (`chessvar perft --variant supremo --json`),
    best of `--runs` runs (default 3), with nodes per second;
  * the slow reference generator (`--reference`) up to depth `--ref-depth` (default 3),
    which must give the same count;
  * where the specification's reference file (tests/data/supremo.epd) has a number, the
    count must equal it (depths 1 and 2 for S30).
The whole reference suite (tests/data/supremo.epd, every line and depth) is run as well.
Everything goes to results/supremo_perft.json; exit status 1 on any mismatch.

  python3 -m scripts.crosscheck.supremo_perft
  python3 -m scripts.crosscheck.supremo_perft --depth 3 --ref-depth 2     # quicker
"""

import argparse
import datetime
import json
import os
import sys

from scripts.common import ROOT
from scripts.common.measure_env import machine_info  # noqa: E402
from scripts.common.chessvar_run import perft  # noqa: E402


def run_perft(binary, fen, depth, reference=False):
    """One chessvar perft process: return (nodes, seconds) from its JSON line."""
    args = ["--variant", "supremo", "--fen", fen, "--depth", str(depth), "--threads", "1"]
    obj = perft(binary, *args, *(["--reference"] if reference else []))
    return int(obj["nodes"]), float(obj["seconds"])


def read_epd(path):
    """(fen, {depth: nodes}) for every line of an EPD perft file."""
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(";")]
            ops = {}
            for op in parts[1:]:
                if op.startswith("D"):
                    depth, nodes = op[1:].split()
                    ops[int(depth)] = int(nodes)
            out.append((parts[0], ops))
    return out


def main():
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chessvar", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--ref-depth", type=int, default=3)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "supremo_perft.json"))
    args = ap.parse_args()
    if not os.access(args.chessvar, os.X_OK):
        sys.exit(f"chessvar binary not found: {args.chessvar} (build first, or pass --chessvar)")

    suite = read_epd(os.path.join(ROOT, "tests", "data", "supremo.epd"))
    s30, s30_expected = suite[0]
    ok = True
    rows = []
    for depth in range(1, args.depth + 1):
        runs = [run_perft(args.chessvar, s30, depth) for _ in range(args.runs)]
        nodes = runs[0][0]
        if any(n != nodes for n, _ in runs):
            ok = False
        best = min(t for _, t in runs)
        row = {"depth": depth, "nodes": nodes, "best_seconds": round(best, 6),
               "runs_seconds": [round(t, 6) for _, t in runs],
               "nps": round(nodes / best) if best > 0 else None}
        if depth in s30_expected:
            row["specification"] = s30_expected[depth]
            ok &= nodes == s30_expected[depth]
        if depth <= args.ref_depth:
            ref_nodes, ref_secs = run_perft(args.chessvar, s30, depth, reference=True)
            row["reference_generator"] = ref_nodes
            row["reference_seconds"] = round(ref_secs, 3)
            ok &= ref_nodes == nodes
        rows.append(row)
        print(json.dumps(row))
    suite_rows, suite_ok = [], True
    for fen, ops in suite:
        for depth, expected in sorted(ops.items()):
            got, _ = run_perft(args.chessvar, fen, depth)
            suite_rows.append({"fen": fen, "depth": depth, "expected": expected, "nodes": got})
            if got != expected:
                suite_ok = False
                print(f"MISMATCH {fen} depth {depth}: expected {expected}, got {got}")
    ok &= suite_ok
    result = {
        "what": "Supremo Superchess perft of S30, one thread, fast generator with bulk counting",
        "fen": s30,
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine_info(),
        "s30": rows,
        "reference_suite": {"lines": len(suite), "checks": len(suite_rows), "all_match": suite_ok},
        "all_match": ok,
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=2)
        fh.write("\n")
    print(f"reference suite: {len(suite_rows)} checks, all match: {suite_ok}; written {os.path.relpath(args.out, ROOT)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
