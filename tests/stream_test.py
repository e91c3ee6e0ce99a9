#!/usr/bin/env python3
"""CTest: scripts/data/stream.py, the streaming batch reader. A fixed-seed run of each of
two variants written as bin and chain; the batches of the bin shards, of the chain shards
(decoded by `chessvar data convert ... --out -`) and of the whole-folder loader
read_dataset.load_dataset (an independent reader) must hold the same positions field by
field; batches have the asked size; board planes count every piece once; a corrupt bin
block is skipped with a message (strict: an error); the PyTorch adapter gives the same
scores when torch imports.

usage: PYTHONPATH=. python3 tests/stream_test.py CHESSVAR_BINARY WORK_DIR
"""
import os
import shutil
import subprocess
import sys

import numpy as np

from scripts.data.read_dataset import load_dataset
from scripts.data.stream import StreamError, board_planes, iter_batches

FAILS = []


def check(cond, msg):
    if not cond:
        FAILS.append(msg)
        print("FAIL", msg)


def collect(path, binary, batch, searched_only=True, strict=False):
    """All batches of path, concatenated, and the batch sizes."""
    parts, sizes = [], []
    for b in iter_batches(path, batch, searched_only, strict, binary):
        parts.append(b)
        sizes.append(len(b["score"]))
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}, sizes


def main():
    binary, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for variant, npt in (("chess", 6), ("superchess", 18)):
        run = os.path.join(work, variant)
        subprocess.run([binary, "selfplay", "--variant", variant, "--games", "4", "--nodes", "200",
                        "--shard-games", "2", "--seed", "3", "--format", "bin,chain", "--out",
                        run, "--progress", "0"], check=True, stdout=subprocess.DEVNULL)
        only_bin = os.path.join(work, variant + "_bin")
        os.makedirs(only_bin)
        for n in os.listdir(run):
            if n.endswith(".bin"):
                shutil.copy(os.path.join(run, n), only_bin)
        a, sizes = collect(only_bin, binary, 100, searched_only=False)
        c, _ = collect(run, binary, 100, searched_only=False)  # the folder's chains
        ref = load_dataset(only_bin)
        check(all(s == 100 for s in sizes[:-1]) and 0 < sizes[-1] <= 100,
              f"{variant}: batch sizes {sizes}")
        check(len(a["score"]) == len(ref["score"]),
              f"{variant}: {len(a['score'])} positions streamed, load_dataset {len(ref['score'])}")
        for k in ("game", "ply", "score", "result", "side", "move", "best", "key", "board"):
            check(np.array_equal(a[k], ref[k]), f"{variant}: bin stream field {k} differs from load_dataset")
            check(np.array_equal(c[k], a[k]), f"{variant}: chain stream field {k} differs from bin")
        s, _ = collect(run, binary, 64)
        keep = (ref["best"] != 0) & ((ref["flags"] & 1) == 0)
        check(np.array_equal(s["score"], ref["score"][keep]), f"{variant}: searched-only filter")
        planes = board_planes(a["board"][:50], npt)
        check(planes.sum() == np.count_nonzero(a["board"][:50]), f"{variant}: planes miss pieces")
        check(np.all(planes.sum(axis=1) <= 1), f"{variant}: two pieces on one square")
    # a corrupt block of a bin shard: skipped with a message, or an error when strict
    shard = os.path.join(work, "chess_bin", "shard-000000.bin")
    with open(shard, "r+b") as f:
        f.seek(64 + 8 + 20)
        b = f.read(1)
        f.seek(64 + 8 + 20)
        f.write(bytes([b[0] ^ 1]))
    full = len(load_dataset(os.path.join(work, "chess"))["score"])
    got, _ = collect(os.path.join(work, "chess_bin"), binary, 100, searched_only=False)
    check(len(got["score"]) < full, "a corrupt block was not skipped")
    try:
        collect(os.path.join(work, "chess_bin"), binary, 100, strict=True)
        check(False, "strict reader went past a corrupt block")
    except StreamError as e:
        check("shard-000000.bin: block 0" in str(e), f"strict message: {e}")
    try:
        import torch  # noqa: F401
        from scripts.data.stream import ChainDataset
        ds = ChainDataset(os.path.join(work, "chess"), batch_size=64, chessvar=binary)
        scores = np.concatenate([b["score"].numpy() for b in ds])
        ref, _ = collect(os.path.join(work, "chess"), binary, 64)
        check(np.array_equal(scores, ref["score"]), "torch adapter scores differ")
    except ImportError:
        print("torch not importable: adapter not checked")
    print("stream_test:", "FAILED" if FAILS else "ok")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
