#!/usr/bin/env python3
"""Time chessvar's orthodox perft against Stockfish's `go perft`, single thread, side by side.

Positions: the start position to depth 6 and Kiwipete to depth 5 (--quick: depths 5 and 4,
one pair). Runs alternate, chessvar then Stockfish, `--pairs` times (default 5); each run is
its own process.

  chessvar:  `chessvar perft --fen F --depth D --json --threads 1`; both the `seconds` field
             of its JSON (the perft alone) and the wall time of the whole process are kept.
             If this chessvar does not know --threads yet, the run is repeated without it
             and the result records that (chessvar perft is single-threaded then).
  Stockfish: one process per run with `setoption name Threads value 1`; the clock runs from
             sending `go perft D` to reading `Nodes searched`, so start-up and network
             loading are excluded.

Node counts must agree between the engines and across runs (exit status 1 otherwise).
Medians, nodes per second and the speed ratio chessvar/Stockfish go to
results/perft_vs_stockfish.json with machine information; a small table is printed.

  python3 scripts/compare_stockfish.py
  python3 scripts/compare_stockfish.py --quick
  python3 scripts/compare_stockfish.py --stockfish-only --quick      # no chessvar needed
"""

import argparse
import datetime
import json
import os
import shlex
import statistics
import sys

from measure_env import git_state, machine_info  # noqa: E402
from chessvar_run import ChessvarError, run_timed  # noqa: E402
from uci_engine import UciEngine, find_engine

POSITIONS = [
    ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6, 5),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 4),
]


class ChessvarRunner:
    """Runs `chessvar perft` as a process and parses its JSON line."""

    def __init__(self, path, extra_args):
        self.path = path
        self.extra = extra_args
        self.extra_supported = None
        self.reported_threads = set()

    def _invoke(self, fen, depth, extra):
        """One process run; return (result object, wall seconds)."""
        res, timing = run_timed([self.path, "perft", "--fen", fen, "--depth", str(depth)] + extra)
        return res, timing["wall_seconds"]

    def run(self, fen, depth):
        """Return (nodes, perft seconds from the JSON, whole-process seconds)."""
        extra = self.extra if self.extra_supported is not False else []
        try:
            result, wall = self._invoke(fen, depth, extra)
            if self.extra_supported is None:
                self.extra_supported = bool(extra)
        except ChessvarError as e:
            if not (extra and "unknown option" in e.stderr):
                raise
            self.extra_supported = False
            result, wall = self._invoke(fen, depth, [])
        if "threads" in result:
            self.reported_threads.add(int(result["threads"]))
        return int(result["nodes"]), float(result["seconds"]), wall


def stockfish_run(path, fen, depth):
    """One Stockfish process, one thread: return (nodes, seconds of the perft, engine name)."""
    with UciEngine(path, threads=1) as engine:
        engine.set_position(fen)
        nodes, _, secs = engine.perft_divide(depth)
        return nodes, secs, engine.name


def summarise(times, nodes):
    """Median, min, max of a list of seconds and the nodes/s at the median."""
    med = statistics.median(times)
    return {"runs_seconds": [round(t, 6) for t in times], "median_seconds": round(med, 6),
            "min_seconds": round(min(times), 6), "max_seconds": round(max(times), 6),
            "nps_at_median": round(nodes / med) if med > 0 else None}


