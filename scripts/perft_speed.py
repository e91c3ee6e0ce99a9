#!/usr/bin/env python3
"""Perft speed toward the limit (issues 16 and 29): chessvar next to its anchors, in one run.

One thread, no hash, each run its own process, runs alternating engine by engine inside
every case (A B C A B C ...), medians of nodes per second, ratios chessvar / anchor:

  orthodox   start d6, d7 and Kiwipete d5, d6: chessvar, Gigantua and qperft (when their
             paths are given; they are built outside this repository) and Stockfish
             (`stockfish`, always there). Gigantua is called as `gigantua FEN DEPTH` and
             times each depth itself (the last line is read); qperft as `qperft DEPTH FEN`
             (its last `perft(D)` line); Stockfish from `go perft` to `Nodes searched`.
  10x10      the cannon10 rows shared with Fairy-Stockfish 11.1 (the positions of
             compare_fairy.py, variants file bench/fairy_variants.ini).
  variants   Supremo S30 d4 and Superchess P0 d5 against chessvar's own orthodox start d6,
             measured alternately beside them.
  threads    orthodox start d7 on 2 threads against 1 thread.

chessvar's time is the `seconds` of its JSON (the perft alone). Counts must agree between
engines and across runs (exit status 1 otherwise). Build chessvar with
-DCHESSVAR_NATIVE=ON for these runs. Writes results/perft_speed.json (machine, commit,
every run) and results/perft_speed.png (ratios against the goals).

  python3 scripts/perft_speed.py --gigantua /path/to/gigantua --qperft /path/to/qperft
  (or CHESSVAR_GIGANTUA / CHESSVAR_QPERFT in the environment; without them those columns
  are left out and the rest runs)
  python3 scripts/perft_speed.py --quick          # shallower, one run, separate output
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

try:
    import matplotlib
except ImportError:  # Debian's python3-matplotlib is for the system interpreter
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chessvar_run import perft as chessvar_perft  # noqa: E402
from compare_fairy import POSITIONS as FAIRY_POSITIONS  # noqa: E402
from compare_fairy import fairy_run  # noqa: E402
from compare_stockfish import stockfish_run  # noqa: E402
from measure_env import git_state, machine_info  # noqa: E402
from uci_engine import find_engine  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

# (label, FEN, depth, quick depth)
ORTHODOX = [("start d6", START, 6, 4), ("start d7", START, 7, 5),
            ("kiwipete d5", KIWIPETE, 5, 3), ("kiwipete d6", KIWIPETE, 6, 4)]  # quick: distinct
# (label, chessvar perft arguments, quick arguments)
VARIANTS = [("supremo S30 d4", ["--variant", "supremo", "--depth", "4"],
             ["--variant", "supremo", "--depth", "3"]),
            ("superchess P0 d5", ["--variant", "superchess", "--start", "p0", "--depth", "5"],
             ["--variant", "superchess", "--start", "p0", "--depth", "4"])]
ORTHODOX_YARDSTICK = (["--depth", "6"], ["--depth", "5"])

# goals of issue 29 (the 2-thread one is issue 16's): (case, anchor) -> minimum ratio
GOALS = {("start d7", "gigantua"): 1.0, ("kiwipete d6", "gigantua"): 1.0,
         ("start d7", "stockfish"): 5.0, ("kiwipete d6", "stockfish"): 7.0,
         ("supremo S30 d4", "chess start d6"): 0.7, ("superchess P0 d5", "chess start d6"): 1.0,
         ("start d7 2 threads", "1 thread"): 1.8}
FAIRY_GOAL = 8.0


def chessvar_run(binary, args, threads=1):
    """One chessvar perft process: (nodes, seconds of the perft)."""
    obj = chessvar_perft(binary, "--threads", str(threads), *args)
    return int(obj["nodes"]), float(obj["seconds"])


def gigantua_run(binary, fen, depth):
    """Gigantua's `FEN DEPTH` mode counts depths 1..D and times each: the last line."""
    proc = subprocess.run([binary, fen, str(depth)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    found = re.findall(r"Perft (\d+): (\d+) (\d+)ms ([\d.]+) MNodes/s", proc.stdout)
    if not found or int(found[-1][0]) != depth:
        raise RuntimeError(f"no depth-{depth} line in Gigantua output: {proc.stdout[-300:]!r}")
    nodes, mnps = int(found[-1][1]), float(found[-1][3])
    return nodes, nodes / (mnps * 1e6)


def qperft_run(binary, fen, depth):
    """qperft `DEPTH FEN` (no hash, bulk counting) counts depths 1..D: the last line. It
    appends to log.txt in its working directory, so it runs in a temporary one."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([os.path.abspath(binary), str(depth), fen], capture_output=True,
                              text=True, cwd=tmp)
    found = re.findall(r"perft\(\s*(\d+)\)=\s*(\d+) \(\s*([\d.]+) sec\)", proc.stdout)
    if not found or int(found[-1][0]) != depth:
        raise RuntimeError(f"no depth-{depth} line in qperft output: {proc.stdout[-300:]!r}")
    return int(found[-1][1]), float(found[-1][2])


def summary(runs):
    """Nodes, every run's seconds and the median nodes/s of a list of (nodes, seconds)."""
    nodes = {n for n, _ in runs}
    secs = [s for _, s in runs]
    med = statistics.median(secs)
    return {"nodes": sorted(nodes)[0], "counts_agree": len(nodes) == 1,
            "seconds": [round(s, 6) for s in secs], "median_seconds": round(med, 6),
            "nps_median": round(runs[0][0] / med) if med > 0 else None}


def alternate(engines, runs):
    """Runs every engine of {name: thunk} in turn, `runs` rounds: {name: summary}."""
    res = {name: [] for name in engines}
    for _ in range(runs):
        for name, thunk in engines.items():
            res[name].append(thunk())
    return {name: summary(r) for name, r in res.items()}


def build_flags(binary):
    """CHESSVAR_NATIVE and the build type from the CMake cache beside the binary."""
    flags = {}
    cache = os.path.join(os.path.dirname(os.path.abspath(binary)), "CMakeCache.txt")
    try:
        with open(cache, encoding="utf-8") as fh:
            for line in fh:
                m = re.match(r"(CHESSVAR_NATIVE|CMAKE_BUILD_TYPE|CMAKE_C_COMPILER):\w+=(.*)", line)
                if m:
                    flags[m.group(1)] = os.path.basename(m.group(2).strip())
    except OSError:
        pass
    return flags


def plot(report, path):
    """Bar chart of every ratio next to its goal."""
    rows = report["ratios"]
    fig, ax = plt.subplots(figsize=(10, 0.42 * len(rows) + 1.2))
    labels = [f"{r['case']}  vs {r['anchor']}" for r in rows]
    vals = [r["ratio"] for r in rows]
    colors = ["tab:green" if r.get("goal") and r["ratio"] >= r["goal"] else
              ("tab:red" if r.get("goal") else "tab:gray") for r in rows]
    y = range(len(rows))
    ax.barh(y, vals, color=colors)
    for i, r in enumerate(rows):
        ax.text(r["ratio"], i, f" {r['ratio']:.2f}", va="center", fontsize=8)
        if r.get("goal"):
            ax.plot([r["goal"], r["goal"]], [i - 0.4, i + 0.4], color="black", lw=2)
    ax.set_yticks(list(y))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("speed ratio chessvar / anchor (nodes per second, medians; black bar: goal)")
    ax.set_title("chessvar perft, one thread, no hash (issues 16 and 29)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--gigantua", default=os.environ.get("CHESSVAR_GIGANTUA"),
                    help="Gigantua binary (built elsewhere; default $CHESSVAR_GIGANTUA)")
    ap.add_argument("--qperft", default=os.environ.get("CHESSVAR_QPERFT"),
                    help="qperft binary (built elsewhere; default $CHESSVAR_QPERFT)")
    ap.add_argument("--stockfish", help="Stockfish binary (default: stockfish)")
    ap.add_argument("--fairy", default="fairy-stockfish", help="Fairy-Stockfish 11.1 binary")
    ap.add_argument("--runs", type=int, default=None, help="alternating rounds (default 3)")
    ap.add_argument("--quick", action="store_true", help="shallower, one round, separate output")
    ap.add_argument("--only", help="run only the parts named: orthodox,10x10,variants,threads")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    runs = args.runs or (1 if args.quick else 3)
    parts = set((args.only or "orthodox,10x10,variants,threads").split(","))
    out = args.out or os.path.join(ROOT, "results", "perft_speed_quick.json" if args.quick
                                   else "perft_speed.json")
    cv = args.binary
    head, dirty = git_state(ROOT)
    report = {"date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": machine_info(), "chessvar": {"git_commit": head, "sources_differ_from_commit": dirty,
                                                      "build": build_flags(cv)},
              "runs": runs, "mode": "quick" if args.quick else "full",
              "timing": {"chessvar": "JSON seconds (perft alone)",
                         "gigantua": "its own per-depth timer, last depth",
                         "qperft": "its own clock() per depth, last depth",
                         "stockfish": "go perft to Nodes searched (one thread)",
                         "fairy-stockfish": "go perft to Nodes searched (one thread)"},
              "anchors": {"gigantua": bool(args.gigantua), "qperft": bool(args.qperft),
                          "stockfish": True, "fairy-stockfish": True},
              "cases": [], "ratios": []}
    ok = True

    def add(case, results, base="chessvar", same_tree=True):
        """Records one case; engines on the same tree must agree on the count."""
        nonlocal ok
        nodes = {r["nodes"] for r in results.values()}
        agree = (len(nodes) == 1 or not same_tree) and all(r["counts_agree"] for r in results.values())
        ok = ok and agree
        report["cases"].append({"case": case, "counts_agree": agree, "results": results})
        for name, r in results.items():
            if name == base:
                continue
            ratio = results[base]["nps_median"] / r["nps_median"]
            goal = GOALS.get((case, name), FAIRY_GOAL if name == "fairy-stockfish" else None)
            report["ratios"].append({"case": case, "anchor": name, "ratio": round(ratio, 3),
                                     "goal": goal, "reached": None if goal is None else ratio >= goal})
            mark = "" if goal is None else (" (goal %.1f: %s)" % (goal, "yes" if ratio >= goal else "NO"))
            print(f"{case:20s} chessvar {results[base]['nps_median'] / 1e6:8.1f} Mn/s   {name:16s} "
                  f"{r['nps_median'] / 1e6:8.1f} Mn/s   ratio {ratio:6.2f}{mark}", flush=True)
        if not agree:
            print(f"error: counts differ in {case}: {sorted(nodes)}", file=sys.stderr)

    if "orthodox" in parts:
        sf = find_engine(args.stockfish)
        for label, fen, depth, qdepth in ORTHODOX:
            d = qdepth if args.quick else depth
            engines = {"chessvar": lambda fen=fen, d=d: chessvar_run(cv, ["--fen", fen, "--depth", str(d)])}
            if args.gigantua:
                engines["gigantua"] = lambda fen=fen, d=d: gigantua_run(args.gigantua, fen, d)
            if args.qperft:
                engines["qperft"] = lambda fen=fen, d=d: qperft_run(args.qperft, fen, d)
            engines["stockfish"] = lambda fen=fen, d=d: stockfish_run(sf, fen, d)[:2]
            add(label if not args.quick else f"{label.split()[0]} d{d}", alternate(engines, runs))
    if "10x10" in parts:
        ini = os.path.join(ROOT, "bench", "fairy_variants.ini")
        for name, fen, depth, qdepth in FAIRY_POSITIONS:
            d = qdepth if args.quick else depth
            engines = {"chessvar": lambda fen=fen, d=d: chessvar_run(
                           cv, ["--variant", "cannon10", "--fen", fen, "--depth", str(d)]),
                       "fairy-stockfish": lambda fen=fen, d=d: fairy_run(args.fairy, ini, fen, d)[:2]}
            add(f"cannon10 {name} d{d}", alternate(engines, runs))
    if "variants" in parts:
        for label, vargs, qargs in VARIANTS:
            engines = {label: lambda a=(qargs if args.quick else vargs): chessvar_run(cv, a),
                       "chess start d6": lambda: chessvar_run(cv, ORTHODOX_YARDSTICK[1 if args.quick else 0])}
            add(label, alternate(engines, runs), base=label, same_tree=False)
    if "threads" in parts:
        a = ["--depth", "5" if args.quick else "7"]
        engines = {"start d7 2 threads": lambda: chessvar_run(cv, a, threads=2),
                   "1 thread": lambda: chessvar_run(cv, a, threads=1)}
        add("start d7 2 threads", alternate(engines, runs), base="start d7 2 threads")
        report["threads_note"] = "2 threads against 1 on a machine whose other load is in loadavg"
    try:
        report["machine"]["loadavg_at_end"] = [float(x) for x in os.getloadavg()]
    except OSError:
        pass
    report["all_counts_agree"] = ok
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out + ".tmp", "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=2)
        fh.write("\n")
    os.replace(out + ".tmp", out)
    plot(report, os.path.splitext(out)[0] + ".png")
    print(f"medians of {runs} run(s); wrote {os.path.relpath(out, ROOT)} and its plot")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
