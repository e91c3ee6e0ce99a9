#!/usr/bin/env python3
"""Measures the self-play player and writes results/selfplay_*.json:

- selfplay_throughput.json: positions/s and search nodes/s at 1000 nodes per move on 1 and
  2 threads for every variant (with the CPU time used, since the machine may be shared, and
  a model of the 2-thread speed-up on idle cores: the dynamic schedule's balance over the
  games actually played times the measured CPU efficiency),
  beside the perft speed of the same binary: bulk-counted leaves/s and generator calls/s
  (positions whose moves perft generated or counted), to show what the search adds;
- selfplay_strength.json: the player against a random mover (100 games per variant, equal
  colours) and a deeper budget against a shallower one.

Every number comes from `chessvar selfplay --json` / `chessvar perft --json` runs made by
this script; the exact command lines are stored beside the numbers.
Usage: python3 -m scripts.measure.selfplay_bench [--binary build/chessvar] [--only throughput|strength]
                         [--variants chess,switching,...] [--quick]
"""
import argparse
import json
import math
import os
import sys
import tempfile
import time

from scripts.common.measure_env import machine_info  # noqa: E402
from scripts.common.chessvar_run import run_timed  # noqa: E402

from scripts.common import ROOT
VARIANTS = ["chess", "switching", "superchess", "supremo"]
# games per throughput run: enough that the last game's tail is small against the run
THROUGHPUT_GAMES = {"chess": 128, "switching": 128, "superchess": 96, "supremo": 96}
PERFT_DEPTH = {"chess": 6, "switching": 5, "superchess": 4, "supremo": 3}
DEEPER = {"chess": (2000, 500, 100), "switching": (2000, 500, 100), "superchess": (2000, 500, 100),
          "supremo": (2000, 500, 100)}


def run_json(cmd):
    """Runs cmd and returns its last stdout line parsed as JSON, with the CPU seconds the
    process used (user + system) as "cpu_seconds"."""
    res, timing = run_timed(cmd)
    res["cpu_seconds"] = timing["cpu_seconds"]
    # waits (locks, I/O) versus preemption by other processes
    res["voluntary_switches"] = timing["voluntary_switches"]
    res["involuntary_switches"] = timing["involuntary_switches"]
    return res


def selfplay(binary, variant, extra, inspect=None):
    """One selfplay run in a fresh folder; returns (command, summary), the summary with
    the CPU seconds the run used (user + system) added. inspect(folder), if given, looks
    at the output before it is removed; its result is the summary's "inspect"."""
    with tempfile.TemporaryDirectory() as d:
        cmd = [binary, "selfplay", "--variant", variant, "--out", os.path.join(d, "run"), "--progress", "0",
               "--json"] + extra
        res = run_json(cmd)
        if inspect:
            res["inspect"] = inspect(os.path.join(d, "run"))
    cmd[cmd.index("--out") + 1] = "OUT"
    return " ".join(cmd[1:]), res


def searched_per_game(folder):
    """Searched (non-random) positions per game, in game order, from the JSONL shards."""
    counts = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".jsonl"):
            with open(os.path.join(folder, name)) as f:
                for line in f:
                    rec = json.loads(line)
                    counts[rec["game"]] = counts.get(rec["game"], 0) + (0 if rec["random"] else 1)
    return [counts[g] for g in sorted(counts)]


def modelled_speedup(costs, workers):
    """Speed-up of handing games out in order to the first free worker (the OpenMP
    dynamic schedule) on idle cores, each game costing its searched positions (fixed
    nodes per move): total work over the busiest worker's work."""
    free = [0] * workers
    for c in costs:
        i = free.index(min(free))
        free[i] += c
    return round(sum(costs) / max(free), 3) if costs and max(free) else None


def per_cpu(count, cpu, startup):
    """count per CPU second, the process start-up (engine tables) taken out."""
    busy = cpu - startup
    return round(count / busy, 1) if busy > 0 else None


