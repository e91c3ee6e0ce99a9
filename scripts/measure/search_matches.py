#!/usr/bin/env python3
"""Strength matches of the self-play search, written to results/search_matches.json and
results/plot_search_matches.png.

Two kinds, both played by `chessvar selfplay` (one thread, niced, paired openings: every
opening is played with both colours):
  old   the new search (player A, in-process) against an old build through UCI
        (`--opponent uci:OLD uci`) at equal time per move (--movetime MS), both with a
        transposition table of 2^16 entries (`--hash-bits 16`, `Hash=1`): with the UCI
        default (16 MB) the engine searches about a quarter fewer nodes per second, and the
        same build scored 59.9% (Elo +70 [+39, +101]) against itself through UCI;
  depth the new search at depth N+2 against itself at depth N.
Sampling is off (--temperature 0: both players play their best move; the openings differ by
the 4 random plies, each played with both colours). The old build is made by the caller (see selfplay/README.md, Measuring); its path is an
argument, nothing is built here. Every match's command line is recorded."""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from scripts.common.system_python import require
from scripts.common.measure_env import git_state, machine_info  # noqa: E402

require("matplotlib")

from scripts.common import ROOT
# Both players of an old-vs-new match get a table of 2^16 16-byte entries: the in-process
# player by --hash-bits, the UCI one by its Hash option in MB.
EQUAL_TABLES = ["--hash-bits", "16", "--opponent-option", "Hash=1"]
SUMMARY = re.compile(r"A scored ([\d.]+)% \(\+(\d+) =(\d+) -(\d+)\), Elo ([+-]?\d+), "
                     r"95% interval \[([+-]?\d+), ([+-]?\d+)\]")



def recorded_command(cmd, outdir):
    """The command as results record it: the program by name, the output folder as DIR, an
    old build given by path (`uci:PATH uci`) as OLD."""
    def word(i, a):
        if a == outdir:
            return "DIR"
        if i == 1:
            return os.path.basename(a)
        if a.startswith("uci:/"):
            return "uci:OLD" + a[len("uci:") + len(a[4:].split(" ")[0]):]
        return a
    return " ".join(word(i, a) for i, a in enumerate(cmd))

def run_match(binary, variant, games, seed, extra, threads=1):
    """Plays one match and returns its parsed summary plus the command."""
    with tempfile.TemporaryDirectory() as out:
        cmd = ["nice", binary, "selfplay", "--variant", variant, "--games", str(games),
               "--threads", str(threads), "--seed", str(seed), "--paired", "--temperature", "0", "--out",
               os.path.join(out, "d")] + extra
        t0 = time.time()
        cpu0 = os.times()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        cpu1 = os.times()
        m = SUMMARY.search(proc.stdout + proc.stderr)
        if not m:
            sys.exit(f"no match summary from {' '.join(cmd)}:\n{proc.stdout}{proc.stderr}")
        term = re.search(r"termination: (.*)", proc.stdout)
        return {"variant": variant, "games": games, "score_pct": float(m.group(1)),
                "wins": int(m.group(2)), "draws": int(m.group(3)), "losses": int(m.group(4)),
                "elo": int(m.group(5)), "elo_lo": int(m.group(6)), "elo_hi": int(m.group(7)),
                "terminations": term.group(1) if term else None,
                "wall_s": round(time.time() - t0, 1),
                "cpu_s": round(cpu1.children_user + cpu1.children_system
                               - cpu0.children_user - cpu0.children_system, 1),
                "command": recorded_command(cmd, os.path.join(out, "d"))}


def plot(results, path):
    """Elo with 95% intervals per match."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = results["matches"]
    fig, ax = plt.subplots(figsize=(8, 0.5 + 0.45 * len(rows)))
    for i, r in enumerate(rows):
        lo, hi = max(r["elo_lo"], -1000), min(r["elo_hi"], 1000)
        ax.plot([lo, hi], [i, i], color="tab:blue")
        ax.plot(r["elo"], i, "o", color="tab:blue")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f'{r["kind"]} {r["label"]} {r["variant"]}' for r in rows], fontsize=8)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlabel("Elo of player A (95% interval, clipped to +-1000)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--old", help="old chessvar binary (UCI) for the old-vs-new matches")
    ap.add_argument("--variants", default="chess,switching,superchess,supremo")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--movetime", type=int, default=25, help="ms per move, old-vs-new")
    ap.add_argument("--nodes", type=int, default=0,
                    help="old-vs-new at N nodes per move for the new search and N * ratio for "
                         "the old (equal CPU time when ratio is the old/new nodes per CPU second)")
    ap.add_argument("--ratios", default="",
                    help="variant=old/new nodes-per-CPU-second ratio, comma-separated (default 1)")
    ap.add_argument("--no-movetime", action="store_true", help="skip the --movetime matches")
    ap.add_argument("--threads", type=int, default=1, help="games played at once")
    ap.add_argument("--depths", default="", help="N pairs for depth N+2 vs N, e.g. 2,4")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "search_matches.json"))
    a = ap.parse_args()
    results = {"machine": machine_info(), "commit": git_state(ROOT)[0], "matches": []}
    if os.path.exists(a.out):  # keep matches of earlier runs not repeated now
        with open(a.out, encoding="utf-8") as fh:
            results["matches"] = json.load(fh).get("matches", [])
    todo = []
    ratios = {k: float(x) for k, x in (r.split("=") for r in a.ratios.split(",") if r)}
    for v in a.variants.split(","):
        if a.old and not a.no_movetime:
            todo.append(("old", f"movetime={a.movetime}", v,
                         ["--movetime", str(a.movetime), "--opponent", f"uci:{a.old} uci"]
                         + EQUAL_TABLES))
        if a.old and a.nodes:
            old_nodes = round(a.nodes * ratios.get(v, 1.0))
            todo.append(("old", f"nodes={a.nodes}v{old_nodes}", v,
                         ["--nodes", str(a.nodes), "--opponent", f"uci:{a.old} uci",
                          "--opponent-budget", f"nodes={old_nodes}"] + EQUAL_TABLES))
        for n in [int(x) for x in a.depths.split(",") if x]:
            todo.append(("depth", f"{n + 2}v{n}", v,
                         ["--depth", str(n + 2), "--opponent", f"depth={n}"]))
    for kind, label, v, extra in todo:
        r = run_match(a.binary, v, a.games, a.seed, extra, a.threads)
        r.update(kind=kind, label=label, commit=results["commit"])
        results["matches"] = [m for m in results["matches"]
                              if (m["kind"], m["label"], m["variant"]) != (kind, label, v)]
        results["matches"].append(r)
        print(json.dumps(r), flush=True)
        with open(a.out, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=1)
    plot(results, os.path.join(os.path.dirname(a.out), "plot_search_matches.png"))


if __name__ == "__main__":
    main()
