#!/usr/bin/env python3
"""Plots the loss logs of `chessvar train --log FILE` (CSV: positions, epoch, train_loss,
val_loss, lr, seconds, positions_per_second): training and validation loss against the
positions trained on, one colour per log.

usage: python3 -m scripts.measure.plot_loss OUT.png LOG.csv [LOG.csv ...] [--title TEXT]
"""
import argparse
import csv
import math
import os

from scripts.common.system_python import require

require("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_log(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise SystemExit(f"{path}: no loss lines")
    return {k: [float(r[k]) for r in rows] for k in rows[0]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--title", default="chessvar train: loss")
    args = ap.parse_args()
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, path in enumerate(args.logs):
        log = read_log(path)
        name = os.path.splitext(os.path.basename(path))[0]
        colour = f"C{i % 10}"
        ax.plot(log["positions"], log["train_loss"], color=colour, label=f"{name} training")
        val = [(p, v) for p, v in zip(log["positions"], log["val_loss"]) if not math.isnan(v)]
        if val:
            ax.plot(*zip(*val), color=colour, linestyle="--", label=f"{name} validation")
    ax.set_xlabel("positions trained on")
    ax.set_ylabel("loss: mean (sigmoid(out) - target)^2")
    ax.set_title(args.title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
