#!/usr/bin/env python3
"""Measures what the plots need that no other script writes, then draws every plot.

Writes to results/:
  perft_depths.json          perft counts and times against depth, per variant start
  thread_scaling.json        perft speed-up against threads, per variant
  plot_nps.png               nodes/s per variant and engine (results/engine_comparison.json)
  plot_threads.png           speed-up against threads
  plot_selfplay.png          self-play positions/s per variant (results/selfplay_throughput*.json)
  plot_perft_depth.png       perft node counts against depth, log scale
and refreshes the figures table between its markers in results/README.md (in the part
written by hand, which results_index keeps) and the index of every file in results/
(scripts/measure/results_index.py).

  python3 -m scripts.measure.make_plots            # measure (about a minute) and plot
  python3 -m scripts.measure.make_plots --no-measure   # plot from the JSON files already there

Needs matplotlib: `bash scripts/setup.sh --measure` installs it (the tests do not need it).
"""
import argparse
import json
import os
import sys
import textwrap

from scripts.common.system_python import require

require("matplotlib")
import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from scripts.common.measure_env import machine_info  # noqa: E402
from scripts.common.chessvar_run import perft as chessvar_perft  # noqa: E402
from scripts.measure import results_index  # noqa: E402

from scripts.common import ROOT
RES = os.path.join(ROOT, "results")
VARIANTS = ["chess", "switching", "superchess", "supremo"]
MAX_DEPTH = {"chess": 6, "switching": 5, "superchess": 4, "supremo": 3}
SCALING_DEPTH = {"chess": 6, "switching": 5, "superchess": 5, "supremo": 4}


def perft(binary, variant, depth, threads):
    return chessvar_perft(binary, "--variant", variant, "--depth", str(depth), "--threads", str(threads))


def measure(binary, runs):
    depths = {"machine": machine_info(), "variants": {}}
    for v in VARIANTS:
        depths["variants"][v] = [perft(binary, v, d, 1) for d in range(1, MAX_DEPTH[v] + 1)]
    json.dump(depths, open(os.path.join(RES, "perft_depths.json"), "w"), indent=2)
    cores = os.cpu_count() or 1
    threads = sorted({1, 2, cores})
    scaling = {"machine": machine_info(), "runs": runs, "variants": {}}
    for v in VARIANTS:
        rows = []
        for t in threads:
            secs = sorted(perft(binary, v, SCALING_DEPTH[v], t)["seconds"] for _ in range(runs))
            rows.append({"threads": t, "median_seconds": secs[len(secs) // 2]})
        for r in rows:
            r["speedup"] = rows[0]["median_seconds"] / r["median_seconds"]
        scaling["variants"][v] = {"depth": SCALING_DEPTH[v], "rows": rows}
    json.dump(scaling, open(os.path.join(RES, "thread_scaling.json"), "w"), indent=2)


def load(name):
    p = os.path.join(RES, name)
    return json.load(open(p)) if os.path.exists(p) else None


def plot_nps(table):
    comp = load("engine_comparison.json")
    if not comp:
        return
    rows = comp["rows"]
    engines = sorted({e for r in rows for e in r["engines"]}, key=lambda e: (e != "chessvar", e))
    fig, ax = plt.subplots(figsize=(11, 4.8))
    width = 0.8 / len(engines)
    for i, e in enumerate(engines):
        xs = [k + i * width for k, r in enumerate(rows) if e in r["engines"]]
        ys = [r["engines"][e]["nps"] / 1e6 for r in rows if e in r["engines"]]
        ax.bar(xs, ys, width, label=e)
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(rows))])
    # labels wrapped to the bar group's width, so neighbours never overlap
    ax.set_xticklabels([textwrap.fill(r["label"], 16) + f"\nd{r['depth']}" for r in rows], fontsize=8)
    ax.set_ylabel("Mnodes/s (1 thread)")
    ax.set_yscale("log")
    ax.set_title("perft speed, same positions, same machine, one run")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(RES, "plot_nps.png"), dpi=110)
    for r in rows:
        cv = r["engines"]["chessvar"]["nps"] / 1e6
        others = ", ".join(f"{e} {x['nps'] / 1e6:.1f} ({x['chessvar_speed_ratio']:.2f}x)" for e, x in r["engines"].items()
                           if e != "chessvar")
        table.append(f"| perft {r['label']} d{r['depth']} | {cv:.1f} Mnodes/s | {others} |")


