#!/usr/bin/env python3
"""Perft speed of chessvar beside other engines on the same positions: every such
comparison in one script, one report each (--report; `all` runs the four in turn).

Common to every report: one thread, no hash, each run its own process, runs alternating
engine by engine inside every case (A B C A B C ...), medians. chessvar's time is the
`seconds` of its JSON (the perft alone); a UCI engine's runs from sending `go perft` to
reading `Nodes searched` (start-up and network loading excluded). Counts must agree between
engines and across runs (exit status 1 otherwise). The Fairy-Stockfish variants are in
bench/fairy_variants.ini (Debian's version 11.1 has no custom pieces: cannon10 is the piece
set Supremo's generator shares with it, superchess-amazon a subset of Superchess). Build
chessvar with the default build (CHESSVAR_ARCH=native) for these runs.

  anchors    (issue 16) ratios chessvar / anchor against their goals:
             orthodox start d6, d7 and Kiwipete d5, d6: Gigantua and qperft (when their
             paths are given; they are built outside this repository) and Stockfish.
             Gigantua is called as `gigantua FEN DEPTH` and times each depth itself (the
             last line is read); qperft as `qperft DEPTH FEN` (its last `perft(D)` line);
             10x10: the cannon10 positions against Fairy-Stockfish 11.1;
             variants: Supremo S30 d4 and Superchess P0 d5 against chessvar's own orthodox
             start d6, measured alternately beside them;
             threads: orthodox start d7 on 2 threads against 1 thread;
             cpw (only when --only names it): CPW positions 3-6 at depths of a second
             or more for chessvar, against the same anchors as orthodox.
             Writes results/perft_speed.json (machine, commit, build, every run) and
             results/perft_speed.png (ratios against the goals).
  engines    every installed engine on the rows it can express: orthodox start d6 and
             Kiwipete d5 (Stockfish, Fairy-Stockfish), Superchess amazon positions
             (Fairy-Stockfish superchess-amazon), cannon10 start and middle game.
             Writes results/engine_comparison.json and .csv (make_plots draws plot_nps.png).
  stockfish  orthodox start d6 and Kiwipete d5 against Stockfish; chessvar's perft time
             and its whole-process wall time both kept. Writes results/perft_vs_stockfish.json.
  fairy      cannon10 (Supremo's generator) against Fairy-Stockfish: counts at depths
             1..D-1 compared first, then timed at D; the overall ratio is the sum of
             median times. Writes results/supremo_fairy.json.

--quick (shallower, one round) writes beside each file with _quick in its name.

  python3 -m scripts.measure.perft_speed --gigantua /path/to/gigantua --qperft /path/to/qperft
  (or CHESSVAR_GIGANTUA / CHESSVAR_QPERFT in the environment; without them those columns
  are left out and the rest runs)
  python3 -m scripts.measure.perft_speed --report engines
  python3 -m scripts.measure.perft_speed --report all --quick
"""
import argparse
import csv
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from scripts.common import ROOT
from scripts.common.chessvar_run import run_timed
from scripts.common.measure_env import git_state, machine_info
from scripts.common.system_python import require
from scripts.common.uci_engine import UciEngine, find_engine, perft_once

INI = os.path.join(ROOT, "bench", "fairy_variants.ini")
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

# (label, FEN, depth, quick depth)
ORTHODOX = [("start d6", START, 6, 4), ("start d7", START, 7, 5),
            ("kiwipete d5", KIWIPETE, 5, 3), ("kiwipete d6", KIWIPETE, 6, 4)]  # quick: distinct
