#!/usr/bin/env python3
"""ctest: `chessvar verify` agrees with Stockfish (published chess positions), with
Fairy-Stockfish (chess and the variants both express), with `chessvar uci` itself on every
variant and through a perftree adapter; finds the planted bugs of tests/wrong_engine.c at
the exact node; and exits 2 with the engine's last lines when the engine fails.

usage: verify_test.py CHESSVAR WRONG_ENGINE"""

import json
import os
import subprocess
import sys

from uci_session import check, find_tool

CHESSVAR, WRONG = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
POS4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1"
# Chessprogramming wiki "Perft Results": start, Kiwipete, positions 3 to 6
PUBLISHED = [(None, 4), (KIWIPETE, 3), ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4),
             (POS4, 3), ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3),
             ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 3)]


def verify(engine, depth, variant=None, fen=None, start=None, options=(), protocol=None):
    """Runs chessvar verify --json; returns (exit status, parsed object or None, stderr)."""
    cmd = [CHESSVAR, "verify", "--engine", engine, "--depth", str(depth), "--json",
           "--timeout", "120"]
    if variant:
        cmd += ["--variant", variant]
    if fen:
        cmd += ["--fen", fen]
    if start:
        cmd += ["--start", start]
    for o in options:
        cmd += ["--option", o]
    if protocol:
        cmd += ["--protocol", protocol]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    obj = json.loads(res.stdout) if res.stdout.strip() else None
    return res.returncode, obj, res.stderr


def agrees(label, *args, **kw):
    """Checks that verify reports agreement with equal node counts."""
    rc, obj, err = verify(*args, **kw)
    check(rc == 0 and obj and obj["agree"] and obj["engine_nodes"] == obj["chessvar_nodes"],
          f"{label}: expected agreement, got {rc} {obj} {err}")
    print(f"ok   {label}: {obj['chessvar_nodes']} nodes agree")


def main():
    stockfish, fairy = find_tool("stockfish"), find_tool("fairy-stockfish")
    for fen, depth in PUBLISHED:
        agrees(f"stockfish {fen or 'start'} d{depth}", stockfish, depth, fen=fen)
    agrees("fairy chess start d3", fairy, 3)
    agrees("fairy chess kiwipete d3", fairy, 3, fen=KIWIPETE)
    ini = os.path.join(ROOT, "bench", "fairy_variants.ini")
    agrees("fairy cannon10 start d3", fairy, 3, variant="cannon10",
           options=[f"VariantPath={ini}"])
    agrees("fairy superchess (amazon subset) d3", fairy, 3, variant="superchess",
           fen="r1b1k2r/ppp2ppp/2n2n2/2bpp1A1/4P3/2NP1N2/PPP2PPP/R1B1KB1R w - - 0 1",
           options=[f"VariantPath={ini}", "UCI_Variant=superchess-amazon"])
    me = f"{CHESSVAR} uci"
    for v, d in [("chess", 3), ("switching", 3), ("superchess", 2), ("supremo", 2),
                 ("cannon10", 3)]:
        agrees(f"chessvar uci {v} d{d}", me, d, variant=v)
    agrees("chessvar uci superchess p1 (castling) d3", me, 3, variant="superchess", start="p1")
    agrees("perftree adapter kiwipete d3", f"sh {HERE}/perftree_chessvar.sh {CHESSVAR}", 3,
           fen=KIWIPETE, protocol="perftree")

    # the planted bugs: the exact node, path and moves
    rc, obj, err = verify(f"{WRONG} castle", 3, fen=KIWIPETE)
    check(rc == 1 and obj and not obj["agree"], f"castle bug: exit 1, got {rc} {err}")
    check(obj["fen"] == "r3k2r/p1ppqpb1/bn2pnp1/3PN3/N3P3/1p3Q1p/PPPBBPPP/R3K2R w KQkq - 0 2"
          and obj["path"] == ["c3a4", "b4b3"] and obj["missing"] == ["e1c1"]
          and obj["extra"] == [] and obj["diff_depth"] == 1
          and obj["engine_nodes"] == 97826 and obj["chessvar_nodes"] == 97862,
          f"castle bug found at the wrong node: {obj}")
    print("ok   planted castling bug found:", obj["path"], obj["missing"])
    rc, obj, err = verify(f"{WRONG} promo", 4, fen=POS4)
    check(rc == 1 and obj["path"] == ["g1h1"] and sorted(obj["missing"]) == ["b2a1n", "b2b1n"]
          and obj["fen"] == "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1R1K b kq - 1 1",
          f"promotion bug found at the wrong node: {rc} {obj} {err}")
    print("ok   planted promotion bug found:", obj["path"], obj["missing"])
    rc, obj, err = verify(f"{WRONG} extra", 3)
    check(rc == 1 and obj["extra"] == ["a1a1"] and obj["missing"] == []
          and obj["path"] == ["b1a3", "a7a5"], f"extra move found at the wrong node: {obj}")
    print("ok   planted extra move found:", obj["path"], obj["extra"])
    # the text report names the same things
    res = subprocess.run([CHESSVAR, "verify", "--engine", f"{WRONG} castle", "--depth", "3",
                          "--fen", KIWIPETE], capture_output=True, text=True, check=False)
    check(res.returncode == 1 and "path:    c3a4 b4b3" in res.stdout
          and "missing: e1c1" in res.stdout, f"text report: {res.stdout}")

    # engine failures: exit 2 with the engine's last lines; usage errors: exit 2
    rc, obj, err = verify("echo this is not an engine", 2)
    check(rc == 2 and "this is not an engine" in err and "engine failure" in err,
          f"a non-engine: exit 2 with its last lines, got {rc} {err}")
    rc, obj, err = verify(me, 2, options=["UCI_Variant=supremo"])  # a chess FEN for supremo
    check(rc == 2 and "refused the position" in err, f"an engine refusing the FEN: {rc} {err}")
    rc, obj, err = verify(os.path.join(HERE, "no-such-engine"), 2)
    check(rc == 2 and "engine failure" in err, f"a missing engine: exit 2, got {rc} {err}")
    rc, obj, err = verify("sh -c 'exit 5'", 2, protocol="perftree")
    check(rc == 2 and "exit status 5" in err, f"a failing perftree engine: exit 2, got {err}")
    res = subprocess.run([CHESSVAR, "verify", "--engine", stockfish], capture_output=True,
                         text=True, check=False)
    check(res.returncode == 2 and "--depth" in res.stderr, f"usage: {res.stderr}")
    print("verify: all checks passed")


if __name__ == "__main__":
    main()
