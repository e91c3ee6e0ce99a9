#!/usr/bin/env python3
"""ctest: `chessvar sprt` (selfplay/match/sprt.c) against an independent computation.

1. The LLR of fixed pair counts equals one computed here by a different method: the
   constrained maximum of the log-likelihood found numerically (scipy SLSQP over the
   probabilities of the 5 pair scores, the mean score, or the normalized t, held by an
   equality constraint), not by the secular equation the C code solves. Within 1e-6
   relative, for logistic and normalized Elo. The Elo interval is checked the same way.
2. Simulated tests (seeded pentanomial outcomes fed to the same C code) at Elo = elo0
   accept H1 at most alpha of the time, and at Elo = elo1 accept H0 at most beta, within
   3 standard deviations of a binomial rate over the runs (runs = 3000: 3 sd = 1.2% at
   5%), and at a gap far beyond elo1 they accept H1 almost always.
3. `selfplay --sprt` stops a match between a strong and a weak player at the decision
   (H1 when A is the strong one, H0 when it is the weak one), the summary's LLR is the
   one `chessvar sprt` computes from the summary's own pair counts, the pair counts add up
   to the games, --resume of a decided match plays nothing more, and a fixed-length paired
   run reports the pentanomial and its Elo interval.

usage: sprt_test.py CHESSVAR"""

import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.optimize import minimize

from uci_session import check

CHESSVAR = sys.argv[1]
EPS = 1e-3  # fishtest's regularisation of an empty pentanomial class
NELO_PER_T = 800 / math.log(10)


def sprt(*args):
    """Runs chessvar sprt with --json; returns the parsed line."""
    res = subprocess.run([CHESSVAR, "sprt", "--json", *args], capture_output=True, text=True,
                         check=False)
    check(res.returncode == 0, f"chessvar sprt {args}: {res.stderr}")
    return json.loads(res.stdout)


def loglik_max(p, constraint):
    """max sum p log q over the simplex with constraint(q) = 0, by SLSQP on q itself."""
    a = np.arange(5) / 4
    cons = [{"type": "eq", "fun": lambda q: q.sum() - 1},
            {"type": "eq", "fun": lambda q: constraint(q, a)}]
    res = minimize(lambda q: -(p * np.log(q)).sum(), p.copy(), jac=lambda q: -p / q,
                   method="SLSQP", constraints=cons, bounds=[(1e-12, 1)] * 5,
                   options={"ftol": 1e-16, "maxiter": 2000})
    check(res.success, f"SLSQP did not converge: {res.message}")
    check(abs(res.x.sum() - 1) < 1e-9 and abs(constraint(res.x, a)) < 1e-9,
          f"SLSQP left the constraint: {res.x}")
    return (p * np.log(res.x)).sum()


def llr_reference(counts, elo0, elo1, normalized):
    """The GSPRT LLR of pentanomial counts computed by numerical constrained maximisation."""
    w = np.array([c if c else EPS for c in counts], dtype=float)
    n = w.sum()
    p = w / n

    def mean_is(s):
        return lambda q, a: (q * a).sum() - s

    def t_is(t):  # a pair's (mean - 1/2) / sd is sqrt(2) times a game's t
        def f(q, a):
            mu = (q * a).sum()
            return mu - 0.5 - math.sqrt(2) * t * math.sqrt((q * (a - mu) ** 2).sum())
        return f

    if normalized:
        c0, c1 = t_is(elo0 / NELO_PER_T), t_is(elo1 / NELO_PER_T)
    else:
        c0 = mean_is(1 / (1 + 10 ** (-elo0 / 400)))
        c1 = mean_is(1 / (1 + 10 ** (-elo1 / 400)))
    return n * (loglik_max(p, c1) - loglik_max(p, c0))


