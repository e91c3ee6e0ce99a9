#!/usr/bin/env python3
"""How good are the labels of chess training data: the best move and score a labeller gives
at a node budget, judged by Stockfish at a fixed depth.

Positions: --positions searched positions (not random opening plies) drawn with a fixed
seed from a fresh chessvar chess self-play run (made here, --games games). Labellers:
chessvar at each --nodes budget with the classical evaluation and with each --net given,
and Fairy-Stockfish 11.1 (Debian; its evaluation is classical) at the same budgets, and
with --reference Stockfish itself (its NNUE) at the same budgets, to show where the goal
stands.
The judge: Stockfish at --judge-depth. For each labeller: best-move agreement with the
judge (share of positions) and the Spearman rank correlation of its scores with the
judge's, both from the side to move. Writes results/label_quality.json.

  python3 -m scripts.measure.label_quality --net selfplay/nets/chess.nnue
  python3 -m scripts.measure.label_quality --positions 40 --nodes 1000 --judge-depth 10   # quick
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MATE_CP = 10000  # a mate score counts as this many centipawns (sign kept)


class Uci:
    """A UCI engine spoken to line by line."""

    def __init__(self, argv, options=()):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.send("uci")
        self.until(lambda ln: ln == "uciok")
        for name, value in options:
            self.send(f"setoption name {name} value {value}")
        self.send("isready")
        self.until(lambda ln: ln == "readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, pred):
        lines = []
        while True:
            ln = self.p.stdout.readline()
            if not ln:
                raise RuntimeError("engine ended: " + " | ".join(lines[-3:]))
            ln = ln.strip()
            lines.append(ln)
            if pred(ln):
                return lines

    def search(self, fen, go):
        """(best move, score in centipawns for the side to move) of `go ...` from fen."""
        self.send("ucinewgame")
        self.send(f"position fen {fen}")
        self.send(go)
        lines = self.until(lambda ln: ln.startswith("bestmove"))
        score = None
        for ln in lines:  # the last score given is the search's answer
            t = ln.split()
            if t[:1] == ["info"] and "score" in t:
                k = t.index("score")
                if t[k + 1] == "cp":
                    score = int(t[k + 2])
                elif t[k + 1] == "mate":
                    m = int(t[k + 2])
                    score = MATE_CP if m > 0 else -MATE_CP
        return lines[-1].split()[1], score

    def close(self):
        try:
            self.send("quit")
            self.p.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()


def find(name):
    return shutil.which(name) or (f"/usr/games/{name}" if os.path.exists(f"/usr/games/{name}")
                                  else None)


def ranks(xs):
    """Average ranks (1-based) of xs, ties sharing their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    """Spearman's rank correlation: Pearson's on the average ranks."""
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else 0.0


def sample_positions(chessvar, games, count, seed, work):
    """count FENs of searched positions of a fresh chess run, drawn with seed."""
    out = os.path.join(work, "run")
    subprocess.run([chessvar, "selfplay", "--variant", "chess", "--games", str(games),
                    "--seed", str(seed), "--format", "jsonl", "--out", out, "--progress", "0"],
                   check=True, stdout=subprocess.DEVNULL)
    fens = []
    for name in sorted(os.listdir(out)):
        if name.endswith(".jsonl"):
            for line in open(os.path.join(out, name)):
                r = json.loads(line)
                if not r["random"] and r["best"] is not None:
                    fens.append(r["fen"])
    if len(fens) < count:
        sys.exit(f"label_quality: only {len(fens)} searched positions in {games} games")
    return random.Random(seed).sample(fens, count)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chessvar", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--net", action="append", default=[], help="a network file (repeatable)")
    ap.add_argument("--also-with", action="append", default=[], metavar="NAME=VALUE[,...]",
                    help="one more row per --net, its chessvar labeller with these UCI options "
                         "set (repeatable), e.g. QSDelta=200 against the net's own margins")
    ap.add_argument("--nodes", default="1000,10000", help="labellers' node budgets")
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--judge-depth", type=int, default=14)
    ap.add_argument("--no-fairy", action="store_true")
    ap.add_argument("--reference", action="store_true",
                    help="also label with Stockfish (NNUE) at the budgets: a reference row")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "label_quality.json"))
    args = ap.parse_args()
    budgets = [int(x) for x in args.nodes.split(",")]
    stockfish, fairy = find("stockfish"), find("fairy-stockfish")
    if not stockfish:
        sys.exit("label_quality: no stockfish (bash scripts/setup.sh installs it)")
    with tempfile.TemporaryDirectory() as work:
        fens = sample_positions(args.chessvar, args.games, args.positions, args.seed, work)
    print(f"label_quality: {len(fens)} positions; judging with Stockfish depth "
          f"{args.judge_depth}", file=sys.stderr, flush=True)
    judge = Uci([stockfish], [("Threads", 1), ("Hash", 64)])
    truth = [judge.search(f, f"go depth {args.judge_depth}") for f in fens]
    judge.close()

    labellers = [("chessvar classical", [args.chessvar, "uci"], [("EvalFile", "classical")])]
    labellers += [(f"chessvar net {os.path.basename(n)}", [args.chessvar, "uci"],
                   [("EvalFile", os.path.abspath(n))]) for n in args.net]
    for spec in args.also_with:
        opts = []
        for item in spec.split(","):
            name, eq, value = item.partition("=")
            if not eq or not name or not value:
                sys.exit(f"label_quality: --also-with '{spec}': expected NAME=VALUE[,NAME=VALUE]")
            opts.append((name, value))
        labellers += [(f"chessvar net {os.path.basename(n)} {spec}", [args.chessvar, "uci"],
                       [("EvalFile", os.path.abspath(n))] + opts) for n in args.net]
    if fairy and not args.no_fairy:
        labellers.append(("Fairy-Stockfish classical", [fairy], []))  # 11.1: no NNUE
    if args.reference:
        labellers.append(("Stockfish NNUE (reference)", [stockfish], [("Threads", 1), ("Hash", 64)]))
    rows = []
    for name, argv, opts in labellers:
        for nodes in budgets:
            eng = Uci(argv, opts)
            t0 = time.process_time()
            got = [eng.search(f, f"go nodes {nodes}") for f in fens]
            eng.close()
            pairs = [(g[1], t[1]) for g, t in zip(got, truth) if g[1] is not None and t[1] is not None]
            agree = sum(g[0] == t[0] for g, t in zip(got, truth)) / len(fens)
            rho = spearman([p[0] for p in pairs], [p[1] for p in pairs])
            rows.append({"labeller": name, "nodes": nodes, "best_move_agreement": round(agree, 4),
                         "spearman": round(rho, 4), "positions": len(fens)})
            print(f"{name:<36} {nodes:>6} nodes: best move {100 * agree:5.1f}%  "
                  f"Spearman {rho:.3f}", flush=True)
    rec = {"what": "label quality of chess positions: best-move agreement and Spearman "
                   "correlation of scores with Stockfish at a fixed depth",
           # paths of this machine are written by their file names alone
           "command": "python3 -m scripts.measure.label_quality " + " ".join(
               os.path.basename(x) if os.path.isabs(x) else x for x in sys.argv[1:]),
           "date": time.strftime("%Y-%m-%d"),
           "commit": subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                    capture_output=True, text=True).stdout.strip(),
           "judge": f"Stockfish depth {args.judge_depth}", "rows": rows}
    with open(args.out, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
