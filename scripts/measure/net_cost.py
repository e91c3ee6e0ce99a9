#!/usr/bin/env python3
"""What a network costs the search, net against net: callgrind instructions per search node
of the same self-play command with each net (`chessvar selfplay --variant V --games G
--seed S --threads 1 --nodes N --eval NET`, nnue_v2_speed's measurement), and each net's
node rate as a ratio to the first's. The games differ when the evaluations do, so the node
counts differ too; instructions per node is the comparable figure, and the load of the
machine does not move it. The binary must be an x86-64-v3 build (valgrind cannot run
AVX-512): cmake -DCHESSVAR_ARCH=x86-64-v3 -DCMAKE_BUILD_TYPE=Release.

  python3 -m scripts.measure.net_cost --callgrind V3BUILD/chessvar \\
      --net old=OLD.nnue --net new=selfplay/nets/chess.nnue --out results/net_cost.json
"""

import argparse
import json
import os
import sys
import tempfile
import time

from scripts.common import ROOT
from scripts.common.measure_env import git_state, machine_info
from scripts.measure.nnue_v2_speed import callgrind_per_node


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--callgrind", required=True, help="an x86-64-v3 chessvar")
    ap.add_argument("--net", action="append", required=True, metavar="NAME=FILE",
                    help="a net to measure (repeatable; the first is the baseline)")
    ap.add_argument("--variant", default="chess")
    ap.add_argument("--callgrind-games", type=int, default=4)
    ap.add_argument("--nodes", type=int, default=2000, help="self-play nodes per move")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--note", default="", help="a sentence kept in the record")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    nets = []
    for spec in args.net:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            sys.exit(f"net_cost: --net {spec}: expected NAME=FILE")
        if not os.path.isfile(path):
            sys.exit(f"net_cost: --net {spec}: no such file {path}")
        nets.append((name, path))
    if not os.access(args.callgrind, os.X_OK):
        sys.exit(f"net_cost: --callgrind {args.callgrind}: not an executable")

    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, path in nets:
            per_node = callgrind_per_node(args, path, work)
            print(f"net_cost: {name}: {per_node} instructions per node", file=sys.stderr)
            rows.append({"net": name, "file": os.path.basename(path),
                         "instructions_per_node": per_node})
    base = rows[0]["instructions_per_node"]
    for r in rows:
        r["node_rate_over_first"] = round(base / r["instructions_per_node"], 3)
    head, dirty = git_state(ROOT)
    report = {
        "what": "callgrind instructions per search node of one self-play command with each "
                "net, and each net's node rate as a ratio to the first's",
        "command": "python3 -m scripts.measure.net_cost " + " ".join(sys.argv[1:]),
        "selfplay": f"chessvar selfplay --variant {args.variant} --games "
                    f"{args.callgrind_games} --seed {args.seed} --threads 1 --nodes "
                    f"{args.nodes} --eval NET (under valgrind --tool=callgrind)",
        "date": time.strftime("%Y-%m-%d %H:%M:%S"), "commit": head,
        "sources_differ_from_commit": dirty, "machine": machine_info(), "rows": rows}
    if args.note:
        report["note"] = args.note
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    print(f"net_cost: wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
