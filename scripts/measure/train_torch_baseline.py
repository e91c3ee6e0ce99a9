#!/usr/bin/env python3
"""The PyTorch baseline of `chessvar train`: the same network (features -> 2 x H ->
clipped ReLU -> 1), loss, target and optimiser (Adam) on the same run folder, to compare
training speed. Features come from the binary shards (scripts/data/read_dataset.py) as
EmbeddingBag index lists, the feature transformer's gradient is sparse (SparseAdam), the
rest dense (Adam). Prints positions per second of wall time and of CPU time as JSON.

usage: python3 -m scripts.measure.train_torch_baseline RUN_DIR [--hidden 256]
           [--batch 16384] [--batches 30] [--threads 2] [--lambda 0.75] [--dense]
"""
import argparse
import json
import os
import sys
import time

from scripts.common.system_python import require

require("numpy", "torch")
import numpy as np  # noqa: E402
import torch  # noqa: E402

from scripts.data.read_dataset import load_dataset  # noqa: E402


def features(data, persp_of_row):
    """(flat indices, offsets) of the board features of every row from the given
    perspective per row (selfplay/NETWORK.md; boards without holdings)."""
    meta = data["meta"]
    w, h = meta["width"], meta["height"]
    nsq = w * h
    board = data["board"].astype(np.int64)
    rows, sqs = np.nonzero(board)
    pc = board[rows, sqs]
    t, c = pc & 31, pc >> 5
    p = persp_of_row[rows]
    s = np.where(p == 0, sqs, (h - 1 - sqs // w) * w + sqs % w)
    idx = ((t - 1) * 2 + (c != p)) * nsq + s
    counts = np.bincount(rows, minlength=len(board))
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return torch.from_numpy(idx), torch.from_numpy(offsets), counts


class Net(torch.nn.Module):
    def __init__(self, nfeat, hidden, sparse):
        super().__init__()
        self.ft = torch.nn.EmbeddingBag(nfeat, hidden, mode="sum", sparse=sparse)
        self.ft_b = torch.nn.Parameter(torch.zeros(hidden))
        self.out = torch.nn.Linear(2 * hidden, 1)

    def forward(self, i0, o0, i1, o1):
        a0 = torch.clamp(self.ft(i0, o0) + self.ft_b, 0.0, 1.0)
        a1 = torch.clamp(self.ft(i1, o1) + self.ft_b, 0.0, 1.0)
        return self.out(torch.cat([a0, a1], dim=1)).squeeze(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--batches", type=int, default=30)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--lambda", dest="lam", type=float, default=0.75)
    ap.add_argument("--dense", action="store_true",
                    help="dense feature-transformer gradient and plain Adam for everything")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    data = load_dataset(args.run)
    keep = (data["best"] != 0) & ((data["flags"] & 3) == 0) & (np.abs(data["score"]) <= 10000)
    data = {k: (v[keep] if k != "meta" else v) for k, v in data.items()}
    n = len(data["side"])
    meta = data["meta"]
    nfeat = meta["npt"] * 2 * meta["width"] * meta["height"]
    stm = data["side"].astype(np.int64)
    i0, o0, _ = features(data, stm)
    i1, o1, _ = features(data, 1 - stm)
    score = torch.from_numpy(data["score"].astype(np.float32))
    result = torch.from_numpy(data["result"].astype(np.float32)) / 1000
    target = args.lam * torch.sigmoid(score / 400) + (1 - args.lam) * result
    net = Net(nfeat, args.hidden, not args.dense)
    if args.dense:
        sparse = torch.optim.Adam(list(net.ft.parameters()), lr=1e-3)
    else:
        sparse = torch.optim.SparseAdam(list(net.ft.parameters()), lr=1e-3)
    dense = torch.optim.Adam([net.ft_b] + list(net.out.parameters()), lr=1e-3)
    # batches as index lists prepared before timing: only the training step is timed
    rng = np.random.default_rng(1)
    counts0 = np.diff(np.concatenate([o0.numpy(), [len(i0)]]))
    counts1 = np.diff(np.concatenate([o1.numpy(), [len(i1)]]))
    batches = []
    for _ in range(args.batches + 2):
        rows = rng.integers(0, n, args.batch)
        parts = []
        for idx, off, cnt in ((i0, o0, counts0), (i1, o1, counts1)):
            c = cnt[rows]
            flat = np.concatenate([np.arange(off[r], off[r] + k) for r, k in zip(rows, c)])
            parts += [idx[flat], torch.from_numpy(np.concatenate([[0], np.cumsum(c)[:-1]]))]
        batches.append((parts, target[rows]))
    for k, (parts, t) in enumerate(batches):
        if k == 2:  # two warm-up steps
            w0, c0 = time.perf_counter(), time.process_time()
        pred = torch.sigmoid(net(*parts))
        loss = ((pred - t) ** 2).mean()
        sparse.zero_grad()
        dense.zero_grad()
        loss.backward()
        sparse.step()
        dense.step()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    pos = args.batches * args.batch
    print(json.dumps({"trainer": "pytorch " + torch.__version__,
                      "ft_gradient": "dense" if args.dense else "sparse", "hidden": args.hidden,
                      "features": nfeat, "batch": args.batch, "positions": pos,
                      "threads": args.threads, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
                      "positions_per_wall_s": round(pos / wall),
                      "positions_per_cpu_s": round(pos / cpu), "final_loss": float(loss)}))


if __name__ == "__main__":
    main()
