#!/usr/bin/env python3
"""Self-play speed of the search: positions per CPU second at fixed depths (default options
otherwise, temperature on) and the average completed depth at the default node budget, per
variant. Writes results/search_speed.json and results/plot_search_speed.png.

Each run is `chessvar selfplay --threads 1` with a ply cap (so deep runs stay affordable on a
shared machine: 80 plies on 8x8, 40 and depth 4 only on Supremo's 10x10); CPU seconds are
the child's user+system time (10 ms ticks), so the figures depend little on how loaded the
machine is; each case runs --repeats times (the games are identical) and the run with the
median CPU time is reported, with every run's CPU time. Depth comes from the JSONL records
(searched moves only)."""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from scripts.common.system_python import require
from scripts.common.measure_env import git_state, machine_info  # noqa: E402

require("matplotlib")

from scripts.common import ROOT
VARIANTS = ["chess", "switching", "superchess", "supremo"]



def recorded_command(cmd, outdir):
    """The command as results record it: the program by name, the output folder as DIR."""
    return " ".join("DIR" if a == outdir else os.path.basename(a) if i == 1 else a
                    for i, a in enumerate(cmd))

def run(binary, variant, budget, games, ply_cap, seed, repeats=1):
    """The same self-play run `repeats` times (identical games: node and depth budgets are
    deterministic); the figures of the run with the median CPU time, and every CPU time."""
    rows = sorted((run_once(binary, variant, budget, games, ply_cap, seed)
                   for _ in range(repeats)), key=lambda r: r["cpu_s"])
    r = rows[len(rows) // 2]
    r["cpu_s_runs"] = sorted(x["cpu_s"] for x in rows)
    return r


def run_once(binary, variant, budget, games, ply_cap, seed):
    """One self-play run; returns positions, searched positions, nodes, CPU s and mean depth."""
    with tempfile.TemporaryDirectory() as out:
        cmd = ["nice", binary, "selfplay", "--variant", variant, "--games", str(games),
               "--threads", "1", "--seed", str(seed), "--ply-cap", str(ply_cap),
               "--format", "jsonl", "--progress", "0"] + budget + ["--out", os.path.join(out, "d")]
        before = os.times()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        after = os.times()
        cpu = (after.children_user + after.children_system
               - before.children_user - before.children_system)
        rows = [json.loads(line) for f in sorted(glob.glob(os.path.join(out, "d", "*.jsonl")))
                for line in open(f, encoding="utf-8")]
        m = re.search(r"speed: (\d+) positions in ([\d.]+) s = \d+ positions/s, (\d+) search",
                      proc.stdout)
        nodes = int(m.group(3)) * float(m.group(2)) if m else None
        depths = [r["depth"] for r in rows if r.get("depth")]
        return {"variant": variant, "budget": " ".join(budget), "games": games,
                "ply_cap": ply_cap, "positions": len(rows), "searched": len(depths),
                "cpu_s": round(cpu, 3),
                "positions_per_cpu_s": round(len(rows) / cpu, 1) if cpu > 0 else None,
                "nodes_per_searched_position": round(nodes / len(depths)) if nodes and depths
                else None,
                "mean_depth": round(sum(depths) / len(depths), 2) if depths else None,
                "command": recorded_command(cmd, os.path.join(out, "d"))}


def plot(res, path):
    """Positions per CPU second per variant and depth (log scale)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    for v in VARIANTS:
        pts = [(int(r["budget"].split()[1]), r["positions_per_cpu_s"]) for r in res["fixed_depth"]
               if r["variant"] == v]
        if pts:
            ax.plot(*zip(*pts), "o-", label=v)
    ax.axhline(1000, color="grey", ls="--", lw=0.8, label="goal (chess depth 6)")
    ax.set_yscale("log")
    ax.set_xlabel("fixed search depth")
    ax.set_ylabel("positions per CPU second")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--depths", default="4,6,8")
    ap.add_argument("--games", type=int, default=16,
                    help="games per case on 8x8 (half at depth 8); 16 makes a sample of about "
                         "1200 positions, where the start-up's tables and allocations (about "
                         "0.05 CPU s) no longer weigh")
    ap.add_argument("--games-wide", type=int, default=4,
                    help="games per case on boards larger than 8x8 (half at fixed depth)")
    ap.add_argument("--ply-cap", type=int, default=80)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3,
                    help="runs of each case; the median CPU time is reported")
    ap.add_argument("--ply-cap-wide", type=int, default=40,
                    help="ply cap on boards larger than 8x8 (Supremo searches are dear)")
    ap.add_argument("--depths-wide", default="4", help="fixed depths on boards larger than 8x8")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "search_speed.json"))
    a = ap.parse_args()
    res = {"machine": machine_info(), "commit": git_state(ROOT)[0], "repeats": a.repeats,
           "fixed_depth": [], "default_budget": []}
    for v in a.variants.split(","):
        wide = v == "supremo"
        cap, depths = (a.ply_cap_wide, a.depths_wide) if wide else (a.ply_cap, a.depths)
        res["default_budget"].append(run(a.binary, v, [], a.games_wide if wide else a.games,
                                         cap, a.seed, a.repeats))
        print(json.dumps(res["default_budget"][-1]), flush=True)
        for d in [int(x) for x in depths.split(",")]:
            games = (max(1, a.games_wide // 2) if wide else
                     a.games if d < 8 else max(1, a.games // 2))
            res["fixed_depth"].append(run(a.binary, v, ["--depth", str(d)], games, cap, a.seed,
                                          a.repeats))
            print(json.dumps(res["fixed_depth"][-1]), flush=True)
            with open(a.out, "w", encoding="utf-8") as fh:
                json.dump(res, fh, indent=1)
    plot(res, os.path.join(os.path.dirname(a.out), "plot_search_speed.png"))


if __name__ == "__main__":
    main()
