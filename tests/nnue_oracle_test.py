#!/usr/bin/env python3
"""CTest: the C inference against an independent quantised forward pass. For each variant
(chess, switching, superchess, supremo) it makes a small self-play run (binary + JSONL),
trains a small network on it with `chessvar train`, evaluates the first 1,000 positions'
FENs with `chessvar train --net --eval-fens` (C: position -> features -> int16
accumulator -> output), and recomputes every score here with numpy from the binary records
(board codes, hands, pools) and the network file, parsed and checksummed by this script
from selfplay/NETWORK.md alone. Every score must be equal.

usage: nnue_oracle_test.py CHESSVAR_BINARY WORK_DIR
"""
import json
import os
import shutil
import struct
import subprocess
import sys

import numpy as np

from scripts.data.read_dataset import load_dataset, xxh3  # noqa: E402

POSITIONS = 1000
MAX_CP = 20000
HOLD_K = 4


def read_net(path):
    """Parses a network file (NETWORK.md): header dict and the weight arrays."""
    with open(path, "rb") as f:
        buf = f.read()
    assert buf[:8] == b"CVSPNNUE", "bad magic"
    version, hdr_size = struct.unpack_from("<HH", buf, 8)
    assert version == 1 and hdr_size == 64
    variant = buf[12:28].split(b"\0")[0].decode()
    width, height, npt, hold_k = buf[28], buf[29], buf[30], buf[31]
    fset, hidden, nfeat, qa, qb, scale, outputs = struct.unpack_from("<HHIHHHH", buf, 32)
    (payload,) = struct.unpack_from("<Q", buf, 48)
    assert payload == 2 * hidden + 2 * nfeat * hidden + 4 * hidden + 4
    assert len(buf) == 64 + payload + 8, "size"
    (check,) = struct.unpack_from("<Q", buf, 64 + payload)
    assert xxh3(buf[: 64 + payload]) == check, "checksum"
    off = 64
    ft_b = np.frombuffer(buf, "<i2", hidden, off).astype(np.int64)
    off += 2 * hidden
    ft_w = np.frombuffer(buf, "<i2", nfeat * hidden, off).astype(np.int64).reshape(nfeat, hidden)
    off += 2 * nfeat * hidden
    out_w = np.frombuffer(buf, "<i2", 2 * hidden, off).astype(np.int64)
    off += 4 * hidden
    (out_b,) = struct.unpack_from("<i", buf, off)
    hdr = dict(variant=variant, width=width, height=height, npt=npt, hold_k=hold_k,
               feature_set=fset, hidden=hidden, nfeat=nfeat, qa=qa, qb=qb, scale=scale,
               outputs=outputs)
    return hdr, ft_b, ft_w, out_w, out_b


