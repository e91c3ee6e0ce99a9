#!/usr/bin/env python3
"""Which build is fastest on this machine: the default build against the other
instruction sets and compilers, and cannon10 against Fairy-Stockfish, by whole-process CPU
time (user + system of the finished child, from os.wait4), alternating runs, medians.

Each round runs every (case, build) once, in turn, so a drift of the machine's speed hits
all builds alike; the ratio to the default build is taken round by round and its median
reported. Builds are configured and built here (Release, LTO as the default) unless
--no-build; each is a folder under --work:

  default     cmake -DCMAKE_BUILD_TYPE=Release                 (gcc, CHESSVAR_ARCH=native)
  gcc-v3      ... -DCHESSVAR_ARCH=x86-64-v3
  gcc-portable ... -DCHESSVAR_ARCH=portable
  clang       ... -DCMAKE_C_COMPILER=clang                     (CHESSVAR_ARCH=native)

Writes results/build_speed.json (or --out).

  python3 -m scripts.measure.build_speed                      # builds into build-speed/, 5 rounds
  python3 -m scripts.measure.build_speed --rounds 7 --default-build build
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

from scripts.common import ROOT
from scripts.common import measure_env  # noqa: E402

BUILDS = {
    "default": [],
    "gcc-v3": ["-DCHESSVAR_ARCH=x86-64-v3"],
    "gcc-portable": ["-DCHESSVAR_ARCH=portable"],
    "clang": ["-DCMAKE_C_COMPILER=clang"],
}
CASES = [  # (name, variant, depth): start positions
    ("cannon10 start perft 6", "cannon10", 6),
    ("supremo start perft 4", "supremo", 4),
    ("chess start perft 7", "chess", 7),
]
FAIRY_CASE = "cannon10 start perft 6"


def timed(argv, stdin_text=None):
    """CPU seconds (user + system) of one run of argv to its end, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    out, _ = p.communicate(stdin_text)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, out


def build(name, flags, work, jobs):
    """Configures and builds one chessvar binary; its path."""
    d = os.path.join(work, name)
    subprocess.run(["cmake", "-S", ROOT, "-B", d, "-DCMAKE_BUILD_TYPE=Release"] + flags,
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", d, "-j", str(jobs), "--target", "chessvar"],
                   check=True, stdout=subprocess.DEVNULL)
    return os.path.join(d, "chessvar")


def cache_value(binary, key):
    """A value of the CMake cache beside a binary, or None."""
    try:
        for line in open(os.path.join(os.path.dirname(binary), "CMakeCache.txt")):
            if line.startswith(key + ":"):
                return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def nodes_of(out):
    """The node count of `chessvar perft --json` or of Fairy-Stockfish's `Nodes searched`."""
    for line in out.splitlines():
        if line.startswith("Nodes searched:"):
            return int(line.split(":")[1])
        if line.startswith("{"):
            return json.loads(line).get("nodes")
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--work", default=os.path.join(ROOT, "build-speed"))
    ap.add_argument("--no-build", action="store_true", help="use the binaries already in --work")
    ap.add_argument("--default-build", help="folder of an existing default build to use as is")
    ap.add_argument("--fairy", default="/usr/games/fairy-stockfish")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "build_speed.json"))
    args = ap.parse_args()

    binaries = {}
    for name, flags in BUILDS.items():
        if name == "default" and args.default_build:
            binaries[name] = os.path.join(args.default_build, "chessvar")
        elif args.no_build:
            binaries[name] = os.path.join(args.work, name, "chessvar")
        else:
            print(f"build_speed: building {name} {' '.join(flags)}", flush=True)
            binaries[name] = build(name, flags, args.work, args.jobs)
    ini = os.path.join(ROOT, "bench", "fairy_variants.ini")
    fairy_input = (f"setoption name VariantPath value {ini}\nsetoption name UCI_Variant value "
                   f"cannon10\nposition startpos\ngo perft 6\nquit\n")

    cpu = {(c[0], b): [] for c in CASES for b in binaries}
    cpu.update({(FAIRY_CASE, "fairy-stockfish"): []})
    nodes = {}
    for r in range(args.rounds):
        for case, variant, depth in CASES:
            runs = [(b, [path, "perft", "--variant", variant, "--depth", str(depth), "--json",
                         "--threads", "1"], None) for b, path in binaries.items()]
            if case == FAIRY_CASE and os.access(args.fairy, os.X_OK):
                runs.append(("fairy-stockfish", [args.fairy], fairy_input))
            for b, argv, stdin_text in runs:
                t, out = timed(argv, stdin_text)
                n = nodes_of(out)
                if nodes.setdefault(case, n) != n:
                    sys.exit(f"build_speed: {b} counted {n} nodes for {case}, "
                             f"another run {nodes[case]}")
                cpu[(case, b)].append(t)
            print(f"round {r + 1}/{args.rounds} {case}: " + ", ".join(
                f"{b} {cpu[(case, b)][-1]:.3f} s" for b, _, _ in runs), flush=True)

    table = []
    for case, _, _ in CASES:
        base = cpu[(case, "default")]
        for b in list(binaries) + ["fairy-stockfish"]:
            ts = cpu.get((case, b))
            if not ts:
                continue
            ratios = [t / d for t, d in zip(ts, base)]
            table.append({"case": case, "build": b, "nodes": nodes[case],
                          "cpu_s_median": round(statistics.median(ts), 4),
                          "cpu_s_runs": [round(t, 4) for t in ts],
                          "ratio_to_default_median": round(statistics.median(ratios), 3)})
    for row in table:
        print(f"{row['case']:<24} {row['build']:<16} {row['cpu_s_median']:8.3f} s  "
              f"x{row['ratio_to_default_median']:.3f} of default")
    report = {
        "what": "whole-process CPU time (user+system), alternating runs, medians; ratio = "
                "this build's CPU time / the default build's, round by round",
        "command": "python3 -m scripts.measure.build_speed " + " ".join(sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": measure_env.machine_info(),
        "git": measure_env.git_state(ROOT),
        "builds": {b: {"binary_flags": BUILDS.get(b, []),
                       "compiler": cache_value(p, "CMAKE_C_COMPILER"),
                       "arch": cache_value(p, "CHESSVAR_ARCH")} for b, p in binaries.items()},
        "rounds": args.rounds,
        "table": table,
    }
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
