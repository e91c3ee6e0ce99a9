#!/usr/bin/env python3
"""Nodes and CPU time to reach depth 8 and 10 on 50 fixed chess middlegame positions
(bench/middlegames.fen), chessvar's `uci` against Stockfish (`go depth D`), in the same run.
Writes results/search_vs_stockfish.json and results/plot_search_vs_stockfish.png.

Each engine runs one thread, its table cleared (ucinewgame) before every position. Nodes are
each engine's own count from its last `info depth D` line (the two count somewhat
differently: both count every node they visit, quiescence included). CPU time is the engine
process's user+system time around the search (from /proc, 10 ms ticks; summed over the 50
positions), so machine load does not enter it. Stockfish's path is an argument (the Debian
package installs /usr/games/stockfish)."""

import argparse
import json
import os
import subprocess
import sys

from scripts.common.system_python import require
from scripts.common.measure_env import git_state, machine_info  # noqa: E402

require("matplotlib")

from scripts.common import ROOT


class Engine:
    """A UCI engine process."""

    def __init__(self, cmd, options):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  bufsize=1)
        self.send("uci")
        self.wait("uciok")
        for k, v in options.items():
            self.send(f"setoption name {k} value {v}")
        self.send("isready")
        self.wait("readyok")

    def send(self, line):
        """Writes one command."""
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait(self, token):
        """Reads until a line starting with token; returns the lines read."""
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("engine exited")
            lines.append(line.strip())
            if line.startswith(token):
                return lines

    def cpu(self):
        """User+system CPU seconds of the process so far."""
        with open(f"/proc/{self.p.pid}/stat", encoding="ascii") as fh:
            f = fh.read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

    def search(self, fen, depth):
        """Nodes, engine-reported ms and CPU s to finish depth on fen."""
        self.send("ucinewgame")
        self.send("isready")
        self.wait("readyok")
        self.send(f"position fen {fen}")
        c0 = self.cpu()
        self.send(f"go depth {depth}")
        lines = self.wait("bestmove")
        c1 = self.cpu()
        last = None
        for line in lines:
            t = line.split()
            if t[:2] == ["info", "depth"] and int(t[2]) == depth and "nodes" in t \
                    and "upperbound" not in t and "lowerbound" not in t:
                last = t
        if last is None:  # a mate found early ends the search before depth: take the last
            last = [ln.split() for ln in lines if " nodes " in ln][-1]
        return {"nodes": int(last[last.index("nodes") + 1]),
                "time_ms": int(last[last.index("time") + 1]), "cpu_s": c1 - c0}

    def close(self):
        """Ends the process."""
        self.send("quit")
        self.p.wait(timeout=10)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--positions", default=os.path.join(ROOT, "bench", "middlegames.fen"))
    ap.add_argument("--depths", default="8,10")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "search_vs_stockfish.json"))
    a = ap.parse_args()
    fens = [ln.strip() for ln in open(a.positions, encoding="utf-8")
            if ln.strip() and not ln.startswith("#")]
    engines = {"chessvar": ([a.binary, "uci"], {}),
               "stockfish": ([a.stockfish], {"Threads": 1, "Hash": 16})}
    res = {"machine": machine_info(), "commit": git_state(ROOT)[0], "positions": len(fens),
           "engines": {k: " ".join([os.path.basename(v[0][0])] + list(v[0][1:])) for k, v in engines.items()}, "depths": {}}
    sf_version = subprocess.run([a.stockfish], input="uci\nquit\n", capture_output=True,
                                text=True).stdout.splitlines()[0]
    res["stockfish_version"] = sf_version
    for d in [int(x) for x in a.depths.split(",")]:
        row = {}
        for name, (cmd, opts) in engines.items():
            e = Engine(cmd, opts)
            per = [e.search(f, d) for f in fens]
            e.close()
            row[name] = {"nodes_total": sum(p["nodes"] for p in per),
                         "cpu_s_total": round(sum(p["cpu_s"] for p in per), 2),
                         "reported_ms_total": sum(p["time_ms"] for p in per),
                         "nodes_median": sorted(p["nodes"] for p in per)[len(per) // 2],
                         "per_position": per}
            print(d, name, row[name]["nodes_total"], row[name]["cpu_s_total"], flush=True)
        cv, sf = row["chessvar"], row["stockfish"]
        row["nodes_ratio_chessvar_over_stockfish"] = round(cv["nodes_total"] / sf["nodes_total"], 2)
        row["cpu_ratio_chessvar_over_stockfish"] = (
            round(cv["cpu_s_total"] / sf["cpu_s_total"], 2) if sf["cpu_s_total"] else None)
        res["depths"][str(d)] = row
        with open(a.out, "w", encoding="utf-8") as fh:
            json.dump(res, fh, indent=1)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    ds = sorted(res["depths"], key=int)
    for ax, key, label in ((axes[0], "nodes_total", "nodes (sum over positions)"),
                           (axes[1], "cpu_s_total", "CPU seconds (sum)")):
        for i, name in enumerate(("chessvar", "stockfish")):
            ax.bar([j + 0.4 * i for j in range(len(ds))],
                   [res["depths"][d][name][key] for d in ds], width=0.4, label=name)
        ax.set_xticks([j + 0.2 for j in range(len(ds))])
        ax.set_xticklabels([f"depth {d}" for d in ds])
        ax.set_yscale("log")
        ax.set_title(label, fontsize=9)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(os.path.dirname(a.out), "plot_search_vs_stockfish.png"), dpi=110)


if __name__ == "__main__":
    main()
