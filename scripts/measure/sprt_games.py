#!/usr/bin/env python3
"""Games an SPRT needs to decide the network loop's own decisions, by simulation.

The loop (scripts/flywheel.py) judged each net against its predecessor by a fixed match
of 400 games. The generations so far (results/flywheel_*.json, vs_previous) gained +12 to
+120 Elo with their own win/draw/loss rates. For each candidate pair of bounds [elo0,
elo1] at alpha = beta = 0.05, this runs `chessvar sprt --simulate` (seeded pentanomial
outcomes of independent games at that Elo and draw rate, fed to the same C code that
decides real matches) for every one of those decisions, capped at 400 games as the loop
caps it, and records per decision how often H1 was accepted, H0, or the cap was reached
(and how often it was reached at a score of at most one half), and the mean games with
its standard error; then the mean over the loop's decisions. Also the uncapped games of
[0,25], and the simulated error rates at elo0 and elo1.

The cost of a pair of bounds is the rate at which the loop would have rejected its own
past generations, every one of which gained on its predecessor: H0 accepted, or the cap
reached with an Elo of at most 0 (flywheel.py's accepted() rejects both). The bounds
chosen are those with elo0 >= 0 (so an equal net is still accepted by H1 at most alpha of the
time) whose mean games over the decisions is at most GOAL, with the least cost; the
record says so in "chosen".

  python3 -m scripts.measure.sprt_games [--chessvar build/chessvar] [--runs 8000] [--jobs 2]
writes results/sprt_games.json.
"""
import argparse
import glob
import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from scripts.common import ROOT

RES = os.path.join(ROOT, "results")
CAP = 400  # the games of today's fixed match, and the loop's cap on an SPRT
GOAL = CAP // 2  # the goal: on average at most half the games of the fixed match
BOUNDS = [(0, 25), (0, 30), (0, 35), (0, 40), (0, 41), (0, 42), (0, 43), (0, 45), (0, 50),
          (5, 40), (5, 45), (10, 40), (10, 45), (-10, 30), (-10, 40)]


def loop_decisions():
    """(file, net, Elo, draw rate) of every net matched against its predecessor."""
    out = []
    for path in sorted(glob.glob(os.path.join(RES, "flywheel_*.json"))):
        rec = json.load(open(path))
        for g in rec.get("generations", []):
            v = g.get("vs_previous")
            if v and v.get("games"):
                out.append({"record": os.path.basename(path), "net": g["net"],
                            "elo": v["elo"], "draws": v["a_draws"] / v["games"],
                            "games": v["games"]})
    return out