def main():
    """Command-line entry point."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chessvar", default=os.path.join(root, "build", "chessvar"))
    ap.add_argument("--chessvar-args", default="--threads 1",
                    help="extra chessvar perft arguments (default: '--threads 1')")
    ap.add_argument("--stockfish", default=None, help="Stockfish binary (default: stockfish)")
    ap.add_argument("--pairs", type=int, default=None, help="alternating run pairs (default 5)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: shallower depths, one pair, separate output file")
    ap.add_argument("--stockfish-only", action="store_true",
                    help="time Stockfish alone (for checking this script without chessvar)")
    ap.add_argument("--out", default=None,
                    help="JSON output (default results/perft_vs_stockfish.json, "
                         "results/perft_vs_stockfish_quick.json with --quick)")
    args = ap.parse_args()

    pairs = args.pairs if args.pairs is not None else (1 if args.quick else 5)
    if pairs < 1:
        ap.error("--pairs must be at least 1")
    out = args.out or os.path.join(
        root, "results", "perft_vs_stockfish_quick.json" if args.quick
        else "perft_vs_stockfish.json")
    sf_path = find_engine(args.stockfish)
    chessvar = None
    if not args.stockfish_only:
        if not os.access(args.chessvar, os.X_OK):
            print(f"error: {args.chessvar} not found or not executable (build it first)",
                  file=sys.stderr)
            return 2
        chessvar = ChessvarRunner(args.chessvar, shlex.split(args.chessvar_args))

    head, dirty = git_state(root)
    report = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine_info(),
        "mode": "quick" if args.quick else "full",
        "pairs": pairs,
        "order": "alternating: chessvar, Stockfish, chessvar, Stockfish, ...",
        "stockfish": {"binary": os.path.basename(sf_path), "threads": 1,
                      "timing": "from sending 'go perft' to reading 'Nodes searched'"},
        "chessvar": None if chessvar is None else {
            "path": os.path.relpath(args.chessvar, root), "git_commit": head,
            "sources_differ_from_commit": dirty,
            "requested_args": args.chessvar_args,
            "timing": "perft_seconds = JSON 'seconds'; process_seconds = whole process wall"},
        "positions": [],
    }
    ok = True
    rows = []
    for name, fen, depth_full, depth_quick in POSITIONS:
        depth = depth_quick if args.quick else depth_full
        sf_times, cv_perft, cv_proc, counts = [], [], [], set()
        sf_nodes = cv_nodes = None
        for _ in range(pairs):
            if chessvar is not None:
                cv_nodes, secs, wall = chessvar.run(fen, depth)
                cv_perft.append(secs)
                cv_proc.append(wall)
                counts.add(("chessvar", cv_nodes))
            sf_nodes, secs, sf_name = stockfish_run(sf_path, fen, depth)
            report["stockfish"]["name"] = sf_name
            sf_times.append(secs)
            counts.add(("stockfish", sf_nodes))
        agree = len({n for _, n in counts}) == 1
        ok = ok and agree
        entry = {"name": name, "fen": fen, "depth": depth, "nodes": sf_nodes,
                 "counts_agree": agree, "stockfish": summarise(sf_times, sf_nodes)}
        if chessvar is not None:
            entry["chessvar_nodes"] = cv_nodes
            entry["chessvar"] = {"perft": summarise(cv_perft, cv_nodes),
                                 "process": summarise(cv_proc, cv_nodes)}
            sf_med = entry["stockfish"]["median_seconds"]
            entry["speed_ratio_chessvar_over_stockfish"] = {
                "perft": round(sf_med / entry["chessvar"]["perft"]["median_seconds"], 3),
                "process": round(sf_med / entry["chessvar"]["process"]["median_seconds"], 3),
            }
        report["positions"].append(entry)
        rows.append(entry)
        if not agree:
            print(f"error: node counts differ on {name} depth {depth}: {sorted(counts)}",
                  file=sys.stderr)
    if chessvar is not None:
        report["chessvar"]["threads_flag_supported"] = chessvar.extra_supported
        report["chessvar"]["effective_args"] = (args.chessvar_args
                                                if chessvar.extra_supported else "")
        report["chessvar"]["threads_reported_in_json"] = sorted(chessvar.reported_threads)
    report["all_counts_agree"] = ok
    try:
        report["machine"]["loadavg_at_end"] = [float(x) for x in os.getloadavg()]
    except OSError:
        pass

    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=2)
        fh.write("\n")
    os.replace(tmp, out)

    print(f"{'position':10} {'depth':>5} {'nodes':>12} {'SF s':>8} {'SF Mn/s':>8} "
          f"{'cv s':>8} {'cv Mn/s':>8} {'cv proc s':>9} {'speed cv/SF':>11}")
    for e in rows:
        sf = e["stockfish"]
        line = (f"{e['name']:10} {e['depth']:>5} {e['nodes']:>12} {sf['median_seconds']:>8.3f} "
                f"{sf['nps_at_median'] / 1e6:>8.1f}")
        if "chessvar" in e:
            cp, cq = e["chessvar"]["perft"], e["chessvar"]["process"]
            line += (f" {cp['median_seconds']:>8.3f} {cp['nps_at_median'] / 1e6:>8.1f}"
                     f" {cq['median_seconds']:>9.3f}"
                     f" {e['speed_ratio_chessvar_over_stockfish']['perft']:>11.2f}")
        print(line + ("" if e["counts_agree"] else "  COUNTS DIFFER"))
    print(f"medians of {pairs} run(s) each; wrote {os.path.relpath(out, root)}")
    if chessvar is not None and chessvar.extra_supported is False:
        print(f"note: chessvar does not accept '{args.chessvar_args}'; ran without it")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
