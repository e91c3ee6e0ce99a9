#!/usr/bin/env python3
"""What each part of the version 2 network architecture (issue 41) costs: the trainer's
positions per CPU second and the search's nodes per CPU second, version 1 against each
version 2 configuration (output buckets, dense stack, king buckets, all together), on the
same data and the same positions.

For each configuration: `chessvar train --data RUN --out NET --positions P --threads 1`
(positions per CPU second, the child's user + system time); `chessvar train --net NET
--eval-fens FENS --bench R` (ns per refresh, update after a quiet move, evaluation); then
self-play with each trained net, `chessvar selfplay --variant V --threads 1 --games G
--seed S --eval NET --nodes N`, alternating the nets --repeats times, the run of median CPU
time kept. The nets are trained briefly on small data: their games differ from a strong
net's, so nodes per second is the comparable figure, as a ratio to the version 1 net's
trained the same way (and to the shipped net's). The machine is shared: read ratios.
With --callgrind BINARY (an x86-64-v3 build: valgrind cannot run AVX-512), each net's
self-play of --callgrind-games games also runs under callgrind: instructions per search
node, a figure the load of the machine does not move (AVX2 kernels: valgrind has no VNNI).

  python3 -m scripts.measure.nnue_v2_speed --data RUN           # results/nnue_v2_speed.json
"""

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from scripts.common import ROOT
from scripts.common.chessvar_run import result
from scripts.common.measure_env import git_state, machine_info

CONFIGS = [
    ("v1", []),
    ("obuckets8", ["--output-buckets", "8"]),
    ("stack16x32", ["--stack", "16,32"]),
    ("kbuckets4", ["--king-buckets", "4"]),
    ("kbuckets16", ["--king-buckets", "16"]),
    ("obuckets8+stack16x32", ["--output-buckets", "8", "--stack", "16,32"]),
    ("all: obuckets8+stack16x32+kbuckets8",
     ["--output-buckets", "8", "--stack", "16,32", "--king-buckets", "8"]),
]


def log(msg):
    print(f"nnue_v2_speed {time.strftime('%H:%M:%S')}: {msg}", file=sys.stderr, flush=True)