def plot_threads(table):
    sc = load("thread_scaling.json")
    if not sc:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for v, d in sc["variants"].items():
        ax.plot([r["threads"] for r in d["rows"]], [r["speedup"] for r in d["rows"]], marker="o", label=f"{v} d{d['depth']}")
        table.append(f"| perft threads {v} d{d['depth']} | {d['rows'][-1]['speedup']:.2f}x on {d['rows'][-1]['threads']} threads | |")
    t = [r["threads"] for r in next(iter(sc["variants"].values()))["rows"]]
    ax.plot(t, t, "k--", lw=0.8, label="ideal")
    ax.set_xlabel("threads")
    ax.set_ylabel("speed-up over 1 thread")
    ax.set_title("perft speed-up against threads")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(RES, "plot_threads.png"), dpi=110)


def plot_selfplay(table):
    data = load("selfplay_throughput.json")
    if not data:
        return
    rows = [r for r in (data.get("rows") or []) if "positions_per_second_1_thread" in r]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [r["positions_per_second_1_thread"] for r in rows], 0.4, label="1 thread")
    ax.bar([x + 0.2 for x in xs], [r["positions_per_second_2_threads"] for r in rows], 0.4, label="2 threads")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([r["variant"] for r in rows])
    ax.set_ylabel("positions/s")
    ax.set_title(f"self-play throughput, {rows[0].get('nodes_per_move', '?')} nodes per move")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(RES, "plot_selfplay.png"), dpi=110)
    for r in rows:
        table.append(f"| self-play {r['variant']}, {r.get('nodes_per_move', '?')} nodes/move | "
                     f"{r['positions_per_second_1_thread']:.0f} positions/s (1 thread) | "
                     f"{r['positions_per_second_2_threads']:.0f} on 2 threads ({r['speedup_2_threads']:.2f}x) |")


def plot_depths(table):
    dd = load("perft_depths.json")
    if not dd:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for v, rows in dd["variants"].items():
        ax.plot([r["depth"] for r in rows], [r["nodes"] for r in rows], marker="o", label=v)
    ax.set_yscale("log")
    ax.set_xlabel("depth")
    ax.set_ylabel("perft nodes (start position)")
    ax.set_title("perft node counts against depth")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(RES, "plot_perft_depth.png"), dpi=110)


def update_readme(table, mach):
    """Writes the figures table between its markers in results/README.md."""
    path = os.path.join(RES, "README.md")
    text = open(path).read()
    start, end = "<!-- figures:start -->", "<!-- figures:end -->"
    if start not in text or end not in text:
        print(f"make_plots: {path}: no {start} ... {end} markers, figures table not written",
              file=sys.stderr)
        return
    body = [start, "", f"From the JSON files in results/, measured on {mach['cpu_model']} with {mach['logical_cpus']} cores "
                      f"(table made {mach['date']}; each file's build and commit: the index above; a shared "
                      "machine: ratios measured side by side are the numbers to trust).", "",
            "| what | chessvar | beside it |", "|---|---|---|"] + table + ["", end]
    a, b = text.index(start), text.index(end) + len(end)
    open(path, "w").write(text[:a] + "\n".join(body) + text[b:])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--no-measure", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    os.makedirs(RES, exist_ok=True)
    if not args.no_measure:
        measure(args.binary, args.runs)
    table = []
    plot_nps(table)
    plot_threads(table)
    plot_selfplay(table)
    plot_depths(table)
    update_readme(table, machine_info())
    print("\n".join(table))
    results_index.main([])


if __name__ == "__main__":
    main()
