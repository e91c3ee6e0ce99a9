#!/usr/bin/env python3
"""What a network costs the search: nodes and positions per CPU second of self-play with
each variant's network against the same self-play with the classical evaluation, at the
variant's default node budget (issue 28's goal: the net's nodes per second at least 60% of
the classical evaluation's).

Each case is `chessvar selfplay --threads 1 --games G --seed S --eval EVAL` with selfplay's
default budget, options otherwise default; the classical and the network runs alternate,
each --repeats times, and the run with the median CPU time is reported (with every run's
figures). CPU seconds are the child's user + system time, start-up and network loading
included, so the figure depends little on how loaded the machine is. The games of the two
evaluations differ (their moves differ); nodes per second is the comparable figure,
positions per CPU second is what a data run sees.

  python3 -m scripts.measure.net_speed                  # every shipped net, results/net_speed.json
  python3 -m scripts.measure.net_speed --net chess=NET  # another net for a variant
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

from scripts.common import ROOT
from scripts.common.chessvar_run import run_timed
from scripts.common.measure_env import git_state, machine_info

VARIANTS = ["chess", "switching", "superchess", "supremo"]
# Games per run: about a second or more of CPU per run at the default budget.
GAMES = {"chess": 8, "switching": 8, "superchess": 4, "supremo": 2}
PLY_CAP = {"supremo": 120}
GOAL = 0.6


def log(msg):
    print(f"net_speed {time.strftime('%H:%M:%S')}: {msg}", file=sys.stderr, flush=True)


def one_run(binary, variant, evaluation, games, seed, workdir):
    out = os.path.join(workdir, "run")
    shutil.rmtree(out, ignore_errors=True)
    cmd = [binary, "selfplay", "--variant", variant, "--games", str(games), "--seed",
           str(seed), "--threads", "1", "--eval", evaluation, "--out", out, "--json"]
    if variant in PLY_CAP:
        cmd += ["--ply-cap", str(PLY_CAP[variant])]
    res, timing = run_timed(cmd)
    shutil.rmtree(out, ignore_errors=True)
    cpu = max(timing["cpu_seconds"], 1e-3)
    return {
        "cpu_seconds": round(cpu, 3),
        "search_nodes": res["search_nodes"],
        "positions": res["positions"],
        "nodes_per_cpu_s": round(res["search_nodes"] / cpu),
        "positions_per_cpu_s": round(res["positions"] / cpu, 1),
        "player": res.get("player_a", ""),
    }, cmd


def recorded(cmd, net_names):
    """The command as the record keeps it: chessvar by name, the run folder as DIR, a net
    by its name in the repository or its file name."""
    out = []
    for i, a in enumerate(cmd):
        if i == 0:
            out.append("chessvar")
        elif i > 0 and cmd[i - 1] == "--out":
            out.append("DIR")
        elif i > 0 and cmd[i - 1] == "--eval":
            out.append(net_names.get(a, a))
        else:
            out.append(a)
    return " ".join(out)


def median_run(runs):
    return sorted(runs, key=lambda r: r["cpu_seconds"])[len(runs) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chessvar", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--net", action="append", default=[],
                    help="VARIANT=FILE: the network of a variant (default: the shipped "
                         "selfplay/nets/VARIANT.nnue of every variant that has one)")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--games-scale", type=float, default=1.0,
                    help="multiply each variant's games per run (default 1)")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "net_speed.json"))
    args = ap.parse_args()

    if not os.access(args.chessvar, os.X_OK):
        sys.exit(f"net_speed: {args.chessvar}: not an executable chessvar (build first)")
    nets, net_names = {}, {}
    for v in args.variants.split(","):
        if v not in VARIANTS:
            sys.exit(f"net_speed: --variants: unknown variant '{v}' (one of {', '.join(VARIANTS)})")
        shipped = os.path.join(ROOT, "selfplay", "nets", f"{v}.nnue")
        if os.path.exists(shipped):
            nets[v] = shipped
            net_names[shipped] = f"selfplay/nets/{v}.nnue"
    for spec in args.net:
        v, sep, path = spec.partition("=")
        if not sep or v not in VARIANTS:
            sys.exit(f"net_speed: --net '{spec}': expected VARIANT=FILE with VARIANT one of "
                     f"{', '.join(VARIANTS)}")
        if not os.path.isfile(path):
            sys.exit(f"net_speed: --net '{spec}': no such file '{path}'")
        nets[v] = path
        net_names[path] = os.path.basename(path)
    nets = {v: nets[v] for v in args.variants.split(",") if v in nets}
    if not nets:
        sys.exit("net_speed: no variant has a network (give --net VARIANT=FILE)")

    rows = []
    workdir = tempfile.mkdtemp(prefix="net_speed.")
    try:
        for v, net in nets.items():
            games = max(1, round(GAMES[v] * args.games_scale))
            runs = {"classical": [], "net": []}
            cmds = {}
            for r in range(args.repeats):
                for kind, ev in (("classical", "classical"), ("net", net)):
                    fig, cmd = one_run(args.chessvar, v, ev, games, args.seed, workdir)
                    runs[kind].append(fig)
                    cmds[kind] = recorded(cmd, net_names)
                    log(f"{v} {kind} run {r + 1}/{args.repeats}: {fig['nodes_per_cpu_s']:,} "
                        f"nodes/CPU s, {fig['positions_per_cpu_s']:,} positions/CPU s")
            med = {k: median_run(x) for k, x in runs.items()}
            nps_ratio = med["net"]["nodes_per_cpu_s"] / med["classical"]["nodes_per_cpu_s"]
            pos_ratio = med["net"]["positions_per_cpu_s"] / med["classical"]["positions_per_cpu_s"]
            rows.append({
                "variant": v,
                "net": net_names[net],
                "games_per_run": games,
                "commands": cmds,
                "classical": med["classical"],
                "net_run": med["net"],
                "all_runs": runs,
                "net_over_classical_nodes_per_s": round(nps_ratio, 3),
                "net_over_classical_positions_per_s": round(pos_ratio, 3),
                "goal_nodes_per_s": GOAL,
                "reached": nps_ratio >= GOAL,
            })
            print(f"{v:10s} classical {med['classical']['nodes_per_cpu_s']:>10,} nodes/CPU s "
                  f"{med['classical']['positions_per_cpu_s']:>8,} pos/CPU s | net "
                  f"{med['net']['nodes_per_cpu_s']:>10,} nodes/CPU s "
                  f"{med['net']['positions_per_cpu_s']:>8,} pos/CPU s | nodes/s ratio "
                  f"{nps_ratio:.2f} (goal {GOAL})")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    head, dirty = git_state(ROOT)
    record = {
        "what": "Self-play nodes and positions per CPU second with each variant's network "
                "against the classical evaluation, default node budget, one thread; median "
                "of alternating runs",
        "command": "python3 -m scripts.measure.net_speed " + " ".join(
            a if not os.path.exists(a) else os.path.basename(a) for a in sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
        "machine": machine_info(),
        "commit": (head or "")[:7],
        "sources_differ_from_commit": dirty,
        "repeats": args.repeats,
        "seed": args.seed,
        "rows": rows,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