def timed(cmd):
    """Runs cmd; returns (stdout, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"nnue_v2_speed: {' '.join(cmd)}: exit {proc.returncode}: {proc.stderr[-500:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return proc.stdout, max(cpu, 1e-3)


def callgrind_per_node(args, net, work):
    """Instructions per search node of a self-play run with net under callgrind."""
    out = os.path.join(work, "cg_run")
    shutil.rmtree(out, ignore_errors=True)
    cg = os.path.join(work, "cg.out")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}", args.callgrind,
           "selfplay", "--variant", args.variant, "--games", str(args.callgrind_games), "--seed",
           str(args.seed), "--threads", "1", "--eval", net, "--nodes", str(args.nodes), "--out",
           out, "--json", "--progress", "0"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"nnue_v2_speed: callgrind: {proc.stderr[-500:]}")
    instr = int(re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr).group(1).replace(",", ""))
    return round(instr / result(proc.stdout, cmd)["search_nodes"], 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chessvar", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--data", required=True, help="a self-play run folder of the variant")
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--positions", type=int, default=2000000, help="training positions")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--games", type=int, default=8, help="self-play games per run")
    ap.add_argument("--nodes", type=int, default=2000, help="self-play nodes per move")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--bench-reps", type=int, default=2000)
    ap.add_argument("--only", default="", help="comma-separated configuration names")
    ap.add_argument("--callgrind", default="", help="an x86-64-v3 chessvar for callgrind")
    ap.add_argument("--callgrind-games", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "nnue_v2_speed.json"))
    args = ap.parse_args()

    configs = [c for c in CONFIGS if not args.only or c[0] in args.only.split(",")]
    work = tempfile.mkdtemp(prefix="nnue_v2_speed.")
    fens = os.path.join(work, "fens.txt")
    with open(os.path.join(ROOT, "tests", "data", f"{args.variant}.epd")) as f, \
            open(fens, "w") as out:
        lines = [ln.split(";")[0].strip() for ln in f if ln.strip() and not ln.startswith("#")]
        out.write("\n".join(lines[:50]) + "\n")
    rows, nets = [], {}
    try:
        for name, opts in configs:
            net = os.path.join(work, name.split(":")[0] + ".nnue")
            cmd = [args.chessvar, "train", "--data", args.data, "--out", net, "--positions",
                   str(args.positions), "--hidden", str(args.hidden), "--threads", "1",
                   "--progress", "0", "--keep-last", "--seed", "1"] + opts
            _, cpu = timed(cmd)
            bench_cmd = [args.chessvar, "train", "--net", net, "--variant", args.variant,
                         "--eval-fens", fens, "--bench", str(args.bench_reps)]
            bench = json.loads(timed(bench_cmd)[0].strip().splitlines()[-1])
            row = {
                "config": name,
                "options": " ".join(opts),
                "train_command": " ".join(["chessvar"] + cmd[1:4] + ["NET"] + cmd[5:]),
                "train_cpu_seconds": round(cpu, 2),
                "train_positions_per_cpu_s": round(args.positions / cpu),
                "net_bytes": os.path.getsize(net),
                "refresh_ns": bench["refresh_ns"],
                "update_ns": bench["update_ns"],
                "evaluate_ns": bench["evaluate_ns"],
            }
            log(f"{name}: {row['train_positions_per_cpu_s']:,} training positions/CPU s, "
                f"refresh {row['refresh_ns']} ns, update {row['update_ns']} ns, "
                f"evaluate {row['evaluate_ns']} ns")
            rows.append(row)
            nets[name] = net
        shipped = os.path.join(ROOT, "selfplay", "nets", f"{args.variant}.nnue")
        order = [("shipped v1", shipped)] + [(n, nets[n]) for n, _ in configs]
        runs = {n: [] for n, _ in order}
        for r in range(args.repeats):
            for n, net in order:
                out = os.path.join(work, "run")
                shutil.rmtree(out, ignore_errors=True)
                cmd = [args.chessvar, "selfplay", "--variant", args.variant, "--games",
                       str(args.games), "--seed", str(args.seed), "--threads", "1", "--eval",
                       net, "--nodes", str(args.nodes), "--out", out, "--json", "--progress",
                       "0"]
                stdout, cpu = timed(cmd)
                res = result(stdout, cmd)
                runs[n].append({"cpu_seconds": round(cpu, 3), "search_nodes": res["search_nodes"],
                                "nodes_per_cpu_s": round(res["search_nodes"] / cpu)})
                log(f"{n} run {r + 1}: {runs[n][-1]['nodes_per_cpu_s']:,} nodes/CPU s")
        med = {n: sorted(x, key=lambda r: r["cpu_seconds"])[len(x) // 2] for n, x in runs.items()}
        base = med["v1"]["nodes_per_cpu_s"] if "v1" in med else None
        ship = med["shipped v1"]["nodes_per_cpu_s"]
        for row in rows:
            m = med[row["config"]]
            row["search_nodes_per_cpu_s"] = m["nodes_per_cpu_s"]
            row["search_runs"] = runs[row["config"]]
            if base:
                row["nps_over_trained_v1"] = round(m["nodes_per_cpu_s"] / base, 3)
            row["nps_over_shipped_v1"] = round(m["nodes_per_cpu_s"] / ship, 3)
        shipped_row = {"config": "shipped v1", "search_nodes_per_cpu_s": ship,
                       "search_runs": runs["shipped v1"]}
        if args.callgrind:
            by_name = {r["config"]: r for r in rows}
            for n, net in order:
                ipn = callgrind_per_node(args, net, work)
                log(f"{n}: {ipn:,.0f} instructions per search node (callgrind)")
                (by_name[n] if n in by_name else shipped_row)["callgrind_instr_per_node"] = ipn
            base_i = by_name["v1"]["callgrind_instr_per_node"] if "v1" in by_name else None
            for row in rows:
                if base_i:
                    row["callgrind_nps_over_v1"] = round(base_i / row["callgrind_instr_per_node"], 3)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for row in rows:
        print(f"{row['config']:38s} train {row['train_positions_per_cpu_s']:>9,} pos/CPU s | "
              f"refresh {row['refresh_ns']:7.1f} update {row['update_ns']:6.1f} eval "
              f"{row['evaluate_ns']:6.1f} ns | search {row['search_nodes_per_cpu_s']:>9,} "
              f"nodes/CPU s, x{row.get('nps_over_trained_v1', 0):.3f} of v1"
              + (f" | {row['callgrind_instr_per_node']:,.0f} instr/node, "
                 f"x{row.get('callgrind_nps_over_v1', 0):.3f}" if args.callgrind else ""))
    head, dirty = git_state(ROOT)
    record = {
        "what": "Training positions per CPU second (1 thread) and search nodes per CPU second "
                "(self-play, 1 thread) of version 1 and each version 2 configuration, nets "
                "trained the same way on the same data; ns per call of refresh, update after "
                "a quiet move and evaluation on 50 FENs (wall clock of a loaded machine: noisy); "
                "with --callgrind, instructions per search node of an x86-64-v3 build",
        "command": "python3 -m scripts.measure.nnue_v2_speed " + " ".join(sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
        "machine": machine_info(),
        "commit": (head or "")[:7],
        "sources_differ_from_commit": dirty,
        "variant": args.variant,
        "training_positions": args.positions,
        "hidden": args.hidden,
        "selfplay": {"games": args.games, "nodes": args.nodes, "seed": args.seed,
                     "repeats": args.repeats},
        "shipped": shipped_row,
        "rows": rows,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
