#!/usr/bin/env python3
"""Tuned against untuned evaluation: `chessvar selfplay` matches at equal nodes per move,
the tuned build in-process (player A) against an untuned build through UCI, paired
openings, one thread, niced. Writes results/eval_tune_matches.json and
results/plot_eval_tune_matches.png; a variant keeps its fitted parameters only when the
tuned side scores above 50% with the 95% interval above 0 Elo (docs/tuning.md: the loop).

    eval_match.py --tuned BUILD/chessvar --untuned OLD/chessvar [--variants chess,...]
                  [--games 200] [--nodes 1000]

Both binaries are built by the caller (the untuned one from the commit before the fit
was compiled in); nothing is built here."""

import argparse
import json
import os
import sys

from scripts.common.system_python import require
from scripts.common.measure_env import git_state, machine_info  # noqa: E402

require("matplotlib")
from scripts.measure.search_matches import run_match  # noqa: E402

from scripts.common import ROOT


def plot(rows, path):
    """Elo of the tuned evaluation with its 95% interval, per variant."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 0.8 + 0.5 * len(rows)))
    for i, r in enumerate(rows):
        lo, hi = max(r["elo_lo"], -1000), min(r["elo_hi"], 1000)
        col = "tab:green" if r["keep"] else "tab:red"
        ax.plot([lo, hi], [i, i], color=col)
        ax.plot(r["elo"], i, "o", color=col)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f'{r["variant"]} ({r["games"]} games, {r["nodes"]} nodes)' for r in rows],
                       fontsize=8)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("Elo of the tuned evaluation against the untuned (95% interval)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tuned", required=True)
    ap.add_argument("--untuned", required=True)
    ap.add_argument("--variants", default="chess,switching,superchess,supremo")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "eval_tune_matches.json"))
    a = ap.parse_args()
    results = {"machine": machine_info(), "commit": git_state(ROOT)[0], "matches": []}
    if os.path.exists(a.out):  # keep the variants not played again now
        with open(a.out, encoding="utf-8") as fh:
            results["matches"] = json.load(fh).get("matches", [])
    for v in a.variants.split(","):
        # temperature 0: the UCI side always plays its best move, so player A must too
        extra = ["--nodes", str(a.nodes), "--temperature", "0", "--opponent", f"uci:{a.untuned} uci",
                 "--opponent-budget", f"nodes={a.nodes}"]
        r = run_match(a.tuned, v, a.games, a.seed, extra)
        # the command as run (the out folder as DIR, the binaries by role)
        r["command"] = " ".join(["nice", "TUNED", "selfplay", "--variant", v, "--games",
                                 str(a.games), "--threads", "1", "--seed", str(a.seed),
                                 "--paired", "--out", "DIR"] + extra).replace(a.untuned, "UNTUNED")
        r.update(nodes=a.nodes, keep=r["score_pct"] > 50 and r["elo_lo"] > 0)
        results["matches"] = [m for m in results["matches"] if m["variant"] != v] + [r]
        print(json.dumps(r), flush=True)
        with open(a.out, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=1)
    plot(results["matches"], os.path.join(os.path.dirname(a.out), "plot_eval_tune_matches.png"))


if __name__ == "__main__":
    main()
