#!/usr/bin/env python3
"""Measures the chain format (selfplay/FORMAT.md) on the default self-play run of each
variant (`chessvar selfplay --variant V --format bin,chain`, every other option at its
default): bytes per position of chain and bin, and of the chain's fields in a plain byte
layout (`chessvar data layout`) and of the bin shards compressed by zstd -19 (the general
compressor the chain coder has to beat); chain decoding speed into the trainer's records
(`chessvar data speed`, one core, `--speed-repeat` passes; with `--baseline OTHER` the
same timed for another chessvar in alternating runs, and the ratio; `--baseline-runs` gives
it the same games in a chain version it reads); trainer throughput on the same positions as chain and as
bin (`chessvar train`, default network, one training thread beside its loader thread,
alternating runs, medians of positions per CPU second of the child and per wall second); and `chessvar data rescore` positions per CPU second at 1,000 and
10,000 nodes on a small sample (a 4-game chain run per variant), and at 1,000 nodes under
`mpirun -np 2` (one thread a rank) with its output compared to one process's. Writes JSON,
with issue 42's goals (size, decode speed, trainer chain/bin) marked met or not.

usage: python3 -m scripts.measure.chain_data CHESSVAR OUT.json [--work DIR] [--runs DIR]
           [--variants chess,switching,superchess,supremo] [--train-positions 1000000]
           [--repeats 3] [--shuffle 65536] [--speed-repeat 50] [--baseline CHESSVAR]
           [--baseline-runs DIR]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

from scripts.common import ROOT
from scripts.common.measure_env import git_state, machine_info
from scripts.measure.measure_trainer import timed
from scripts.measure.perft_speed import build_flags


def size_of(paths):
    return sum(os.path.getsize(p) for p in paths)


def shards(d, ext):
    return sorted(os.path.join(d, n) for n in os.listdir(d)
                  if n.startswith("shard-") and n.endswith("." + ext) and not n.endswith(".sf.bin"))


def zstd_size(paths, work):
    """Bytes of the files compressed by zstd -19, each on its own."""
    total = 0
    for p in paths:
        out = os.path.join(work, "z.zst")
        subprocess.run(["zstd", "-q", "-19", "-f", p, "-o", out], check=True)
        total += os.path.getsize(out)
    return total


def same_files(a, b):
    """Whether folders a and b hold the same file names with the same bytes."""
    names = sorted(os.listdir(a))
    if names != sorted(os.listdir(b)):
        return False
    for n in names:
        with open(os.path.join(a, n), "rb") as fa, open(os.path.join(b, n), "rb") as fb:
            if fa.read() != fb.read():
                return False
    return True


def goals(rows):
    """Issue 42's goals against the rows measured: bytes per position (<= 2.0 chess, <= 3.0
    every variant), decoding (>= 10M positions per CPU second, chess), trainer chain/bin
    (>= 0.95 per CPU second, every variant); each with the figure and whether it is met."""
    out = []
    for r in rows:
        v = r["variant"]
        size = 2.0 if v == "chess" else 3.0
        out.append({"variant": v, "goal": f"chain bytes per position <= {size}",
                    "value": r["chain_bytes_per_position"],
                    "met": r["chain_bytes_per_position"] <= size})
        if v == "chess":
            out.append({"variant": v, "goal": "decode >= 10M positions per CPU second",
                        "value": r["decode_positions_per_cpu_second"],
                        "met": r["decode_positions_per_cpu_second"] >= 10e6})
        if "train_chain_over_bin" in r:
            out.append({"variant": v, "goal": "trainer chain/bin >= 0.95 (CPU)",
                        "value": r["train_chain_over_bin"],
                        "met": r["train_chain_over_bin"] >= 0.95})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("chessvar")
    ap.add_argument("out")
    ap.add_argument("--work", default="chain_data_work")
    ap.add_argument("--runs", help="folder of existing default runs (one subfolder per variant)")
    ap.add_argument("--variants", default="chess,switching,superchess,supremo")
    ap.add_argument("--train-positions", type=int, default=1000000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--shuffle", type=int, default=65536,
                    help="the trainer's shuffle buffer: small beside --train-positions, so the "
                         "buffer's first fill (every position read once more) weighs little, "
                         "as in a long training run")
    ap.add_argument("--speed-repeat", type=int, default=50,
                    help="passes of `data speed` over a run (a default run decodes in "
                         "milliseconds: one pass is below the clock's resolution)")
    ap.add_argument("--baseline", help="another chessvar whose decoding is timed beside")
    ap.add_argument("--baseline-runs",
                    help="the same runs' chains in a version the baseline reads (one subfolder "
                         "per variant; default the runs themselves), e.g. `chessvar data "
                         "convert --from bin --to chain` by the baseline")
    args = ap.parse_args()
    machine = machine_info()  # the load before the measurements
    cv = os.path.abspath(args.chessvar)
    os.makedirs(args.work, exist_ok=True)
    rows = []
    for v in args.variants.split(","):
        run = os.path.join(args.runs or args.work, v)
        cmd_run = [cv, "selfplay", "--variant", v, "--out", run, "--format", "bin,chain",
                   "--progress", "0"]
        if not os.path.isdir(run):
            timed(cmd_run)
        stats = json.loads(timed([cv, "data", "stats", "--in", run])[0])
        n = stats["positions"]
        layout = os.path.join(args.work, v + ".layout")
        with open(layout, "wb") as f:
            subprocess.run([cv, "data", "layout", "--in", run], stdout=f, check=True)
        row = {"variant": v, "run": f"chessvar selfplay --variant {v} --format bin,chain",
               "games": stats["games"], "positions": n,
               "chain_bytes_per_position": size_of(shards(run, "chain")) / n,
               "bin_bytes_per_position": size_of(shards(run, "bin")) / n,
               "layout_bytes_per_position": os.path.getsize(layout) / n,
               "layout_zstd19_bytes_per_position": zstd_size([layout], args.work) / n,
               "bin_zstd19_bytes_per_position": zstd_size(shards(run, "bin"), args.work) / n}
        rep = ["data", "speed", "--in", run, "--repeat", str(args.speed_repeat)]
        cpu_rates, wall_rates, base_rates = [], [], []
        for _ in range(args.repeats):
            speed = json.loads(timed([cv] + rep)[0])
            cpu_rates.append(speed["positions_per_cpu_second"])
            wall_rates.append(speed["positions_per_second"])
            if args.baseline:
                brun = os.path.join(args.baseline_runs, v) if args.baseline_runs else run
                base = json.loads(timed([os.path.abspath(args.baseline), "data", "speed", "--in",
                                         brun, "--repeat", str(args.speed_repeat)])[0])
                if base["positions"] != speed["positions"]:
                    sys.exit(f"{brun}: {base['positions']} positions, {run} {speed['positions']}")
                base_rates.append(base["positions_per_cpu_second"])
        row["decode_positions_per_second"] = statistics.median(wall_rates)
        row["decode_positions_per_cpu_second"] = statistics.median(cpu_rates)
        if args.baseline:
            row["decode_baseline_positions_per_cpu_second"] = statistics.median(base_rates)
            row["decode_over_baseline"] = (row["decode_positions_per_cpu_second"] /
                                           row["decode_baseline_positions_per_cpu_second"])
        # the trainer on the same positions: a folder of the bin shards, one of the chains
        folders = {}
        for ext in ("bin", "chain"):
            d = os.path.join(args.work, f"{v}_{ext}")
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            for p in shards(run, ext):
                shutil.copy(p, d)
            folders[ext] = d
        rates, walls = {"bin": [], "chain": []}, {"bin": [], "chain": []}
        for _ in range(args.repeats):
            for ext in ("bin", "chain"):
                net = os.path.join(args.work, "m.nnue")
                _, wall, cpu = timed([cv, "train", "--data", folders[ext], "--out", net,
                                      "--positions", str(args.train_positions), "--threads", "1",
                                      "--shuffle", str(args.shuffle),
                                      "--progress", "0"])
                rates[ext].append(args.train_positions / cpu)
                walls[ext].append(args.train_positions / wall)
        row["train_positions_per_cpu_second"] = {k: statistics.median(x) for k, x in rates.items()}
        row["train_positions_per_second"] = {k: statistics.median(x) for k, x in walls.items()}
        row["train_chain_over_bin_wall"] = (row["train_positions_per_second"]["chain"] /
                                            row["train_positions_per_second"]["bin"])
        row["train_chain_over_bin"] = (row["train_positions_per_cpu_second"]["chain"] /
                                       row["train_positions_per_cpu_second"]["bin"])
        sample = os.path.join(args.work, v + "_sample")
        if not os.path.isdir(sample):
            timed([cv, "selfplay", "--variant", v, "--games", "4", "--seed", "9", "--out", sample,
                   "--format", "chain", "--progress", "0"])
        row["rescore"] = []
        for nodes in (1000, 10000):
            dst = os.path.join(args.work, f"{v}_rescored_{nodes}")
            shutil.rmtree(dst, ignore_errors=True)
            out = json.loads(timed([cv, "data", "rescore", "--in", sample, "--out", dst,
                                    "--nodes", str(nodes), "--progress", "0"])[0])
            row["rescore"].append({"nodes": nodes, "positions": out["positions"],
                                   "threads": out["threads"],
                                   "positions_per_cpu_second": out["positions_per_cpu_second"]})
        mpirun = shutil.which("mpirun")
        if mpirun:  # the same 1,000-node rescore on two ranks, one thread each
            dst = os.path.join(args.work, f"{v}_rescored_1000_mpi")
            shutil.rmtree(dst, ignore_errors=True)
            env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
            out = json.loads(timed([mpirun, "--oversubscribe", "-np", "2", cv, "data", "rescore",
                                    "--in", sample, "--out", dst, "--nodes", "1000",
                                    "--threads", "1", "--progress", "0"], env)[0])
            row["rescore_mpi"] = {
                "command": "mpirun --oversubscribe -np 2 chessvar data rescore --nodes 1000 "
                           "--threads 1", "ranks": out["ranks"], "positions": out["positions"],
                "positions_per_cpu_second": out["positions_per_cpu_second"],
                "same_files_as_one_process": same_files(
                    dst, os.path.join(args.work, f"{v}_rescored_1000"))}
        print(json.dumps(row), file=sys.stderr)
        rows.append(row)
    doc = {"what": "chain format: size, decode speed, trainer throughput, rescore speed",
           "command": "python3 -m scripts.measure.chain_data " + " ".join(sys.argv[1:]),
           "train_positions": args.train_positions, "repeats": args.repeats,
           "shuffle": args.shuffle, "speed_repeat": args.speed_repeat,
           "baseline": args.baseline, "baseline_runs": args.baseline_runs,
           "machine": machine, "loadavg_at_end": list(os.getloadavg()),
           "build": build_flags(cv),
           "commit": git_state(ROOT)[0],
           "dirty": git_state(ROOT)[1], "rows": rows, "goals": goals(rows)}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