def features(hdr, board, hand, pool, persp):
    """Active feature indices of one position from perspective persp (NETWORK.md)."""
    w, h, npt, k_cap = hdr["width"], hdr["height"], hdr["npt"], hdr["hold_k"]
    nsq = w * h
    out = []
    for sq in range(nsq):
        pc = int(board[sq])
        if not pc:
            continue
        t, c = pc & 31, pc >> 5
        s = sq if persp == 0 else (h - 1 - sq // w) * w + sq % w
        out.append(((t - 1) * 2 + (c != persp)) * nsq + s)
    if k_cap:
        nboard = npt * 2 * nsq
        for which, held in ((0, hand), (1, pool)):
            for c in range(2):
                for t in range(1, npt + 1):
                    cnt = int(held[c][t - 1]) if t - 1 < held.shape[1] else 0
                    for k in range(1, min(cnt, k_cap) + 1):
                        out.append(nboard + ((which * 2 + (c != persp)) * npt + (t - 1)) * k_cap
                                   + (k - 1))
    return out


def evaluate(net, board, hand, pool, stm):
    """The quantised forward pass in exact integer arithmetic."""
    hdr, ft_b, ft_w, out_w, out_b = net
    hid, qa = hdr["hidden"], hdr["qa"]
    halves = []
    for persp in (stm, 1 - stm):
        acc = ft_b + ft_w[features(hdr, board, hand, pool, persp)].sum(axis=0)
        acc = (acc + 32768) % 65536 - 32768  # int16 wrap-around
        halves.append(np.clip(acc, 0, qa))
    s = int(halves[0] @ out_w[:hid]) + int(halves[1] @ out_w[hid:]) + out_b
    num, den = s * hdr["scale"], qa * hdr["qb"]
    cp = abs(num) // den * (1 if num >= 0 else -1)  # C division truncates toward zero
    return max(-MAX_CP, min(MAX_CP, cp))


def check_variant(binary, work, variant, games, extra):
    out = os.path.join(work, "oracle_" + variant)
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([binary, "selfplay", "--variant", variant, "--games", str(games), "--seed", "5",
                    "--threads", "2", "--out", out, "--format", "bin,jsonl", "--progress", "0",
                    # the data's own evaluation does not matter here; classical keeps the
                    # games (and their position count) independent of the shipped nets
                    "--eval", "classical"]
                   + extra, check=True, stdout=subprocess.DEVNULL)
    net_path = os.path.join(work, f"oracle_{variant}.nnue")
    subprocess.run([binary, "train", "--data", out, "--out", net_path, "--hidden", "32",
                    "--batch", "256", "--positions", "20000", "--lr", "0.01", "--threads", "2",
                    "--val-permille", "0", "--progress", "0", "--shuffle", "1000"],
                   check=True, stderr=subprocess.DEVNULL)
    net = read_net(net_path)
    assert net[0]["variant"] == variant, net[0]
    data = load_dataset(out)
    rows = []
    for name in sorted(n for n in os.listdir(out) if n.endswith(".jsonl")):
        with open(os.path.join(out, name)) as f:
            rows += [json.loads(line) for line in f]
    assert len(rows) >= POSITIONS, f"{variant}: only {len(rows)} positions"
    index = {(int(g), int(p)): i for i, (g, p) in enumerate(zip(data["game"], data["ply"]))}
    rows = rows[:POSITIONS]
    fens = os.path.join(work, f"oracle_{variant}.fens")
    with open(fens, "w") as f:
        f.write("".join(r["fen"] + "\n" for r in rows))
    got = subprocess.run([binary, "train", "--net", net_path, "--variant", variant, "--eval-fens",
                          fens], check=True, capture_output=True, text=True).stdout.split()
    assert len(got) == POSITIONS, f"{variant}: {len(got)} scores for {POSITIONS} FENs"
    hld = data["meta"]["hold_types"]
    fails, nonzero = 0, 0
    for r, c_score in zip(rows, got):
        i = index[(r["game"], r["ply"])]
        if hld:
            hand, pool = data["hand"][i], data["pool"][i]
        else:
            hand = pool = np.zeros((2, 0), np.uint8)
        want = evaluate(net, data["board"][i], hand, pool, int(data["side"][i]))
        nonzero += want != 0
        if int(c_score) != want:
            fails += 1
            if fails <= 5:
                print(f"FAIL {variant} {r['fen']}: C {c_score}, oracle {want}")
    distinct = len(set(got))
    print(f"{variant}: {POSITIONS} positions, {fails} differ, {distinct} distinct scores")
    assert distinct > 50, f"{variant}: only {distinct} distinct scores, a net that says nothing"
    return fails


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    fails = 0
    for variant, games, extra in (("chess", 16, ["--nodes", "200"]),
                                  ("switching", 16, ["--nodes", "200"]),
                                  ("superchess", 16, ["--nodes", "200"]),
                                  ("supremo", 16, ["--nodes", "300"])):
        fails += check_variant(binary, work, variant, games, extra)
    print("nnue oracle:", "FAIL" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
