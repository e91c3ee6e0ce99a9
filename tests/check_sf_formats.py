#!/usr/bin/env python3
"""CTest: the Stockfish training formats of `chessvar selfplay` against the JSONL of the
same run. Decodes every PackedSfenValue record (--format sfbin, chess) and every plain
entry (--format plain, every variant) with scripts/data/read_dataset.py and checks FEN, move,
score, ply and result position by position; sfbin must be refused for other variants.

usage: PYTHONPATH=. python3 tests/check_sf_formats.py CHESSVAR_BINARY WORK_DIR (from the repository root;
CTest sets PYTHONPATH to the source directory)
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

from scripts.data.read_dataset import SF_VALUE_NONE, load_plain, load_sfbin

FAILS = []


def fail(msg):
    FAILS.append(msg)
    if len(FAILS) <= 20:
        print("FAIL", msg)


def run(binary, out, variant, games, extra, formats):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [binary, "selfplay", "--variant", variant, "--games", str(games), "--seed", "11",
           "--threads", "2", "--out", out, "--format", formats, "--progress", "0"] + extra
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    rows = []
    names = sorted(n for n in os.listdir(out) if n.endswith(".jsonl"))
    for n in names:
        with open(os.path.join(out, n)) as f:
            rows += [json.loads(line) for line in f]
    return rows


def expected(row):
    """(move, score, ply, result) that the Stockfish formats must hold for a JSONL row."""
    move = row["best"] or row["move"]
    s = row["score"]
    if s is None or row["best"] is None:
        score = SF_VALUE_NONE
    elif s > 29000:
        score = 32000 - (30000 - s)
    elif s < -29000:
        score = -32000 + (30000 + s)
    else:
        score = s
    r = row["result"]
    return move, score, row["ply"], 1 if r > 500 else -1 if r < 500 else 0


def compare(tag, rows, fens, moves, scores, plies, results):
    if len(rows) != len(fens):
        fail(f"{tag}: {len(fens)} entries, JSONL has {len(rows)}")
        return
    for i, row in enumerate(rows):
        move, score, ply, result = expected(row)
        got = (fens[i], moves[i], int(scores[i]), int(plies[i]), int(results[i]))
        want = (row["fen"], move, score, ply, result)
        if got != want:
            fail(f"{tag}: game {row['game']} ply {row['ply']}: got {got}, JSONL says {want}")


def check_move_kinds(sf, rows):
    """The 16-bit move's kind bits against the position: castling as king takes rook,
    e.p. onto the FEN's e.p. square, promotions from the 7th rank. Returns kind counts."""
    counts = [0, 0, 0, 0]
    for i, m in enumerate(sf["move"]):
        m = int(m)
        to, frm, kind = m & 63, (m >> 6) & 63, m >> 14
        counts[kind] += 1
        fen = rows[i]["fen"].split()
        stm = fen[1]
        if kind == 3:
            rook_sq = {("w", 7): "K", ("w", 0): "Q", ("b", 63): "k", ("b", 56): "q"}
            if (stm, to) not in rook_sq or rook_sq[(stm, to)] not in fen[2]:
                fail(f"sfbin record {i}: castling move {m:#06x} does not take a castling rook ({fen[2]})")
        elif kind == 2:
            ep = fen[3]
            if ep == "-" or "abcdefgh".index(ep[0]) + 8 * (int(ep[1]) - 1) != to:
                fail(f"sfbin record {i}: e.p. move {m:#06x} not onto the e.p. square {ep}")
        elif kind == 1 and frm // 8 != (6 if stm == "w" else 1):
            fail(f"sfbin record {i}: promotion {m:#06x} not from the 7th rank")
    return counts


def main():
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)

    out = os.path.join(work, "chess")
    rows = run(binary, out, "chess", 12, ["--nodes", "300", "--shard-games", "5"],
               "jsonl,plain,sfbin")
    # and games from a middlegame where both sides may castle either way
    out2 = os.path.join(work, "chess", "castling")
    rows += run(binary, out2, "chess", 8,
                ["--nodes", "300", "--random-plies", "16", "--start", "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/"
                 "R3K2R w KQkq - 0 1"], "jsonl,plain,sfbin")
    sf = {k: (list(a) + list(b)) for (k, a), b in zip(load_sfbin(out).items(), load_sfbin(out2).values())}
    sf = {k: (v if k in ("fen", "move_uci") else np.array(v)) for k, v in sf.items()}
    compare("chess sfbin", rows, sf["fen"], sf["move_uci"], sf["score"], sf["ply"], sf["result"])
    pl = {k: (list(a) + list(b)) for (k, a), b in zip(load_plain(out).items(), load_plain(out2).values())}
    compare("chess plain", rows, pl["fen"], pl["move"], pl["score"], pl["ply"], pl["result"])
    sizes = sum(os.path.getsize(os.path.join(d, n)) for d in (out, out2) for n in os.listdir(d)
                if n.endswith(".sf.bin"))
    if sf["sfen"].shape[1] != 32 or len(sf["score"]) * 40 != sizes:
        fail("sfbin files are not 40-byte records")
    kinds = check_move_kinds(sf, rows)
    searched = sum(1 for r in rows if r["best"])
    print(f"chess: {len(rows)} positions ({searched} searched) checked in sfbin and plain; "
          f"move kinds normal/promotion/ep/castling = {kinds}")
    if kinds[3] == 0 or searched == 0 or searched == len(rows):
        fail("the chess sample has no castling move, or no searched / no random position")

    for variant in ("switching", "superchess", "supremo"):
        out = os.path.join(work, variant)
        rows = run(binary, out, variant, 2, ["--nodes", "100", "--ply-cap", "120"], "jsonl,plain")
        pl = load_plain(out)
        compare(f"{variant} plain", rows, pl["fen"], pl["move"], pl["score"], pl["ply"],
                pl["result"])
        print(f"{variant}: {len(rows)} positions checked in plain")
        r = subprocess.run([binary, "selfplay", "--variant", variant, "--games", "1", "--out",
                            os.path.join(work, "refused"), "--format", "sfbin"],
                           capture_output=True, text=True)
        if r.returncode != 2 or "chess only" not in r.stderr:
            fail(f"{variant}: --format sfbin not refused (exit {r.returncode}: {r.stderr.strip()})")

    print("sf formats: " + ("OK" if not FAILS else f"{len(FAILS)} failure(s)"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
