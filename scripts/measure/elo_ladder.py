#!/usr/bin/env python3
"""Where chessvar's self-play player stands on a real scale: matches against Stockfish with
UCI_LimitStrength=true at UCI_Elo rungs (1350..2850) at a fixed time per move, and against
full-strength Fairy-Stockfish at equal time per move, all through
`chessvar selfplay --opponent uci:CMD`.

CPU is scarce, so rungs are chosen adaptively per chessvar budget: a short probe match at
a first guess, then full matches (--games each) at the rungs nearest to where chessvar
scores 50%, at most --max-rungs of them. Every match ran is recorded with its command,
games, score, Elo difference and 95% interval; results/elo_ladder.json also records the
machine and commit (scripts/common/measure_env.py), and a plot goes beside it.

    python3 -m scripts.measure.elo_ladder --budgets nodes=1000,nodes=10000,movetime=50
    python3 -m scripts.measure.elo_ladder --budgets movetime=50 --eval classical \
        --eval selfplay/nets/chess.nnue          # one ladder per evaluation and budget

Without --eval the player evaluates as `chessvar selfplay` does by default (the shipped
chess net); each ladder records the evaluation it played with.

The plot needs matplotlib: `bash scripts/setup.sh --measure` installs it.
"""

import argparse
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
import time

from scripts.common.system_python import require
from scripts.common.measure_env import git_state, machine_info  # noqa: E402

require("matplotlib")
from scripts.common.chessvar_run import result  # noqa: E402
from scripts.common.uci_engine import find_engine  # noqa: E402

from scripts.common import ROOT
RUNG_MIN, RUNG_MAX, RUNG_STEP = 1350, 2850, 100


def run_match(args, budget, engine, options, engine_budget, games, seed, log, evaluation=None):
    """Plays one match with chessvar selfplay (player A evaluating with `evaluation`, a net
    file or classical; None: selfplay's default); returns the summary dict plus the
    command."""
    with tempfile.TemporaryDirectory(prefix="elo_ladder_") as out:
        flag, value = budget.split("=")
        cmd = ["nice", "-n", str(args.nice), args.chessvar, "selfplay", "--variant", "chess",
               "--games", str(games), "--threads", str(args.threads), "--seed", str(seed),
               f"--{flag}", value, "--temperature", "0", "--random-plies",
               str(args.random_plies), "--opponent", f"uci:{engine}", "--opponent-budget",
               engine_budget, "--opponent-timeout", "20", "--format", "pgn", "--out", out,
               "--json", "--progress", "0", "--hash-bits", "18"]
        if evaluation:
            cmd += ["--eval", evaluation]
        for name, val in options:
            cmd += ["--opponent-option", f"{name}={val}"]
        t0 = time.time()
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if res.returncode != 0:
            raise RuntimeError(f"{shlex.join(cmd)} failed:\n{res.stderr}")
        summary = result(res.stdout)
        shown = [public(c, args, out) for c in cmd]
        summary["command"] = shlex.join(shown)
        summary["wall_seconds"] = round(time.time() - t0, 1)
        log(f"  {budget} {eval_name(evaluation)} vs {engine_budget} {dict(options)}: {games} games, "
            f"score {summary['a_score']:.3f} (+{summary['a_wins']} ={summary['a_draws']} "
            f"-{summary['a_losses']}), Elo {summary['elo']:+.0f} "
            f"[{summary['elo_95'][0]:+.0f}, {summary['elo_95'][1]:+.0f}], "
            f"{summary['wall_seconds']} s")
        return summary


def public(text, args, out):
    """A command word without this machine's paths: the data folder as OUT, the chessvar
    binary as build/chessvar, engines by their names."""
    if text.startswith(out):
        return "OUT"
    if text == args.chessvar:
        return "build/chessvar"
    if text.startswith("uci:"):
        return "uci:" + os.path.basename(text[4:])
    if text.endswith(".nnue") and os.path.isabs(text):
        rel = os.path.relpath(text, ROOT)
        return rel if not rel.startswith("..") else os.path.basename(text)
    return text


def eval_name(evaluation):
    """How a ladder names its evaluation: classical, a net's file name, or default."""
    if not evaluation:
        return "default"
    return "classical" if evaluation == "classical" else os.path.basename(evaluation)


def clamp_rung(x):
    """The ladder rung nearest to Elo x."""
    r = int(round((x - RUNG_MIN) / RUNG_STEP)) * RUNG_STEP + RUNG_MIN
    return max(RUNG_MIN, min(RUNG_MAX, r))


