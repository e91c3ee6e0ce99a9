#!/usr/bin/env python3
"""Carries on an SPRT that reached its game cap undecided, as fishtest extends a test: more
game pairs of the same two players under the same conditions, in chunks with new opening
seeds (so no opening pair repeats the earlier match's draw), their pentanomial counts added
to the earlier ones, and the GSPRT's LLR (`chessvar sprt --pairs`) computed on the sum
after each chunk, until it decides or --max-games more were played. The earlier counts come
from the record of the stopped match. Writes one JSON record with every chunk's command and
counts.

usage: python3 -m scripts.measure.sprt_extend build/chessvar --pairs 15,23,103,30,29 \\
           --sprt 0,25 --seed0 8 --work DIR --out results/X.json -- \\
           selfplay --variant switching --paired --temperature 0 --movetime 20 --threads 2 \\
           --eval A.nnue --opponent-eval B.nnue --book selfplay/books/switching.epd"""

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys

from scripts.common.measure_env import git_state, machine_info
from scripts.common import ROOT


def sprt(cv, spec, pairs):
    out = subprocess.run([cv, "sprt", "--sprt", spec, "--pairs", ",".join(map(str, pairs)),
                          "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"sprt_extend: chessvar sprt failed: {out.stderr.strip()}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("chessvar")
    ap.add_argument("--pairs", required=True, help="the stopped match's LL,LD,DD,DW,WW")
    ap.add_argument("--sprt", required=True, help="its ELO0,ELO1[,ALPHA,BETA]")
    ap.add_argument("--chunk", type=int, default=100, help="games per chunk (even)")
    ap.add_argument("--max-games", type=int, default=600, help="the most games added")
    ap.add_argument("--seed0", type=int, required=True,
                    help="the first chunk's seed (then +1 a chunk); not the stopped match's")
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.epilog = ("after '--': the chessvar command of one chunk without --games, --seed, --out "
                 "(a paired selfplay or a match, which print --json)")
    argv = sys.argv[1:]
    if "--" not in argv:
        ap.error("give the chunk's chessvar command after '--'")
    cut = argv.index("--")
    args = ap.parse_args(argv[:cut])
    base = argv[cut + 1:]
    if not base:
        ap.error("no chessvar command after '--'")
    cv = os.path.abspath(args.chessvar)
    try:
        pairs0 = [int(x) for x in args.pairs.split(",")]
    except ValueError:
        pairs0 = []
    if len(pairs0) != 5 or min(pairs0) < 0:
        sys.exit(f"sprt_extend: --pairs '{args.pairs}': needs five counts LL,LD,DD,DW,WW")
    total = list(pairs0)
    doc = {"what": "an SPRT carried on past its cap (scripts/measure/sprt_extend.py)",
           "sprt": args.sprt, "earlier_pairs": pairs0, "machine": machine_info(),
           "commit": git_state(ROOT), "chunks": []}
    state = sprt(cv, args.sprt, total)
    doc["earlier"] = state
    if state["decision"] != "none":
        sys.exit(f"sprt_extend: --pairs {args.pairs} already decide {state['decision']} "
                 f"(LLR {state['llr']:.3f}): nothing to carry on")
    played, seed = 0, args.seed0
    while state["decision"] == "none" and played < args.max_games:
        folder = os.path.join(args.work, f"chunk_seed{seed}")
        cmd = [cv] + base + ["--games", str(args.chunk), "--seed", str(seed), "--out", folder,
                             "--json", "--progress", "0"]
        if os.path.isdir(folder):
            cmd.append("--resume")
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        res = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime
        if res.returncode != 0:
            sys.exit(f"sprt_extend: chunk seed {seed} exited {res.returncode}")
        summary = json.loads(res.stdout.strip().splitlines()[-1])
        pent = summary["pentanomial"]
        total = [a + b for a, b in zip(total, pent)]
        state = sprt(cv, args.sprt, total)
        played += summary["games"]
        doc["chunks"].append({"command": shlex.join(["chessvar"] + [
            a.replace(folder, "DIR").replace(ROOT + "/", "") for a in cmd[1:]]),
            "games": summary["games"], "pentanomial": pent, "elo": summary.get("elo"),
            "cpu_s": round(cpu, 1), "llr_after": state["llr"]})
        print(f"sprt_extend: seed {seed}: +{summary['games']} games, pairs {total}, LLR "
              f"{state['llr']:.3f}, {state['decision']}", file=sys.stderr)
        seed += 1
        doc["pairs"] = total
        doc["result"] = state
        doc["games_added"] = played
        with open(args.out + ".tmp", "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(args.out + ".tmp", args.out)


if __name__ == "__main__":
    main()
