#!/usr/bin/env python3
"""Search margins against the defaults, one margin at a time, by match: `chessvar match`
between two `chessvar uci` engines of the same build, one with a margin option set
(RFPMargin, FutilityMargin, ...: cli/README.md), the other with the defaults, both
evaluating with the variant's shipped network, at equal time per move, paired openings from
the variant's book (each played with both colours), stopped by an SPRT on the game pairs
or at --games. Each candidate's result is added to the record (default
results/margin_tune_<variant>.json) with its command; a candidate already in the record is
not played again.

usage: python3 -m scripts.measure.margin_sprt build/chessvar --variant chess \\
           --candidate RFPMargin=60 --candidate RFPMargin=100 --work DIR"""

import argparse
import json
import os
import shlex
import subprocess
import sys

from scripts.common import ROOT
from scripts.common.measure_env import git_state, machine_info


def spin_options(cv):
    """The engine's spin options, name -> (min, max), from its answer to `uci`."""
    out = subprocess.run([cv, "uci"], input="uci\nquit\n", capture_output=True, text=True).stdout
    opts = {}
    for line in out.splitlines():
        w = line.split()
        if w[:2] == ["option", "name"] and "type" in w and w[w.index("type") + 1] == "spin":
            opts[w[2]] = (int(w[w.index("min") + 1]), int(w[w.index("max") + 1]))
    return opts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("chessvar")
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--candidate", action="append", required=True,
                    help="NAME=VALUE: a UCI margin option for player A (repeatable: one "
                         "match each, in order)")
    ap.add_argument("--games", type=int, default=400, help="the most games of a match")
    ap.add_argument("--sprt", default="0,10", help="ELO0,ELO1 of the stopping test")
    ap.add_argument("--movetime", type=int, default=20)
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", required=True, help="folder for the matches' games")
    ap.add_argument("--out", help="the record (default results/margin_tune_<variant>.json)")
    args = ap.parse_args()
    out = args.out or os.path.join(ROOT, "results", f"margin_tune_{args.variant}.json")
    cv = os.path.abspath(args.chessvar)
    book = os.path.join("selfplay", "books", f"{args.variant}.epd")
    if os.path.exists(out):
        with open(out) as f:
            doc = json.load(f)
    else:
        doc = {"what": "search margins against the defaults by SPRT (scripts/measure/"
                       "margin_sprt.py): player A has the margin set, player B the defaults; "
                       "both chessvar uci of one build with the shipped network",
               "variant": args.variant, "rows": []}
    # a name the engine does not know would only be an `info string error`, and the match
    # would pit the defaults against themselves: every candidate is checked first
    opts = spin_options(cv)
    for cand in args.candidate:
        name, _, value = cand.partition("=")
        if not value or not value.lstrip("-").isdigit():
            sys.exit(f"margin_sprt: --candidate '{cand}': needs NAME=WHOLE_NUMBER")
        if name not in opts:
            sys.exit(f"margin_sprt: --candidate '{cand}': {args.chessvar} uci has no spin option "
                     f"'{name}' (it has {', '.join(sorted(opts))})")
        lo, hi = opts[name]
        if not lo <= int(value) <= hi:
            sys.exit(f"margin_sprt: --candidate '{cand}': {name} takes {lo} to {hi}")
    for cand in args.candidate:
        name, _, value = cand.partition("=")
        if any(r["candidate"] == cand for r in doc["rows"]):
            print(f"margin_sprt: {cand} is in {out} already", file=sys.stderr)
            continue
        folder = os.path.join(args.work, f"{args.variant}_{name}_{value}")
        cmd = [cv, "match", "--variant", args.variant,
               "--engine", f"cmd={cv} uci;name={name}{value};option.{name}={value}",
               "--engine", f"cmd={cv} uci;name=default",
               "--movetime", str(args.movetime), "--games", str(args.games),
               "--sprt", args.sprt, "--concurrency", str(args.concurrency),
               "--book", os.path.join(ROOT, book), "--seed", str(args.seed),
               "--out", folder, "--json", "--progress", "60"]
        if os.path.isdir(folder):
            cmd.append("--resume")
        machine = machine_info()
        # the checkout's state when the match starts, the binary's then: a match runs for
        # hours, and the checkout may move on under it
        commit = git_state(ROOT)
        res = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        if res.returncode != 0:
            sys.exit(f"margin_sprt: {cand}: chessvar match exited {res.returncode}")
        summary = json.loads(res.stdout.strip().splitlines()[-1])
        recorded = shlex.join(["chessvar"] + [a.replace(cv, "chessvar").replace(folder, "DIR")
                                              .replace(ROOT + "/", "") for a in cmd[1:]])
        doc["rows"].append({"candidate": cand, "command": recorded, "machine": machine,
                            "commit": commit, "result": summary})
        with open(out + ".tmp", "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(out + ".tmp", out)
        s = summary
        print(f"margin_sprt: {cand}: {s['games']} games, Elo pairs {s['elo_pairs']:+.1f} "
              f"[{s['elo_pairs_95'][0]:+.1f}, {s['elo_pairs_95'][1]:+.1f}], SPRT "
              f"{s['sprt']['decision']} (LLR {s['sprt']['llr']:.2f})", file=sys.stderr)


if __name__ == "__main__":
    main()
