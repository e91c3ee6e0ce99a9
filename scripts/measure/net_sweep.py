#!/usr/bin/env python3
"""Which network shape, target and data size play best: trains one net per configuration
on the given self-play runs and matches each against the classical evaluation at a fixed
node budget (so the figure is the evaluation's, not the machine's speed), paired openings
from the variant's book, best moves only. Fixed nodes make it quick (chess, 5,000 nodes:
400 games in under a minute on two free cores); flywheel.py's equal-time matches are the
figure to quote for a net that is kept.

--against NAME matches every later configuration against configuration NAME's net instead
(or a network FILE), and --sprt ELO0,ELO1 makes each match an SPRT that stops itself
(at most --games games); --movetime MS plays at equal time instead of equal nodes, the
test for an architecture whose evaluation costs more time.

A configuration is NAME=TRAIN-OPTIONS, the options passed to `chessvar train` after
--data, --out and --seed; --data in a configuration's options replaces the sweep's data
(for data-size curves). Each finished configuration is kept in the record (--out), so a
killed sweep run again with the same arguments goes on where it stopped.

  python3 -m scripts.measure.net_sweep --variant chess --data RUN \\
      --config "h256=--hidden 256 --positions 5000000" \\
      --config "h64=--hidden 64 --positions 5000000" \\
      --config "h256-mirror=--hidden 256 --positions 5000000 --mirror"
  python3 -m scripts.measure.net_sweep --variant chess --data RUN --out results/net_arch_chess.json \\
      --against v1 --sprt 0,25 --movetime 20 --games 800 \\
      --config "v1=--hidden 256 --positions 40000000 --mirror" \\
      --config "ob8=--hidden 256 --positions 40000000 --mirror --output-buckets 8"

Writes results/net_sweep_<variant>.json: per configuration the commands, the best
validation loss and the match; per data folder (written $DATA/<its name>) the options it
was played with (its run.json) and its positions. No path of this machine.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time

from scripts.common.chessvar_run import ChessvarError, run_timed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def log(msg):
    print(f"net_sweep {time.strftime('%H:%M:%S')}: {msg}", file=sys.stderr, flush=True)


def run(argv):
    """Runs argv (a training, which prints no JSON result); (exit code, CPU seconds of the
    child, stdout, stderr)."""
    before = os.times()
    p = subprocess.run(argv, capture_output=True, text=True)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system -
                                                           before.children_system)
    return p.returncode, cpu, p.stdout, p.stderr


def redact(text, pairs):
    """text with each (path, name) of pairs replaced, longer paths first (a path before any
    path that prefixes it); as flywheel.py's redact, which as a top-level script does not
    import the scripts package."""
    for path, name in sorted(pairs, key=lambda p: -len(p[0])):
        text = text.replace(path, name)
    return text


def best_val_loss(csv_path):
    """The lowest validation loss of a loss log, and the positions at which it was reached."""
    best = (None, None)
    with open(csv_path) as f:
        header = f.readline().strip().split(",")
        for line in f:
            row = dict(zip(header, line.strip().split(",")))
            v = float(row["val_loss"])
            if v == v and (best[0] is None or v < best[0]):
                best = (v, int(row["positions"]))
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", required=True)
    ap.add_argument("--data", required=True, help="self-play run folders, comma-separated")
    ap.add_argument("--config", action="append", required=True, metavar="NAME=OPTIONS",
                    help="a configuration: its name and its `chessvar train` options")
    ap.add_argument("--chessvar", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--nodes", type=int, default=5000, help="nodes per move in the matches")
    ap.add_argument("--movetime", type=int, default=0,
                    help="milliseconds per move in the matches instead of --nodes (equal time)")
    ap.add_argument("--games", type=int, default=400,
                    help="games per match (paired; the most, with --sprt)")
    ap.add_argument("--against", default="classical", metavar="NAME|FILE|classical",
                    help="the opponent of each configuration: the classical evaluation "
                         "(default), the net of an earlier configuration NAME (not matched "
                         "itself) or a network FILE")
    ap.add_argument("--sprt", metavar="ELO0,ELO1[,ALPHA,BETA]",
                    help="each match an SPRT that stops at its decision (selfplay --sprt)")
    ap.add_argument("--book", help="openings (default selfplay/books/<variant>.epd)")
    ap.add_argument("--seed", type=int, default=1, help="training seed")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(os.path.dirname(ROOT), "chessvar-sweep"),
                    help="folder for nets and match runs, outside the repository")
    ap.add_argument("--out", help="the record (default results/net_sweep_<variant>.json)")
    a = ap.parse_args()

    if not os.access(a.chessvar, os.X_OK):
        sys.exit(f"net_sweep: {a.chessvar}: no chessvar binary (bash scripts/run.sh builds it)")
    book = a.book or os.path.join(ROOT, "selfplay", "books", f"{a.variant}.epd")
    if not os.path.exists(book):
        sys.exit(f"net_sweep: --book {book}: no such file")
    configs = []
    for c in a.config:
        name, sep, opts = c.partition("=")
        if not sep or not name or not name.replace("-", "").replace("_", "").replace(".", "").isalnum():
            sys.exit(f"net_sweep: --config {c!r}: not NAME=OPTIONS (NAME of letters, digits, "
                     "'-', '_', '.')")
        configs.append((name, shlex.split(opts)))
    work = os.path.abspath(os.path.join(a.work, a.variant))
    os.makedirs(work, exist_ok=True)
    out = a.out or os.path.join(ROOT, "results", f"net_sweep_{a.variant}.json")
    pairs = [(os.path.abspath(a.work), "$WORK"), (os.path.abspath(a.chessvar), "chessvar"),
             (ROOT + os.sep, "")]
    # every data folder named anywhere is written $DATA/<its name> in the record
    data_dirs = [os.path.abspath(d) for d in a.data.split(",") if d]
    for _, opts in configs:
        if "--data" in opts:
            i = opts.index("--data")
            if i + 1 >= len(opts):
                sys.exit("net_sweep: a configuration's --data needs folders")
            opts[i + 1] = ",".join(os.path.abspath(d) for d in opts[i + 1].split(",") if d)
            data_dirs += [d for d in opts[i + 1].split(",") if d not in data_dirs]
    for d in data_dirs:
        if not os.path.exists(os.path.join(d, "run.json")):
            sys.exit(f"net_sweep: {d}: not a self-play run folder (no run.json)")
    pairs += [(d, "$DATA/" + os.path.basename(d)) for d in data_dirs]
    sweep_data = ",".join(os.path.abspath(d) for d in a.data.split(",") if d)
    names = [n for n, _ in configs]
    # the baseline is trained first, whatever its place on the command line
    configs.sort(key=lambda c: c[0] != a.against)
    if a.against not in ("classical", *names) and not os.path.exists(a.against):
        sys.exit(f"net_sweep: --against {a.against}: neither classical, a configuration's name "
                 f"({', '.join(names)}) nor a network file")
    if a.against in names:
        pairs.append((os.path.join(work, f"{a.against}.nnue"), f"$WORK/{a.variant}/{a.against}.nnue"))
    opponent = (os.path.join(work, f"{a.against}.nnue") if a.against in names else
                a.against if a.against == "classical" else os.path.abspath(a.against))
    budget = (f"{a.movetime} ms a move" if a.movetime else f"{a.nodes} nodes a move")
    against = ("the classical evaluation" if a.against == "classical" else
               f"configuration {a.against}'s net" if a.against in names else
               os.path.basename(a.against))
    rec = {"what": "nets trained on chessvar's own self-play data, one per configuration, each "
                   f"matched against {against} at {budget}"
                   f"{', by SPRT ' + a.sprt if a.sprt else ''}, paired openings from the book, "
                   "best moves only",
           "variant": a.variant, "results": []}
    if os.path.exists(out):
        old = json.load(open(out))
        if old.get("variant") == a.variant:
            rec["results"] = old.get("results", [])
    for r in rec["results"]:  # records written before train_options was redacted too
        r["train_options"] = redact(r["train_options"], pairs)
    done = {(r["name"], r["train_command"]) for r in rec["results"]}
    rec.setdefault("data", {})
    for d in data_dirs:
        try:
            rec["data"]["$DATA/" + os.path.basename(d)] = {
                "options": json.load(open(os.path.join(d, "run.json"))),
                "positions": json.load(open(os.path.join(d, "manifest.json")))["positions"]}
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"net_sweep: {d}: cannot read its run.json / manifest.json ({e})")

    for name, opts in configs:
        net = os.path.join(work, f"{name}.nnue")
        csv = os.path.join(work, f"{name}.loss.csv")
        own_data = [] if "--data" in opts else ["--data", sweep_data]
        train = [a.chessvar, "train", *own_data, "--out", net,
                 "--seed", str(a.seed), "--threads", str(a.threads), "--log", csv,
                 "--progress", "0", *opts]
        train_cmd = redact(" ".join(shlex.quote(x) for x in train), pairs)
        if (name, train_cmd) in done:
            log(f"{name}: done before, skipped")
            continue
        log(f"{name}: training: {train_cmd}")
        rc, train_cpu, _, err = run(train)
        if rc != 0:
            sys.exit(f"net_sweep: {name}: training failed (exit {rc}): {err.strip()[-500:]}")
        val, val_at = best_val_loss(csv)
        row = {"name": name, "train_options": redact(" ".join(opts), pairs),
               "train_command": train_cmd,
               "best_validation_loss": val, "best_at_positions": val_at,
               "train_cpu_s": round(train_cpu, 1)}
        if name == a.against:  # the baseline: trained, not matched against itself
            log(f"{name}: the baseline, validation {val}")
            save(rec, row, name, out, pairs)
            continue
        match_dir = os.path.join(work, f"match-{name}")
        budget = ["--movetime", str(a.movetime)] if a.movetime else ["--nodes", str(a.nodes)]
        match = [a.chessvar, "selfplay", "--variant", a.variant, "--games", str(a.games),
                 "--paired", "--temperature", "0", *budget, "--threads",
                 str(a.threads), "--eval", net, "--opponent-eval", opponent, "--seed", "7",
                 "--book", book, "--out", match_dir, "--progress", "60", "--json"]
        if a.sprt:
            match += ["--sprt", a.sprt]
        if os.path.exists(match_dir):
            subprocess.run(["rm", "-rf", match_dir], check=True)
        log(f"{name}: match: {redact(' '.join(match), pairs)}")
        try:
            m, timing = run_timed(match, stderr=None)
        except ChessvarError as e:
            sys.exit(f"net_sweep: {name}: match failed: {str(e)[-500:]}")
        match_cpu = timing["cpu_seconds"]
        row.update({"match_command": redact(" ".join(shlex.quote(x) for x in match), pairs),
                    "games": m["games"], "a_score": m["a_score"], "a_wins": m["a_wins"],
                    "a_draws": m["a_draws"], "a_losses": m["a_losses"], "elo": m["elo"],
                    "elo_95": m.get("elo_95"), "match_cpu_s": round(match_cpu, 1)})
        for k in ("pentanomial", "elo_pairs_95", "sprt"):
            if k in m:
                row[k] = m[k]
        log(f"{name}: validation {val}, Elo {m['elo']:+.1f} {m.get('elo_95')} "
            f"(+{m['a_wins']} ={m['a_draws']} -{m['a_losses']})"
            f"{', SPRT ' + m['sprt'].get('decision', '?') if 'sprt' in m else ''}")
        save(rec, row, name, out, pairs)
    log(f"wrote {out}")
    return 0


def save(rec, row, name, out, pairs):
    """Adds row (with the commit and the date) to the record and writes it atomically."""
    row["commit"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                                   capture_output=True, text=True).stdout.strip()
    row["date"] = time.strftime("%Y-%m-%d")
    rec["results"] = [r for r in rec["results"] if r["name"] != name] + [row]
    rec["command"] = redact("python3 -m scripts.measure.net_sweep " +
                            " ".join(shlex.quote(x) for x in sys.argv[1:]), pairs)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    sys.exit(main())