def ladder(args, budget, stockfish, log, evaluation=None):
    """Probe, then full matches at the rungs nearest chessvar's 50% point for one budget
    and evaluation."""
    sf_budget = f"movetime={args.sf_movetime}"
    rungs, probes = [], []
    guess = args.first_guess.get(budget, RUNG_MIN)
    seen = set()
    for _ in range(3):  # probes walk towards the 50% point
        rung = clamp_rung(guess)
        if rung in seen:
            break
        seen.add(rung)
        s = run_match(args, budget, stockfish,
                      [("Threads", 1), ("Hash", 16), ("UCI_LimitStrength", "true"),
                       ("UCI_Elo", rung)], sf_budget, args.probe_games, args.seed, log,
                      evaluation)
        s["rung"] = rung
        probes.append(s)
        guess = rung + max(-600, min(600, s["elo"]))
        if abs(s["elo"]) < RUNG_STEP:
            break
    guess = bracket_guess(probes, guess)
    target = clamp_rung(guess)
    chosen = [target]
    if args.max_rungs > 1:
        side = target + RUNG_STEP if guess >= target else target - RUNG_STEP
        if RUNG_MIN <= side <= RUNG_MAX:
            chosen.append(side)
    for rung in sorted(chosen)[: args.max_rungs]:
        s = run_match(args, budget, stockfish,
                      [("Threads", 1), ("Hash", 16), ("UCI_LimitStrength", "true"),
                       ("UCI_Elo", rung)], sf_budget, args.games, args.seed + 1, log,
                      evaluation)
        s["rung"] = rung
        rungs.append(s)
    return {"budget": budget, "eval": eval_name(evaluation), "stockfish_budget": sf_budget,
            "probes": probes, "rungs": rungs,
            "estimate": combine(rungs)}


def bracket_guess(probes, guess):
    """Where chessvar scores 50%: when the probes bracket it (a rung scored at least 50%
    and a higher one below), linear in score between the nearest such pair; else `guess`
    (the last probe's rung plus its Elo difference). One lopsided probe's difference is
    far off (a 15% score reads as -301 whatever the true gap), so a bracket wins."""
    above = [p for p in probes if p["a_score"] >= 0.5]
    below = [p for p in probes if p["a_score"] < 0.5]
    pairs = [(a, b) for a in above for b in below if b["rung"] > a["rung"]]
    if not pairs:
        return guess
    a, b = min(pairs, key=lambda ab: ab[1]["rung"] - ab[0]["rung"])
    frac = (a["a_score"] - 0.5) / max(a["a_score"] - b["a_score"], 1e-9)
    return a["rung"] + frac * (b["rung"] - a["rung"])


def combine(rungs):
    """Inverse-variance combination of rung + measured difference over the full matches;
    flags an estimate outside the rungs played (an extrapolation off the ladder)."""
    num = den = 0.0
    for s in rungs:
        lo, hi = s["elo_95"]
        if abs(s["elo"]) >= 9999 or hi - lo <= 0:
            continue
        w = 1.0 / ((hi - lo) / (2 * 1.96)) ** 2
        num += w * (s["rung"] + s["elo"])
        den += w
    if den == 0:
        return None
    half = 1.96 / math.sqrt(den)
    elo = num / den
    played = [s["rung"] for s in rungs]
    out = {"elo": round(elo), "ci95": [round(elo - half), round(elo + half)],
           "from_rungs": played}
    if elo < min(played) - RUNG_STEP / 2 or elo > max(played) + RUNG_STEP / 2:
        out["note"] = ("outside the rungs played: extrapolated from the Elo difference "
                       f"(the ladder spans {RUNG_MIN}..{RUNG_MAX})")
    return out


def ladder_name(lad):
    """A ladder's label: its budget, and its evaluation when one was chosen."""
    ev = lad.get("eval", "default")
    return lad["budget"] if ev == "default" else f"{lad['budget']} {ev}"


