#!/usr/bin/env python3
"""Repeatable instruction counts of chessvar perft under valgrind's callgrind.

Instruction counts do not depend on the machine's load, so they give a stable
before/after figure for a change (run it on both commits and compare). For each workload
the script runs `chessvar perft` under `valgrind --tool=callgrind`, subtracts the start-up
cost (a depth-1 run of the same position) and reports instructions per node. Results go
to results/instr_counts.json (or --out); `--compare OLD.json` prints the change.
Needs valgrind: `bash scripts/setup.sh --measure` installs it (the tests do not need it).

Valgrind 3.19 does not decode AVX-512, so the default (-DCHESSVAR_ARCH=native) build on an AVX-512
machine dies with SIGILL under it: measure a build configured with
-DCHESSVAR_ARCH=x86-64-v3 instead (it has BMI2, so it takes the PEXT paths too).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from scripts.common.chessvar_run import result  # noqa: E402

from scripts.common import ROOT
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
CANNON10_MIDDLE1 = "r1bb1kbb1r/p1pppqpp2/8pp/1c3p4/9C/10/5P4/1PP2c3B/P1BQP1PP1P/R1B2KB1CR w - - 4 13"
WORKLOADS = [
    ("chess start d5", ["--variant", "chess", "--depth", "5"]),
    ("chess kiwipete d4", ["--variant", "chess", "--fen", KIWIPETE, "--depth", "4"]),
    ("switching start d4", ["--variant", "switching", "--depth", "4"]),
    ("switching kiwipete d4", ["--variant", "switching", "--fen", KIWIPETE, "--depth", "4"]),
    ("superchess P0 d3", ["--variant", "superchess", "--start", "p0", "--depth", "3"]),
    ("supremo S30 d2", ["--variant", "supremo", "--depth", "2"]),
    ("supremo S30 d3", ["--variant", "supremo", "--depth", "3"]),
    ("superchess P0 d4", ["--variant", "superchess", "--start", "p0", "--depth", "4"]),
    ("cannon10 start d4", ["--variant", "cannon10", "--depth", "4"]),
    ("cannon10 middle1 d3", ["--variant", "cannon10", "--fen", CANNON10_MIDDLE1, "--depth", "3"]),
]


def callgrind(binary, args):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, "perft",
                            "--threads", "1", "--quiet", "--json"] + args, capture_output=True, text=True, check=True)
        m = re.search(r"Collected\s*:\s*(\d+)", p.stderr) or re.search(r"I\s+refs:\s*([\d,]+)", p.stderr)
        instr = int(m.group(1).replace(",", ""))
        nodes = result(p.stdout)["nodes"]
        return instr, nodes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "instr_counts.json"))
    ap.add_argument("--compare", help="an earlier output of this script to compare with")
    ap.add_argument("--only", help="run only workloads whose label contains this text")
    args = ap.parse_args()
    rows = []
    for label, wargs in WORKLOADS:
        if args.only and args.only not in label:
            continue
        base_args = [a if a != wargs[-1] or wargs[-2] != "--depth" else "1" for a in wargs]
        total, nodes = callgrind(args.binary, wargs)
        base, _ = callgrind(args.binary, base_args)
        per_node = (total - base) / nodes
        rows.append({"label": label, "args": wargs, "nodes": nodes, "instructions": total,
                     "startup_instructions": base, "instructions_per_node": round(per_node, 2)})
        print(f"{label:24s} {nodes:>12d} nodes  {total - base:>14,d} instr  {per_node:8.2f} instr/node")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    res = {"tool": "valgrind --tool=callgrind", "commit": commit, "date": time.strftime("%Y-%m-%d %H:%M:%S"), "rows": rows}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")
    if args.compare:
        old = {r["label"]: r for r in json.load(open(args.compare))["rows"]}
        for r in rows:
            if r["label"] in old:
                o = old[r["label"]]["instructions_per_node"]
                print(f"{r['label']:24s} {o:8.2f} -> {r['instructions_per_node']:8.2f} instr/node ({r['instructions_per_node'] / o - 1:+.1%})")


if __name__ == "__main__":
    main()
