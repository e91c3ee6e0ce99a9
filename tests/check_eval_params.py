#!/usr/bin/env python3
"""CTest: the compiled-in evaluation parameters are the fits the matches kept, and the
engine evaluates with them exactly as the tuner's model does.

1. selfplay/player/eval_params.c equals what `scripts/data/tune_eval.py write-c` generates from
   results/eval_tune_VARIANT.json for the variants results/eval_tune_matches.json keeps;
2. on the positions of a short fixed-seed self-play run of every kept variant, the linear
   part of `chessvar uci`'s `eval` equals the fitted linear model (value + placement +
   hand + tempo; the phased terms come on top of it).

usage: PYTHONPATH=. python3 tests/check_eval_params.py CHESSVAR_BINARY WORK_DIR (from the repository
root; CTest sets PYTHONPATH to the source directory)
"""
import filecmp
import json
import os
import shutil
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from scripts.data import tune_eval
from scripts.data.read_dataset import load_dataset


def main():
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(ROOT, "results", "eval_tune_matches.json")) as f:
        kept = [m["variant"] for m in json.load(f)["matches"] if m["keep"]]
    fits = [os.path.join(ROOT, "results", f"eval_tune_{v}.json") for v in kept]
    gen = os.path.join(work, "eval_params.c")
    subprocess.run([sys.executable, "-m", "scripts.data.tune_eval", "write-c",
                    "--out", gen] + fits, check=True, stdout=subprocess.DEVNULL)
    fails = 0
    if not filecmp.cmp(gen, os.path.join(ROOT, "selfplay", "player", "eval_params.c"), shallow=False):
        print(f"FAIL selfplay/player/eval_params.c is not what write-c makes of the kept fits {kept}")
        fails += 1
    for v, path in zip(kept, fits):
        with open(path) as f:
            p = json.load(f)["params"]
        out = os.path.join(work, v)
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([binary, "selfplay", "--variant", v, "--games", "2", "--seed", "5",
                        "--nodes", "200", "--out", out, "--format", "bin,jsonl", "--progress", "0"],
                       check=True, stdout=subprocess.DEVNULL)
        d = load_dataset(out)
        _, _, fens = tune_eval.read_jsonl_fens(out)
        m = d["meta"]
        feats = tune_eval.Features(m["width"], m["height"], m["npt"], m["hold_types"])
        x = feats.matrix_flat({k: d[k] for k in d if k != "meta"})

        def theta_of(value, psq_list):
            theta = np.zeros(feats.off_tempo + 1)
            theta[:feats.n_value] = value
            psq = np.array(psq_list).reshape(feats.npt + 1, -1)
            for sq in range(m["width"] * m["height"]):
                rel = int(feats.rel(np.array(sq), False))
                theta[feats.off_psq + np.arange(feats.npt + 1) * feats.nrel + rel] = psq[:, sq]
            return theta

        rest = np.zeros(feats.off_tempo + 1)  # hand pieces and tempo
        if p["hand"]:
            rest[feats.off_hand:feats.off_hand + feats.n_hand] = p["hand"]
        rest[feats.off_tempo] = p["tempo"]
        parts = tune_eval.engine_eval_parts(binary, v, fens)
        engine = parts["linear"]
        mg = np.rint(x @ theta_of(p["value"], p["psq"])).astype(np.int64)
        if p.get("psq_eg"):  # tapered: blended as the engine does, C division (toward 0)
            eg = np.rint(x @ theta_of(p["value_eg"], p["psq_eg"])).astype(np.int64)
            ph = parts["phase"].astype(np.int64)
            num = mg * ph + eg * (256 - ph)
            board = np.sign(num) * (np.abs(num) // 256)
        else:
            board = mg
        model = board + np.rint(x @ rest).astype(np.int64)
        bad = int(np.sum(model != engine))
        print(f"{v}: {len(fens)} positions, engine eval differs from the fitted model on {bad}")
        fails += bad > 0
    print("eval params: " + ("OK" if not fails else "FAILED"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