# The Chess Programming Wiki's perft positions 3-6 at the first depth where chessvar's perft
# runs for a second or more (issue 29's goal there: 1.0x Gigantua); the `cpw` part, run only
# when --only names it (Stockfish takes minutes on these).
CPW = [("cpw3 d8", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 8, 6),
       ("cpw4 d6", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 6, 4),
       ("cpw5 d6", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 6, 4),
       ("cpw6 d6", "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 6, 4)]
# Reports up to results/perft_speed_cpw.json of commit 115efd5 timed a mistyped CPW 6 under
# that label (r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P3/2NP1N2/PPP2PPP/R4RK1: no bishop on g4,
# queen on e2 or pawn on a3; 42 moves, perft 6 3,479,433,856 by chessvar and Gigantua alike).
# (label, chessvar perft arguments, quick arguments)
VARIANTS = [("supremo S30 d4", ["--variant", "supremo", "--depth", "4"],
             ["--variant", "supremo", "--depth", "3"]),
            ("superchess P0 d5", ["--variant", "superchess", "--start", "p0", "--depth", "5"],
             ["--variant", "superchess", "--start", "p0", "--depth", "4"])]
ORTHODOX_YARDSTICK = (["--depth", "6"], ["--depth", "5"])

# goals of issue 29 (the 2-thread one is issue 16's): (case, anchor) -> minimum ratio
GOALS = {("start d7", "gigantua"): 1.0, ("kiwipete d6", "gigantua"): 1.0,
         **{(label, "gigantua"): 1.0 for label, _, _, _ in CPW},
         ("start d7", "stockfish"): 5.0, ("kiwipete d6", "stockfish"): 7.0,
         ("supremo S30 d4", "chess start d6"): 0.7, ("superchess P0 d5", "chess start d6"): 1.0,
         ("start d7 2 threads", "1 thread"): 1.8}
FAIRY_GOAL = 8.0

# cannon10, shared with Fairy-Stockfish: (name, FEN, timed depth, quick depth). The middle
# games are 24 random plies from the start (seeds 1 and 3 of a seeded random walk).
CANNON10 = [
    ("start", "rcbbqkbbcr/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RCBBQKBBCR w - - 0 1", 6, 4),
    ("middle1", "r1bb1kbb1r/p1pppqpp2/8pp/1c3p4/9C/10/5P4/1PP2c3B/P1BQP1PP1P/R1B2KB1CR w - - 4 13", 4, 3),
    ("middle3", "rcbb1k1b1r/p1ppp1p1p1/1p3p1pcB/10/8q1/5Q4/10/Pb1P2P3/1PP1PPBP1P/RC1B1KB2R w - - 0 13", 4, 3),
]
# The engines report: (label, chessvar variant, FEN, depth, quick depth, {engine: UCI_Variant}).
ENGINE_ROWS = [
    ("chess start", "chess", START, 6, 5, {"stockfish": None, "fairy-stockfish": "chess"}),
    ("chess kiwipete", "chess", KIWIPETE, 5, 4, {"stockfish": None, "fairy-stockfish": "chess"}),
    ("superchess amazons", "superchess", "rnbakbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBAKBNR w - - 0 1", 5, 4,
     {"fairy-stockfish": "superchess-amazon"}),
    ("superchess amazons mid", "superchess",
     "r1b1k2r/ppp2ppp/2n2n2/2bpp1A1/4P3/2NP1N2/PPP2PPP/R1B1KB1R w - - 0 1", 4, 3,
     {"fairy-stockfish": "superchess-amazon"}),
    ("cannon10 start (Supremo generator)", "cannon10", CANNON10[0][1], 6, 5,
     {"fairy-stockfish": "cannon10"}),
    ("cannon10 middlegame", "cannon10", CANNON10[1][1], 4, 3, {"fairy-stockfish": "cannon10"}),
]
# The stockfish report: (name, FEN, depth, quick depth).
STOCKFISH_POSITIONS = [("startpos", START, 6, 5), ("kiwipete", KIWIPETE, 5, 4)]


def chessvar_run(binary, args, threads=1):
    """One chessvar perft process: (nodes, seconds of the perft, whole-process wall seconds)."""
    obj, timing = run_timed([binary, "perft", "--threads", str(threads), *args, "--quiet"])
    return int(obj["nodes"]), float(obj["seconds"]), timing["wall_seconds"]


def chessvar_pair(binary, args, threads=1):
    """One chessvar perft process: (nodes, seconds of the perft)."""
    return chessvar_run(binary, args, threads)[:2]


def uci_pair(binary, fen, depth, variant=None):
    """One UCI engine process (the Fairy-Stockfish variant loaded when given): (nodes,
    seconds of `go perft`)."""
    return perft_once(binary, fen, depth, INI, variant)[:2]


def engine_name(binary):
    """The `id name` of a UCI engine."""
    with UciEngine(binary) as e:
        return e.name


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
    """Nodes, every run's seconds, their median, least and most, and the median nodes/s
    of a list of (nodes, seconds)."""
    nodes = {n for n, _ in runs}
    secs = [s for _, s in runs]
    med = statistics.median(secs)
    return {"nodes": sorted(nodes)[0], "counts_agree": len(nodes) == 1,
            "seconds": [round(s, 6) for s in secs], "median_seconds": round(med, 6),
            "min_seconds": round(min(secs), 6), "max_seconds": round(max(secs), 6),
            "nps_median": round(runs[0][0] / med) if med > 0 else None}


def alternate(engines, runs):
    """Runs every engine of {name: thunk} in turn, `runs` rounds: {name: summary}."""
    res = {name: [] for name in engines}
    for _ in range(runs):
        for name, thunk in engines.items():
            res[name].append(thunk())
    return {name: summary(r) for name, r in res.items()}


def build_flags(binary):
    """CHESSVAR_ARCH (CHESSVAR_NATIVE before it), CHESSVAR_PIE and the build type from the CMake cache."""
    flags = {}
    cache = os.path.join(os.path.dirname(os.path.abspath(binary)), "CMakeCache.txt")
    try:
        with open(cache, encoding="utf-8") as fh:
            for line in fh:
                m = re.match(r"(CHESSVAR_ARCH|CHESSVAR_NATIVE|CHESSVAR_PIE|CMAKE_BUILD_TYPE|CMAKE_C_COMPILER):\w+=(.*)", line)
                if m:
                    flags[m.group(1)] = os.path.basename(m.group(2).strip())
    except OSError:
        pass
    return flags


def plot(report, path):
    """Bar chart of every ratio next to its goal."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
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


def write_json(path, doc):
    """Writes doc to path through a temporary file, so a stopped run leaves the old file."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")
    os.replace(path + ".tmp", path)


def out_path(args, name, ext=".json"):
    """results/NAME.json, or NAME_quick.json with --quick; --out names the directory."""
    return os.path.join(args.out or os.path.join(ROOT, "results"),
                        name + ("_quick" if args.quick else "") + ext)


def run_info(args):
    """What every report records of the run: date, machine, commit and build of chessvar."""
    head, dirty = git_state(ROOT)
    return {"date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "machine": machine_info(), "mode": "quick" if args.quick else "full",
            "chessvar": {"git_commit": head, "sources_differ_from_commit": dirty,
                         "build": build_flags(args.binary)}}


def load_at_end(report):
    """Adds the load average at the end of the run to the report's machine."""
    try:
        report["machine"]["loadavg_at_end"] = [float(x) for x in os.getloadavg()]
    except OSError:
        pass


def report_anchors(args, runs, sf, fairy):
    """The anchors report (issue 16): ratios against their goals; results/perft_speed.json
    and its plot. Returns whether every count agreed."""
    parts = set((args.only or "orthodox,10x10,variants,threads").split(","))
    unknown = parts - {"orthodox", "10x10", "variants", "threads", "cpw"}
    if unknown:
        sys.exit(f"perft_speed: --only {args.only}: unknown part(s) {', '.join(sorted(unknown))} "
                 "(orthodox, 10x10, variants, threads, cpw)")
    out = out_path(args, "perft_speed")
    cv = args.binary
    report = dict(run_info(args), runs=runs,
                  timing={"chessvar": "JSON seconds (perft alone)",
                          "gigantua": "its own per-depth timer, last depth",
                          "qperft": "its own clock() per depth, last depth",
                          "stockfish": "go perft to Nodes searched (one thread)",
                          "fairy-stockfish": "go perft to Nodes searched (one thread)"},
                  anchors={"gigantua": bool(args.gigantua), "qperft": bool(args.qperft),
                           "stockfish": True, "fairy-stockfish": True},
                  cases=[], ratios=[])
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

    for part, cases in (("orthodox", ORTHODOX), ("cpw", CPW)):
        if part not in parts:
            continue
        for label, fen, depth, qdepth in cases:
            d = qdepth if args.quick else depth
            engines = {"chessvar": lambda fen=fen, d=d: chessvar_pair(cv, ["--fen", fen, "--depth", str(d)])}
            if args.gigantua:
                engines["gigantua"] = lambda fen=fen, d=d: gigantua_run(args.gigantua, fen, d)
            if args.qperft:
                engines["qperft"] = lambda fen=fen, d=d: qperft_run(args.qperft, fen, d)
            engines["stockfish"] = lambda fen=fen, d=d: uci_pair(sf, fen, d)
            add(label if not args.quick else f"{label.split()[0]} d{d}", alternate(engines, runs))
    if "10x10" in parts:
        for name, fen, depth, qdepth in CANNON10:
            d = qdepth if args.quick else depth
            engines = {"chessvar": lambda fen=fen, d=d: chessvar_pair(
                           cv, ["--variant", "cannon10", "--fen", fen, "--depth", str(d)]),
                       "fairy-stockfish": lambda fen=fen, d=d: uci_pair(fairy, fen, d, "cannon10")}
            add(f"cannon10 {name} d{d}", alternate(engines, runs))
    if "variants" in parts:
        for label, vargs, qargs in VARIANTS:
            engines = {label: lambda a=(qargs if args.quick else vargs): chessvar_pair(cv, a),
                       "chess start d6": lambda: chessvar_pair(cv, ORTHODOX_YARDSTICK[1 if args.quick else 0])}
            add(label, alternate(engines, runs), base=label, same_tree=False)
    if "threads" in parts:
        a = ["--depth", "5" if args.quick else "7"]
        engines = {"start d7 2 threads": lambda: chessvar_pair(cv, a, threads=2),
                   "1 thread": lambda: chessvar_pair(cv, a, threads=1)}
        add("start d7 2 threads", alternate(engines, runs), base="start d7 2 threads")
        report["threads_note"] = "2 threads against 1 on a machine whose other load is in loadavg"
    load_at_end(report)
    report["all_counts_agree"] = ok
    write_json(out, report)
    plot(report, os.path.splitext(out)[0] + ".png")
    print(f"medians of {runs} run(s); wrote {os.path.relpath(out, ROOT)} and its plot")
    return ok


def report_engines(args, runs, engines):
    """The engines report: every installed engine on the rows it can express;
    results/engine_comparison.json and .csv. Returns whether every count agreed."""
    rows, ok = [], True
    for label, variant, fen, depth, qdepth, others in ENGINE_ROWS:
        d = qdepth if args.quick else depth
        names = ["chessvar"] + [e for e in others if e in engines]
        samples = {n: [] for n in names}
        counts = {n: set() for n in names}
        for _ in range(runs):
            for n in names:
                if n == "chessvar":
                    nodes, secs, wall = chessvar_run(args.binary, ["--variant", variant, "--fen", fen,
                                                                   "--depth", str(d)])
                else:
                    t0 = time.perf_counter()
                    nodes, secs = uci_pair(engines[n], fen, d, others[n])
                    wall = time.perf_counter() - t0
                samples[n].append((secs, wall))
                counts[n].add(nodes)
        allcounts = set().union(*counts.values())
        agree = len(allcounts) == 1
        ok &= agree
        nodes = min(allcounts)
        row = {"label": label, "variant": variant, "fen": fen, "depth": d, "nodes": nodes, "counts_agree": agree,
               "counts": {n: sorted(c) for n, c in counts.items()}, "engines": {}}
        for n in names:
            med = statistics.median(s for s, _ in samples[n])
            row["engines"][n] = {"median_seconds": med, "nps": nodes / med if med else None,
                                 "runs_seconds": [s for s, _ in samples[n]],
                                 "median_process_seconds": statistics.median(w for _, w in samples[n]),
                                 "uci_variant": others.get(n)}
        cv = row["engines"]["chessvar"]["median_seconds"]
        for n in names[1:]:
            row["engines"][n]["chessvar_speed_ratio"] = row["engines"][n]["median_seconds"] / cv
        rows.append(row)
        line = f"{label:32s} d{d} {nodes:>11d} {'ok ' if agree else 'DIFF'}"
        for n in names:
            e = row["engines"][n]
            line += f"  {n} {e['nps'] / 1e6:7.1f} Mn/s"
            if "chessvar_speed_ratio" in e:
                line += f" (x{e['chessvar_speed_ratio']:.2f})"
        print(line)
    versions = {n: engine_name(p) for n, p in engines.items()}
    res = dict(run_info(args), runs=runs, threads=1, engines=versions,
               ratio="engine median seconds / chessvar median seconds (>1: chessvar faster)", rows=rows)
    out = out_path(args, "engine_comparison")
    write_json(out, res)
    with open(out_path(args, "engine_comparison", ".csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["row", "variant", "depth", "nodes", "engine", "median_seconds", "nps", "chessvar_speed_ratio"])
        for r in rows:
            for n, e in r["engines"].items():
                w.writerow([r["label"], r["variant"], r["depth"], r["nodes"], n, f"{e['median_seconds']:.6f}",
                            f"{e['nps']:.0f}", f"{e.get('chessvar_speed_ratio', 1.0):.3f}"])
    print(f"written to {os.path.relpath(out, ROOT)} and .csv")
    return ok


def report_stockfish(args, runs, sf):
    """The stockfish report: orthodox perft against Stockfish, chessvar's perft time and its
    whole-process time; results/perft_vs_stockfish.json. Returns whether every count agreed."""
    report = dict(run_info(args), pairs=runs,
                  order="alternating: chessvar, Stockfish, chessvar, Stockfish, ...",
                  stockfish={"binary": os.path.basename(sf), "threads": 1, "name": engine_name(sf),
                             "timing": "from sending 'go perft' to reading 'Nodes searched'"},
                  positions=[])
    report["chessvar"].update(path=os.path.relpath(args.binary, ROOT), threads=1,
                              timing="perft = JSON 'seconds'; process = whole process wall")
    ok = True
    print(f"{'position':10} {'depth':>5} {'nodes':>12} {'SF s':>8} {'SF Mn/s':>8} "
          f"{'cv s':>8} {'cv Mn/s':>8} {'cv proc s':>9} {'speed cv/SF':>11}")
    for name, fen, depth_full, depth_quick in STOCKFISH_POSITIONS:
        depth = depth_quick if args.quick else depth_full
        cv_perft, cv_proc, sf_runs = [], [], []
        for _ in range(runs):
            nodes, secs, wall = chessvar_run(args.binary, ["--fen", fen, "--depth", str(depth)])
            cv_perft.append((nodes, secs))
            cv_proc.append((nodes, wall))
            sf_runs.append(uci_pair(sf, fen, depth))
        entry = {"name": name, "fen": fen, "depth": depth, "stockfish": summary(sf_runs),
                 "chessvar": {"perft": summary(cv_perft), "process": summary(cv_proc)}}
        entry["nodes"] = entry["stockfish"]["nodes"]
        agree = len({n for n, _ in sf_runs + cv_perft}) == 1
        entry["counts_agree"] = agree
        ok = ok and agree
        sf_med = entry["stockfish"]["median_seconds"]
        entry["speed_ratio_chessvar_over_stockfish"] = {
            kind: round(sf_med / entry["chessvar"][kind]["median_seconds"], 3) for kind in ("perft", "process")}
        report["positions"].append(entry)
        sfs, cp, cq = entry["stockfish"], entry["chessvar"]["perft"], entry["chessvar"]["process"]
        print(f"{name:10} {depth:>5} {entry['nodes']:>12} {sfs['median_seconds']:>8.3f} "
              f"{sfs['nps_median'] / 1e6:>8.1f} {cp['median_seconds']:>8.3f} {cp['nps_median'] / 1e6:>8.1f}"
              f" {cq['median_seconds']:>9.3f} {entry['speed_ratio_chessvar_over_stockfish']['perft']:>11.2f}"
              + ("" if agree else "  COUNTS DIFFER"))
        if not agree:
            print(f"error: node counts differ on {name} depth {depth}", file=sys.stderr)
    report["all_counts_agree"] = ok
    load_at_end(report)
    out = out_path(args, "perft_vs_stockfish")
    write_json(out, report)
    print(f"medians of {runs} run(s) each; wrote {os.path.relpath(out, ROOT)}")
    return ok


def report_fairy(args, runs, fairy):
    """The fairy report: cannon10 counts at every depth below the timed one, then speed,
    against Fairy-Stockfish; results/supremo_fairy.json. Returns whether every count agreed."""
    ok, rows = True, []
    for name, fen, depth, quick_depth in CANNON10:
        d = quick_depth if args.quick else depth
        counts = []
        for k in range(1, d):
            a = chessvar_pair(args.binary, ["--variant", "cannon10", "--fen", fen, "--depth", str(k)])[0]
            b = uci_pair(fairy, fen, k, "cannon10")[0]
            counts.append({"depth": k, "chessvar": a, "fairy": b})
            if a != b:
                print(f"MISMATCH {name} depth {k}: chessvar {a}, Fairy-Stockfish {b}")
        res = alternate({"chessvar": lambda: chessvar_pair(
                             args.binary, ["--variant", "cannon10", "--fen", fen, "--depth", str(d)]),
                         "fairy_stockfish": lambda: uci_pair(fairy, fen, d, "cannon10")}, runs)
        cv, fs = res["chessvar"], res["fairy_stockfish"]
        counts.append({"depth": d, "chessvar": cv["nodes"], "fairy": fs["nodes"]})
        agree = all(c["chessvar"] == c["fairy"] for c in counts) and cv["counts_agree"] and fs["counts_agree"]
        ok = ok and agree
        ratio = round(fs["median_seconds"] / cv["median_seconds"], 2) if cv["median_seconds"] > 0 else None
        rows.append({"name": name, "fen": fen, "depth": d, "nodes": cv["nodes"], "counts_agree": agree,
                     "counts": counts, "chessvar": cv, "fairy_stockfish": fs, "speed_ratio": ratio})
        print(f"{name:8} depth {d}  nodes {cv['nodes']:>11}  chessvar {cv['nps_median'] / 1e6:6.2f} Mn/s  "
              f"Fairy-Stockfish {fs['nps_median'] / 1e6:6.2f} Mn/s  ratio {ratio:.2f}x")
    total_cv = sum(r["chessvar"]["median_seconds"] for r in rows)
    total_fs = sum(r["fairy_stockfish"]["median_seconds"] for r in rows)
    result = dict(run_info(args),
                  what="perft, chessvar (Supremo generator, variant cannon10) vs Fairy-Stockfish, one thread each",
                  why_cannon10="Fairy-Stockfish 11.1 cannot define custom pieces, so Supremo's Super "
                               "pieces (slider + cannon hop) are not expressible; cannon10 uses the pieces "
                               "both engines have, on the same 10x10 generator",
                  fairy_stockfish=engine_name(fairy), fairy_ini=os.path.relpath(INI, ROOT), pairs=runs,
                  positions=rows, overall_speed_ratio=round(total_fs / total_cv, 2) if total_cv > 0 else None,
                  counts_agree=ok)
    out = out_path(args, "supremo_fairy")
    write_json(out, result)
    print(f"overall ratio (sum of median times) {result['overall_speed_ratio']}x; "
          f"written {os.path.relpath(out, ROOT)}")
    return ok


REPORTS = ("anchors", "engines", "stockfish", "fairy")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--report", default="anchors", choices=REPORTS + ("all",),
                    help="which comparison to run (default anchors)")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--gigantua", default=os.environ.get("CHESSVAR_GIGANTUA"),
                    help="Gigantua binary (built elsewhere; anchors report; default $CHESSVAR_GIGANTUA)")
    ap.add_argument("--qperft", default=os.environ.get("CHESSVAR_QPERFT"),
                    help="qperft binary (built elsewhere; anchors report; default $CHESSVAR_QPERFT)")
    ap.add_argument("--stockfish", help="Stockfish binary (default: stockfish)")
    ap.add_argument("--fairy", default=None, help="Fairy-Stockfish 11.1 binary (default: fairy-stockfish)")
    ap.add_argument("--runs", type=int, default=None,
                    help="alternating rounds (default: anchors and fairy 3, engines and stockfish 5)")
    ap.add_argument("--quick", action="store_true", help="shallower, one round, separate output")
    ap.add_argument("--only", help="anchors report: run only the parts named: orthodox,10x10,variants,threads "
                         "(default all four), and cpw (run only when named)")
    ap.add_argument("--out", default=None, help="directory of the output files (default results/)")
    args = ap.parse_args()
    if args.report in ("anchors", "all"):
        require("matplotlib")  # the plot: fail now, not after the runs
    if not os.access(args.binary, os.X_OK):
        print(f"perft_speed: {args.binary}: chessvar binary not found (build first, or pass --binary)",
              file=sys.stderr)
        return 2
    reports = REPORTS if args.report == "all" else (args.report,)
    found = {}
    for name, given in (("stockfish", args.stockfish), ("fairy-stockfish", args.fairy)):
        try:
            found[name] = find_engine(given, (name,))
        except FileNotFoundError:
            print(f"note: {name} not found (scripts/setup.sh installs it)")
    ok = True
    for report in reports:
        runs = args.runs or (1 if args.quick else (3 if report in ("anchors", "fairy") else 5))
        needs = {"anchors": ("stockfish", "fairy-stockfish"), "engines": (), "stockfish": ("stockfish",),
                 "fairy": ("fairy-stockfish",)}[report]
        if any(n not in found for n in needs):
            print(f"perft_speed: the {report} report needs {' and '.join(needs)}", file=sys.stderr)
            return 2
        if report == "anchors":
            ok &= report_anchors(args, runs, found["stockfish"], found["fairy-stockfish"])
        elif report == "engines":
            ok &= report_engines(args, runs, found)
        elif report == "stockfish":
            ok &= report_stockfish(args, runs, found["stockfish"])
        else:
            ok &= report_fairy(args, runs, found["fairy-stockfish"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
