#!/usr/bin/env python3
"""Measures training speed on one run folder: `chessvar train` (768 -> 2x256 for chess)
with 1 and 2 threads, and the PyTorch baseline (scripts/measure/train_torch_baseline.py) with a
sparse and a dense feature-transformer gradient; and the network's inference calls
(`chessvar train --net --bench`). Positions per second of wall time and per CPU second
(the children's user + system time, so a machine shared with other work still gives
comparable numbers). Writes JSON.

usage: python3 -m scripts.measure.measure_trainer CHESSVAR RUN_DIR OUT.json
           [--positions 3000000] [--torch-batches 20] [--fens FILE (default: the chess book)]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from scripts.common import ROOT


def timed(cmd, env=None):
    """Runs cmd; returns (stdout, wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode:
        sys.exit(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return r.stdout, wall, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("chessvar")
    ap.add_argument("run")
    ap.add_argument("out")
    ap.add_argument("--positions", type=int, default=3000000)
    ap.add_argument("--torch-batches", type=int, default=20)
    ap.add_argument("--fens", default=os.path.join(ROOT, "selfplay", "books", "chess.epd"),
                    help="FEN file for the inference timing (default: the chess book); "
                         "'' skips it")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        net = os.path.join(tmp, "m.nnue")
        for threads in (1, 2):
            for policy in ("default", "passive"):
                env = dict(os.environ)
                if policy == "passive":
                    env["OMP_WAIT_POLICY"] = "passive"
                cmd = [args.chessvar, "train", "--data", args.run, "--out", net, "--positions",
                       str(args.positions), "--threads", str(threads), "--progress", "0"]
                _, wall, cpu = timed(cmd, env)
                rows.append({"trainer": "chessvar train", "threads": threads,
                             "omp_wait_policy": policy, "positions": args.positions,
                             "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                             "positions_per_wall_s": round(args.positions / wall),
                             "positions_per_cpu_s": round(args.positions / cpu),
                             "command": " ".join(["chessvar"] + cmd[1:]).replace(net, "NET")})
                print(rows[-1], flush=True)
        for dense in (False, True):
            cmd = [sys.executable, "-m", "scripts.measure.train_torch_baseline", args.run,
                   "--batches", str(args.torch_batches), "--threads", "2"]
            if dense:
                cmd.append("--dense")
            out, _, _ = timed(cmd, dict(os.environ, PYTHONPATH=ROOT))
            res = json.loads(out.strip().splitlines()[-1])
            res["command"] = " ".join(["python3 -m scripts.measure.train_torch_baseline"] + cmd[3:])
            rows.append(res)
            print(rows[-1], flush=True)
        bench = None
        if args.fens:
            cmd = [args.chessvar, "train", "--net", net, "--variant", "chess", "--eval-fens",
                   args.fens, "--bench", "2000"]
            out, _, _ = timed(cmd, dict(os.environ, PYTHONPATH=ROOT))
            bench = json.loads(out)
            bench["command"] = " ".join(["chessvar"] + cmd[1:]).replace(net, "NET").replace(
                ROOT + os.sep, "")
    load = os.getloadavg()
    with open(os.path.join(args.run, "run.json")) as f:
        run_options = json.load(f)
    with open(args.out, "w") as f:
        json.dump({"run": os.path.basename(os.path.normpath(args.run)),
                   "run_options": run_options, "training": rows,
                   "inference_ns": bench, "load_average_at_end": [round(x, 2) for x in load],
                   "note": "positions per CPU second is the comparable figure on a shared "
                           "machine; wall rates depend on the other work running"}, f, indent=1)
        f.write("\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
