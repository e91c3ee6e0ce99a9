#!/usr/bin/env python3
"""One real use of the SPRT: the shipped network of each variant (selfplay/nets/) against
the classical evaluation, same search, same node budget per move, paired openings
(temperature 0, 4 random plies), `chessvar selfplay --sprt` stopping at its decision
(at most --max-games). Records each match's summary (pentanomial, LLR, bounds, decision,
Elo with its intervals), its CPU time and the command.

  python3 -m scripts.measure.sprt_net_vs_classical [--sprt 0,25] [--variants chess,...]
writes results/sprt_net_vs_classical.json.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile

from scripts.common import ROOT

RES = os.path.join(ROOT, "results")
VARIANTS = ["chess", "switching", "superchess", "supremo"]


def cpu_children():
    """CPU seconds used by finished children so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chessvar", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--sprt", default="0,25")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--max-games", type=int, default=400)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(RES, "sprt_net_vs_classical.json"))
    a = ap.parse_args()
    matches = []
    with tempfile.TemporaryDirectory(prefix="sprt_net_") as tmp:
        for v in a.variants.split(","):
            argv = [a.chessvar, "selfplay", "--variant", v, "--opponent-eval", "classical",
                    "--sprt", a.sprt, "--games", str(a.max_games), "--temperature", "0",
                    "--threads", str(a.threads), "--seed", "7", "--out", os.path.join(tmp, v),
                    "--json", "--progress", "30"]
            t0 = cpu_children()
            r = subprocess.run(argv, stdout=subprocess.PIPE, text=True, check=True)
            s = json.loads(r.stdout.strip().splitlines()[-1])
            cmd = " ".join(["chessvar"] + argv[1:]).replace(os.path.join(tmp, v), "$OUT")
            matches.append({"variant": v, "command": cmd, "cpu_s": round(cpu_children() - t0, 1),
                            **{k: s[k] for k in ("player_a", "player_b", "games", "a_score",
                                                 "a_wins", "a_draws", "a_losses", "elo",
                                                 "elo_95", "pentanomial", "elo_pairs_95",
                                                 "sprt")}})
            m = matches[-1]
            print(f"{v}: {m['sprt']['decision']} after {m['games']} games, LLR "
                  f"{m['sprt']['llr']:.2f}, Elo {m['elo']:+.0f} {m['elo_pairs_95']}, "
                  f"{m['cpu_s']:.0f} CPU s", file=sys.stderr)
    rec = {"what": "SPRT of each variant's shipped network against the classical evaluation "
                   "(same search and node budget, paired openings)",
           "command": "python3 -m scripts.measure.sprt_net_vs_classical --sprt " + a.sprt +
                      " --variants " + a.variants, "matches": matches}
    with open(a.out, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    print(f"wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