def plot(result, path):
    """Left: chessvar's score against each rung (95% interval), per budget; right: the
    combined Elo estimate per budget with its interval."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("elo_ladder: matplotlib is missing, no plot (python3-matplotlib)", file=sys.stderr)
        return
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [3, 2]})
    labels, est, lo, hi = [], [], [], []
    for i, lad in enumerate(result["ladders"]):
        for kind, games in (("probe", lad["probes"]), ("full", lad["rungs"])):
            for s in games:
                n = s["games"]
                sd = math.sqrt(max(s["a_score"] * (1 - s["a_score"]), 1e-9) / n)
                ax.errorbar([s["rung"] + (i - 1) * 8], [s["a_score"]], yerr=[[1.96 * sd], [1.96 * sd]],
                            fmt="o" if kind == "full" else "x", color=f"C{i}", capsize=3,
                            alpha=1.0 if kind == "full" else 0.4,
                            label=f"chessvar {ladder_name(lad)}" if kind == "full" and s is lad["rungs"][0]
                            else None)
        if lad["estimate"]:
            labels.append(ladder_name(lad).replace(" ", "\n") + ("\n(extrapolated)" if "note" in lad["estimate"] else ""))
            est.append(lad["estimate"]["elo"])
            lo.append(lad["estimate"]["elo"] - lad["estimate"]["ci95"][0])
            hi.append(lad["estimate"]["ci95"][1] - lad["estimate"]["elo"])
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_ylim(0, 1)
    ax.set_xlabel(f"Stockfish 15.1 UCI_Elo ({result['stockfish_movetime_ms']} ms/move)")
    ax.set_ylabel("chessvar score (95% interval)")
    ax.set_title("score per rung (o: full match, x: probe)")
    ax.legend(fontsize=8)
    bx.errorbar(range(len(est)), est, yerr=[lo, hi], fmt="o", capsize=4, color="k")
    bx.set_xticks(range(len(est)))
    bx.set_xticklabels(labels)
    bx.set_ylabel("Elo on the UCI_Elo scale (95% interval)")
    title = "chessvar's Elo"
    if result.get("fairy"):
        f = result["fairy"]
        title += (f"\nvs Fairy-Stockfish 11.1 at equal time: {f['a_score']:.1%} of {f['games']} games")
    bx.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chessvar", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--stockfish", default=None, help="Stockfish 15.1 binary")
    ap.add_argument("--fairy", default=None, help="Fairy-Stockfish binary ('' to skip)")
    ap.add_argument("--budgets", default="nodes=1000,nodes=10000,movetime=50",
                    help="chessvar budgets per move, comma-separated")
    ap.add_argument("--sf-movetime", type=int, default=50, help="Stockfish ms per move")
    ap.add_argument("--games", type=int, default=100, help="games per reported rung")
    ap.add_argument("--probe-games", type=int, default=20)
    ap.add_argument("--max-rungs", type=int, default=2)
    ap.add_argument("--fairy-games", type=int, default=100)
    ap.add_argument("--fairy-movetime", type=int, default=50)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--random-plies", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--eval", action="append", default=[], dest="evals",
                    help="chessvar's evaluation: a network file or classical (repeatable: "
                         "one ladder per evaluation and budget; default: selfplay's)")
    ap.add_argument("--guess", action="append", default=[],
                    help="first rung to probe for a budget, e.g. nodes=1000:1350")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "elo_ladder.json"))
    ap.add_argument("--plot", default=os.path.join(ROOT, "results", "plot_elo_ladder.png"))
    ap.add_argument("--replot", action="store_true",
                    help="only recombine the estimates and redraw the plot of the --out file")
    args = ap.parse_args()
    if args.replot:  # recombine the estimates, rewrite the file, redraw
        with open(args.out, encoding="utf-8") as fh:
            result = json.load(fh)
        for lad in result["ladders"]:
            lad["estimate"] = combine(lad["rungs"])
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1)
            fh.write("\n")
        plot(result, args.plot)
        return
    args.first_guess = {g.rsplit(":", 1)[0]: int(g.rsplit(":", 1)[1]) for g in args.guess}
    stockfish = find_engine(args.stockfish)
    commit, dirty = git_state(ROOT, ("engine", "selfplay", "cli", "CMakeLists.txt"))
    result = {"what": "chessvar selfplay player vs Stockfish 15.1 (UCI_LimitStrength) and "
                      "Fairy-Stockfish, chess, paired openings (4 random plies, colours "
                      "swapped), chessvar temperature 0",
              "machine": machine_info(), "commit": commit, "sources_modified": dirty,
              "stockfish": os.path.basename(stockfish), "stockfish_movetime_ms": args.sf_movetime,
              "games_per_rung": args.games, "probe_games": args.probe_games,
              "script": "python3 -m scripts.measure.elo_ladder " + shlex.join(
                  public(a, args, "\0") for a in sys.argv[1:]),
              "ladders": [], "fairy": None}

    def log(msg):
        print(msg, flush=True)

    def save():
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1)
            fh.write("\n")
        plot(result, args.plot)

    for evaluation in args.evals or [None]:
        if evaluation not in (None, "classical") and not os.path.isfile(evaluation):
            sys.exit(f"elo_ladder: --eval {evaluation}: no such network file")
    for evaluation in args.evals or [None]:
        for budget in args.budgets.split(","):
            if not budget:
                continue
            log(f"ladder for chessvar {budget} {eval_name(evaluation)}")
            result["ladders"].append(ladder(args, budget, stockfish, log, evaluation))
            save()
    if args.fairy != "":
        fairy = find_engine(args.fairy, ("fairy-stockfish",))
        log("chessvar vs Fairy-Stockfish at equal time per move")
        s = run_match(args, f"movetime={args.fairy_movetime}", fairy,
                      [("Threads", 1), ("Hash", 16)], f"movetime={args.fairy_movetime}",
                      args.fairy_games, args.seed, log)
        result["fairy"] = s
    result["machine"]["loadavg_at_end"] = list(os.getloadavg())
    save()


if __name__ == "__main__":
    main()