def throughput(binary, variants, quick):
    """Wall-clock rates show what a user gets on this machine now; per-CPU-second rates
    (start-up subtracted) are what the code does per core, whatever else is running."""
    rows = []
    for v in variants:
        games = max(8, THROUGHPUT_GAMES[v] // (4 if quick else 1))
        startup = min(run_json([binary, "perft", "--variant", v, "--depth", "1", "--threads", "1", "--json",
                                "--quiet"])["cpu_seconds"] for _ in range(3))
        row = {"variant": v, "nodes_per_move": 1000, "games": games, "startup_cpu_seconds": round(startup, 3)}
        for t in (1, 2):
            # the 2-thread run also writes JSONL, read for the schedule model (the 1-thread
            # run writes it too, so both do the same work)
            cmd, r = selfplay(binary, v, ["--games", str(games), "--nodes", "1000", "--threads", str(t),
                                          "--seed", "11", "--format", "bin,jsonl"],
                              inspect=searched_per_game if t == 2 else None)
            row[f"threads_{t}"] = {"command": cmd, "seconds": r["seconds"], "positions": r["positions_this_run"],
                                   "positions_per_second": r["positions_per_second"],
                                   "search_nodes_per_second": r["nodes_per_second"],
                                   "process_cpu_seconds": round(r["cpu_seconds"], 3),
                                   "positions_per_cpu_second": per_cpu(r["positions_this_run"], r["cpu_seconds"],
                                                                       startup),
                                   "search_nodes_per_cpu_second": per_cpu(r["search_nodes"], r["cpu_seconds"],
                                                                          startup),
                                   "voluntary_context_switches": r["voluntary_switches"],
                                   "involuntary_context_switches": r["involuntary_switches"]}
            # the games themselves (identical for both thread counts)
            row["games_summary"] = {k: r[k] for k in ("avg_plies", "white_score", "duplicate_rate", "termination")}
            if t == 2:
                model = modelled_speedup(r["inspect"], 2)
                row["modelled_schedule_speedup_2_threads"] = model
        t1, t2 = row["threads_1"], row["threads_2"]
        # flat copies for plots and tables
        row["positions_per_second_1_thread"] = t1["positions_per_second"]
        row["positions_per_second_2_threads"] = t2["positions_per_second"]
        row["speedup_2_threads"] = round(t2["positions_per_second"] / t1["positions_per_second"], 3)
        # share of two cores the 2-thread run got: below 1 when other work shares the machine
        row["cpu_share_2_threads"] = round(t2["process_cpu_seconds"] / (2 * t2["seconds"]), 3)
        # work efficiency: 1.0 means two threads do the same work with no extra CPU time
        if t1["positions_per_cpu_second"] and t2["positions_per_cpu_second"]:
            row["cpu_efficiency_2_threads"] = round(t2["positions_per_cpu_second"] / t1["positions_per_cpu_second"], 3)
            # what two idle cores would give: the schedule's balance times the CPU efficiency
            if row["modelled_schedule_speedup_2_threads"]:
                row["expected_speedup_2_idle_cores"] = round(row["modelled_schedule_speedup_2_threads"] *
                                                             row["cpu_efficiency_2_threads"], 3)
        d = PERFT_DEPTH[v]
        leaves = run_json([binary, "perft", "--variant", v, "--depth", str(d), "--threads", "1", "--json",
                           "--quiet"])
        gen_calls = sum(run_json([binary, "perft", "--variant", v, "--depth", str(k), "--threads", "1", "--json",
                                  "--quiet"])["nodes"] for k in range(1, d)) + 1
        row["perft_1_thread"] = {"command": f"perft --variant {v} --depth {d} --threads 1", "leaves": leaves["nodes"],
                                 "seconds": leaves["seconds"], "leaves_per_second": leaves["nps"],
                                 "process_cpu_seconds": round(leaves["cpu_seconds"], 3),
                                 "leaves_per_cpu_second": per_cpu(leaves["nodes"], leaves["cpu_seconds"], startup),
                                 "generator_calls": gen_calls,
                                 "generator_calls_per_cpu_second": per_cpu(gen_calls, leaves["cpu_seconds"], startup)}
        g = row["perft_1_thread"]["generator_calls_per_cpu_second"]
        sn = t1["search_nodes_per_cpu_second"]
        # below 1: a search node costs more than one perft generator call (evaluation,
        # ordering, check tests, quiescence filtering)
        row["search_nodes_vs_perft_generator_calls"] = round(sn / g, 3) if g and sn else None
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def score_interval(a_score, games):
    """95% normal-approximation interval of a mean score in [0, 1] (per game variance
    bounded by 1/4)."""
    half = 1.96 * math.sqrt(0.25 / games)
    return [round(max(0.0, a_score - half), 3), round(min(1.0, a_score + half), 3)]


def strength(binary, variants, quick):
    rows = []
    for v in variants:
        games = 20 if quick else 100
        cmd, r = selfplay(binary, v, ["--games", str(games), "--nodes", "1000", "--opponent", "random",
                                      "--seed", "21"])
        rows.append({"test": "vs_random", "variant": v, "command": cmd, "games": r["games"],
                     "a_score": r["a_score"], "target": 0.95, "pass": r["a_score"] >= 0.95,
                     "termination": r["termination"], "avg_plies": r["avg_plies"]})
        print(json.dumps(rows[-1]), flush=True)
        deep, shallow, games = DEEPER[v]
        games = 20 if quick else games
        cmd, r = selfplay(binary, v, ["--games", str(games), "--nodes", str(deep), "--opponent",
                                      f"nodes={shallow}", "--resign", "1000,4", "--ply-cap", "400", "--seed", "31"])
        rows.append({"test": "deeper_vs_shallower", "variant": v, "command": cmd, "games": r["games"],
                     "player_a": r["player_a"], "player_b": r["player_b"], "a_score": r["a_score"],
                     "a_score_95": score_interval(r["a_score"], r["games"]), "pass": r["a_score"] > 0.5,
                     "white_score_counts": r["white_score_counts"], "termination": r["termination"],
                     "avg_plies": r["avg_plies"]})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--only", choices=["throughput", "strength"])
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--quick", action="store_true", help="fewer games (a smoke test, not a measurement)")
    args = ap.parse_args()
    variants = args.variants.split(",")
    os.makedirs(os.path.join(ROOT, "results"), exist_ok=True)
    jobs = [("throughput", throughput), ("strength", strength)]
    for name, fn in jobs:
        if args.only and args.only != name:
            continue
        start = time.time()
        rows = fn(args.binary, variants, args.quick)
        doc = {"what": f"chessvar selfplay {name}", "script": "scripts/measure/selfplay_bench.py", "quick": args.quick,
               "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": machine_info(),
               "wall_seconds": round(time.time() - start, 1), "rows": rows}
        path = os.path.join(ROOT, "results", f"selfplay_{name}{'_quick' if args.quick else ''}.json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