def main():
    cases = [  # counts, elo0, elo1
        ([461, 3404, 7178, 3750, 466], 0, 10),
        ([461, 3404, 7178, 3750, 466], -1.75, 0.25),
        ([12, 40, 80, 55, 13], 0, 25),
        ([3, 10, 20, 30, 37], 0, 25),  # a strong engine: the LLR is large
        ([0, 4, 9, 5, 2], 0, 25),      # an empty class: regularised
        ([30, 20, 10, 5, 1], -10, 10),
    ]
    for counts, e0, e1 in cases:
        for normalized in (False, True):
            args = ["--sprt", f"{e0},{e1}", "--pairs", ",".join(map(str, counts))]
            out = sprt(*args, *(["--normalized"] if normalized else []))
            ref = llr_reference(counts, e0, e1, normalized)
            rel = abs(out["llr"] - ref) / max(abs(ref), 1e-300)
            check(rel < 1e-6, f"LLR {counts} [{e0},{e1}] normalized={normalized}: "
                  f"C {out['llr']:.12g}, reference {ref:.12g}, relative {rel:.2e}")
            print(f"ok   LLR {counts} [{e0},{e1}] {'normalized' if normalized else 'logistic'}:"
                  f" {out['llr']:.9f} vs {ref:.9f} (relative {rel:.1e})")
        # the Elo and its interval from the variance of the pair scores (no regularisation)
        a = np.arange(5) / 4
        q = np.array(counts, dtype=float) / sum(counts)
        mu, var = (q * a).sum(), (q * (a - (q * a).sum()) ** 2).sum()
        se = math.sqrt(var / sum(counts))
        elo = [-400 * math.log10(1 / s - 1) for s in (mu, mu - 1.959964 * se, mu + 1.959964 * se)]
        out = sprt("--sprt", f"{e0},{e1}", "--pairs", ",".join(map(str, counts)))
        check(abs(out["elo"] - elo[0]) < 2e-3 and abs(out["elo_95"][0] - elo[1]) < 2e-3
              and abs(out["elo_95"][1] - elo[2]) < 2e-3,
              f"Elo and interval of {counts}: {out['elo']} {out['elo_95']} vs {elo}")
        lo, hi = math.log(0.05 / 0.95), math.log(0.95 / 0.05)
        check(abs(out["lower"] - lo) < 1e-9 and abs(out["upper"] - hi) < 1e-9,
              f"bounds {out['lower']} {out['upper']}")
        want = "H1" if out["llr"] >= hi else "H0" if out["llr"] <= lo else "none"
        check(out["decision"] == want, f"decision {out['decision']} at LLR {out['llr']}")

    runs = 3000
    for elo, name, bound in ((0, "alpha", 0.05), (50, "beta", 0.05)):
        sim = sprt("--sprt", "0,50", "--simulate", str(elo), "--runs", str(runs), "--seed", "7")
        wrong = sim["h1"] if elo == 0 else sim["h0"]
        tol = 3 * math.sqrt(bound * (1 - bound) / runs)
        rate = wrong / runs
        check(sim["undecided"] == 0 and rate <= bound + tol,
              f"simulated error rate at {elo} Elo: {rate:.4f} > {name} {bound} + {tol:.4f}: {sim}")
        check(rate > 0.005, f"at {elo} Elo the wrong decision never came: {sim}")
        print(f"ok   simulated at {elo:+} Elo ([0,50], {runs} runs): wrong decision {rate:.2%}"
              f" (<= {name} {bound:.0%} + {tol:.2%}), {sim['mean_games']:.0f} games on average")
    sim = sprt("--sprt", "0,50", "--simulate", "150", "--runs", "500")
    check(sim["h1"] == 500, f"+150 Elo accepted H1 every time: {sim}")
    with tempfile.TemporaryDirectory(prefix="sprt_test_") as tmp:
        for nodes, opponent, want in (("300", "random", "H1"), ("20", "nodes=1500", "H0")):
            out = os.path.join(tmp, want)
            argv = [CHESSVAR, "selfplay", "--variant", "chess", "--games", "400", "--threads",
                    "2", "--nodes", nodes, "--opponent", opponent, "--sprt", "0,50",
                    "--shard-games", "2", "--out", out, "--json", "--progress", "0"]
            res = subprocess.run(argv, capture_output=True, text=True, check=False)
            check(res.returncode == 0, f"selfplay --sprt: {res.stderr}")
            s = json.loads(res.stdout)
            t = s["sprt"]
            check(t["decision"] == want and t["stopped"] and s["games"] < 400
                  and sum(s["pentanomial"]) * 2 == s["games"] == t["pairs"] * 2,
                  f"--sprt 0,50 nodes={nodes} vs {opponent}: {want} before 400 games: {s}")
            again = sprt("--sprt", "0,50", "--pairs", ",".join(map(str, s["pentanomial"])))
            check(abs(again["llr"] - t["llr"]) < 1e-3 and again["decision"] == want,
                  f"the summary's LLR is that of its counts: {t} {again}")
            res = subprocess.run(argv + ["--resume"], capture_output=True, text=True, check=False)
            r = json.loads(res.stdout)
            check(res.returncode == 0 and r["games_this_run"] == 0 and r["sprt"] == t,
                  f"--resume of a decided match plays nothing: {r}")
            print(f"ok   selfplay --sprt 0,50 nodes={nodes} vs {opponent}: {want} after "
                  f"{s['games']} games, LLR {t['llr']}")
        res = subprocess.run([CHESSVAR, "selfplay", "--variant", "chess", "--games", "8",
                              "--threads", "2", "--nodes", "100", "--opponent", "nodes=50",
                              "--paired", "--out", os.path.join(tmp, "fixed"), "--json",
                              "--progress", "0"], capture_output=True, text=True, check=False)
        s = json.loads(res.stdout)
        points = sum(k * c for k, c in enumerate(s["pentanomial"])) / 2  # half points / 2
        check(sum(s["pentanomial"]) == 4 and abs(points - s["a_score"] * 8) < 1e-9
              and len(s["elo_pairs_95"]) == 2 and "sprt" not in s,
              f"a fixed paired run reports its pairs and their interval: {s}")
        print(f"ok   fixed-length paired run: pentanomial {s['pentanomial']}, Elo interval "
              f"{s['elo_95']} per game, {s['elo_pairs_95']} from the pairs")
    print("sprt: all checks passed")


if __name__ == "__main__":
    main()
