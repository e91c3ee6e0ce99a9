#!/usr/bin/env python3
"""CTest: the program stands on its own. `cmake --install` puts it (with the books and the
networks' provenance) under a prefix; run from there, in another folder, far from the
source tree, it plays every variant with the same built-in network that the file in
selfplay/nets/ holds (the same name and XXH3 in the run's player names), and a copy of the
binary moved elsewhere does the same.

usage: python3 tests/install_test.py BUILD_DIR WORK_DIR (from anywhere)
"""
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAILS = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILS.append(what)


def player_a(binary, variant, out, cwd, *extra):
    """Plays one short game and returns run.json's name of player A."""
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([binary, "selfplay", "--variant", variant, "--games", "1", "--nodes", "200",
                    "--threads", "1", "--progress", "0", "--out", out, *extra], cwd=cwd,
                   check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "run.json")) as f:
        return json.load(f)["player_a"]


def main():
    build, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    prefix = os.path.join(work, "prefix")
    subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True,
                   stdout=subprocess.DEVNULL)
    installed = os.path.join(prefix, "bin", "chessvar")
    check(os.access(installed, os.X_OK), "cmake --install puts bin/chessvar in place")
    share = os.path.join(prefix, "share", "chessvar")
    check(os.path.exists(os.path.join(share, "books", "chess.epd")), "the books are installed")
    check(os.path.exists(os.path.join(share, "nets", "chess.json")), "the nets' provenance too")
    moved = os.path.join(work, "elsewhere", "chessvar")
    os.makedirs(os.path.dirname(moved))
    shutil.copy2(os.path.join(build, "chessvar"), moved)
    away = os.path.join(work, "away")
    os.makedirs(away)
    for variant in ["chess", "switching", "superchess", "supremo"]:
        # the reference: the shipped file named explicitly, hashed from the file
        want = player_a(os.path.join(build, "chessvar"), variant, os.path.join(work, "ref"),
                        ROOT, "--eval", os.path.join(ROOT, "selfplay", "nets", f"{variant}.nnue"))
        for name, binary in [("installed", installed), ("moved", moved)]:
            got = player_a(binary, variant, os.path.join(away, name), away)
            check(got == want, f"{variant}, {name} binary: plays with its built-in net ({got})")
    print(f"{len(FAILS)} failed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