def simulate(chessvar, bounds, elo, draws, runs, max_pairs, seed):
    """One `chessvar sprt --simulate` run; returns its JSON."""
    argv = [chessvar, "sprt", "--sprt", f"{bounds[0]},{bounds[1]}", "--simulate", f"{elo:.2f}",
            "--draws", f"{draws:.4f}", "--runs", str(runs), "--max-pairs", str(max_pairs),
            "--seed", str(seed), "--json"]
    r = subprocess.run(argv, capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chessvar", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--runs", type=int, default=8000, help="simulated tests per point")
    ap.add_argument("--jobs", type=int, default=2, help="simulations at once")
    ap.add_argument("--out", default=os.path.join(RES, "sprt_games.json"))
    a = ap.parse_args()
    decisions = loop_decisions()
    if not decisions:
        sys.exit("sprt_games: no vs_previous match in results/flywheel_*.json")
    rows = []
    pool = ThreadPoolExecutor(max_workers=a.jobs)
    for b in BOUNDS:
        sims = [pool.submit(simulate, a.chessvar, b, d["elo"], d["draws"], a.runs, CAP // 2, 1 + k)
                for k, d in enumerate(decisions)]
        errs = [pool.submit(simulate, a.chessvar, b, e, 0.1, a.runs, 100000, 101 + i)
                for i, e in enumerate(b)]
        equal = pool.submit(simulate, a.chessvar, b, 0, 0.1, a.runs, CAP // 2, 103)
        per = []
        for d, f in zip(decisions, sims):
            s = f.result()
            per.append(dict(d, h1=s["h1"] / a.runs, h0=s["h0"] / a.runs,
                            capped=s["undecided"] / a.runs,
                            capped_elo_le_0=s["undecided_low"] / a.runs,
                            rejected=(s["h0"] + s["undecided_low"]) / a.runs,
                            mean_games=s["mean_games"],
                            mean_games_se=s["sd_games"] / math.sqrt(a.runs)))
        err0, err1, eq = errs[0].result(), errs[1].result(), equal.result()
        n = len(per)
        rows.append({"elo0": b[0], "elo1": b[1],
                     "mean_games_over_decisions": sum(p["mean_games"] for p in per) / n,
                     "mean_games_se": math.sqrt(sum(p["mean_games_se"] ** 2 for p in per)) / n,
                     "h1_rate_over_decisions": sum(p["h1"] for p in per) / n,
                     "h0_rate_over_decisions": sum(p["h0"] for p in per) / n,
                     "rejection_rate_over_decisions": sum(p["rejected"] for p in per) / n,
                     "alpha_simulated": err0["h1"] / a.runs,
                     "beta_simulated": err1["h0"] / a.runs,
                     "equal_net_accepted_capped": (eq["h1"] + eq["undecided"]
                                                   - eq["undecided_low"]) / a.runs,
                     "equal_net_h1": eq["h1"] / a.runs,
                     "decisions": per})
        r = rows[-1]
        print(f"[{b[0]},{b[1]}]: mean {r['mean_games_over_decisions']:.1f} "
              f"(se {r['mean_games_se']:.2f}) games over {n} decisions (cap {CAP}), "
              f"H1 {r['h1_rate_over_decisions']:.1%}, H0 {r['h0_rate_over_decisions']:.1%}, "
              f"rejected {r['rejection_rate_over_decisions']:.2%}; alpha {r['alpha_simulated']:.3f}"
              f" beta {r['beta_simulated']:.3f}, equal net accepted "
              f"{r['equal_net_accepted_capped']:.3f}", file=sys.stderr)
    uncapped = [dict(elo=e, **{k: v for k, v in simulate(a.chessvar, (0, 25), e, 0.3, a.runs,
                                                          100000, 200 + e).items()
                               if k in ("h1", "h0", "mean_games", "median_games",
                                        "p90_games")})
                for e in (12, 30, 50, 100, 120)]
    fit = [r for r in rows if r["elo0"] >= 0 and r["mean_games_over_decisions"] <= GOAL]
    best = min(fit, key=lambda r: r["rejection_rate_over_decisions"]) if fit else None
    chosen = None
    if best:
        chosen = {"elo0": best["elo0"], "elo1": best["elo1"],
                  "mean_games_over_decisions": best["mean_games_over_decisions"],
                  "mean_games_se": best["mean_games_se"],
                  "rejection_rate_over_decisions": best["rejection_rate_over_decisions"],
                  "rule": f"of the bounds with elo0 >= 0 whose mean games over the loop's "
                          f"decisions is at most {GOAL} (half the fixed match), the one that "
                          f"would reject the loop's past generations least often (H0, or the "
                          f"cap at an Elo of at most 0)",
                  "others_within_goal": [[r["elo0"], r["elo1"]] for r in fit if r is not best]}
    rec = {"what": "games an SPRT at alpha = beta = 0.05 needs for the network loop's own "
                   "decisions (net against its predecessor), simulated; capped at 400 games "
                   "as the loop caps it",
           "command": "python3 -m scripts.measure.sprt_games --runs " + str(a.runs),
           "model": "pairs of two independent games at the decision's Elo and draw rate "
                    "(the rest split so the score is logistic); seeded; the same C code "
                    "(chessvar sprt --simulate) decides real matches",
           "cost": "rejection_rate: how often a past generation (each gained on its "
                   "predecessor) would be rejected: H0 accepted, or the cap reached at an Elo "
                   "of at most 0; equal_net_accepted_capped: how often a net equal to its "
                   "predecessor would be accepted within the cap (H1, or the cap at an Elo "
                   "above 0); equal_net_h1: how often by H1 alone",
           "goal_games": GOAL, "chosen": chosen,
           "cap_games": CAP, "runs_per_point": a.runs, "decisions": decisions,
           "bounds": rows, "uncapped_0_25_draws_0.3": uncapped}
    with open(a.out, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
