#!/usr/bin/env python3
"""Measures chessvar perft speed-ups side by side in one run and writes them to results/.

  threads: orthodox start depth 6 (default), 1 thread vs N threads
  hash:    orthodox start depth 7, same thread count, without vs with --hash MB

Runs alternate (A B A B ...) so drift on a shared machine hits both sides alike; the
script reports medians of chessvar's own `seconds` field and the ratio of medians, and
checks that every run printed the same node count.
"""
import argparse
import json
import os
import statistics
import sys

from scripts.common.measure_env import machine_info  # noqa: E402
from scripts.common.chessvar_run import run_timed  # noqa: E402

from scripts.common import ROOT


def run(binary, args):
    r, timing = run_timed([binary, "perft", "--quiet"] + args)
    r["process_seconds"] = timing["wall_seconds"]  # includes start-up and table allocation
    return r


def pair(binary, a_args, b_args, runs):
    a, b = [], []
    for _ in range(runs):
        a.append(run(binary, a_args))
        b.append(run(binary, b_args))
    nodes = {r["nodes"] for r in a + b}
    if len(nodes) != 1:
        sys.exit(f"node counts differ between modes: {sorted(nodes)}")
    ma = statistics.median(r["seconds"] for r in a)
    mb = statistics.median(r["seconds"] for r in b)
    pa = statistics.median(r["process_seconds"] for r in a)
    pb = statistics.median(r["process_seconds"] for r in b)
    return {"nodes": nodes.pop(), "a_args": a_args, "b_args": b_args,
            "a_seconds": [r["seconds"] for r in a], "b_seconds": [r["seconds"] for r in b],
            "a_median_s": ma, "b_median_s": mb, "speedup": ma / mb,
            "a_process_median_s": pa, "b_process_median_s": pb, "process_speedup": pa / pb}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--thread-depth", type=int, default=6)
    ap.add_argument("--hash-depth", type=int, default=7)
    ap.add_argument("--hash-mb", type=int, default=256)
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "perft_scaling.json"))
    args = ap.parse_args()

    t = args.threads
    res = {
        "machine": machine_info(),
        "position": "orthodox start",
        "threads": pair(args.binary, ["--depth", str(args.thread_depth), "--threads", "1"],
                        ["--depth", str(args.thread_depth), "--threads", str(t)], args.runs),
        "hash": pair(args.binary, ["--depth", str(args.hash_depth), "--threads", str(t)],
                     ["--depth", str(args.hash_depth), "--threads", str(t), "--hash", str(args.hash_mb)], args.runs),
    }
    res["threads"]["threads"] = t
    res["hash"]["threads"] = t
    res["hash"]["hash_mb"] = args.hash_mb
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")
    print(f"threads: depth {args.thread_depth}, 1 -> {t} threads: "
          f"{res['threads']['a_median_s']:.3f} s -> {res['threads']['b_median_s']:.3f} s, "
          f"speed-up {res['threads']['speedup']:.2f}x (whole process {res['threads']['process_speedup']:.2f}x)")
    print(f"hash:    depth {args.hash_depth}, {t} threads, no hash -> {args.hash_mb} MB: "
          f"{res['hash']['a_median_s']:.3f} s -> {res['hash']['b_median_s']:.3f} s, "
          f"speed-up {res['hash']['speedup']:.2f}x (whole process {res['hash']['process_speedup']:.2f}x)")
    print(f"written to {os.path.relpath(args.out, ROOT)}")


if __name__ == "__main__":
    main()
