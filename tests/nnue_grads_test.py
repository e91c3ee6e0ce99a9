#!/usr/bin/env python3
"""CTest: the C trainer's gradients against PyTorch's autograd. For chess and Superchess
(holding features) it makes a small self-play run, has `chessvar train --dump-grads` write
its initial model, one batch (feature lists, targets), the batch's mean loss and the
gradient of every parameter, and recomputes loss and gradients here in float64 with torch
from the same model and batch. They must agree to float32 rounding.

usage: nnue_grads_test.py CHESSVAR_BINARY WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

import torch


def check(binary, work, variant, hidden, batch, extra):
    out = os.path.join(work, "grads_" + variant)
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([binary, "selfplay", "--variant", variant, "--games", "6", "--seed", "3",
                    "--threads", "2", "--out", out, "--progress", "0", "--nodes", "200"],
                   check=True, stdout=subprocess.DEVNULL)
    dump = os.path.join(work, f"grads_{variant}.json")
    subprocess.run([binary, "train", "--data", out, "--dump-grads", dump, "--hidden", str(hidden),
                    "--batch", str(batch), "--val-permille", "0", "--shuffle", "100",
                    "--seed", "9"] + extra, check=True, stderr=subprocess.DEVNULL)
    with open(dump) as f:
        d = json.load(f)
    nf, h, n = d["nfeat"], d["hidden"], len(d["samples"])
    assert n == batch and h == hidden
    dt = torch.float64
    ftw = torch.tensor(d["ftw"], dtype=dt).reshape(nf, h).requires_grad_()
    ftb = torch.tensor(d["ftb"], dtype=dt).requires_grad_()
    ow = torch.tensor(d["ow"], dtype=dt).requires_grad_()
    ob = torch.tensor(d["ob"], dtype=dt).requires_grad_()
    x = [torch.zeros(n, nf, dtype=dt), torch.zeros(n, nf, dtype=dt)]
    for i, s in enumerate(d["samples"]):
        for k in range(2):
            for f in s["f%d" % k]:
                x[k][i, f] += 1.0
    target = torch.tensor([s["t"] for s in d["samples"]], dtype=dt)
    a0 = torch.clamp(x[0] @ ftw + ftb, 0.0, 1.0)  # side to move's perspective
    a1 = torch.clamp(x[1] @ ftw + ftb, 0.0, 1.0)
    out = torch.cat([a0, a1], dim=1) @ ow + ob
    pred = torch.sigmoid(out * d["out_to_sig"])
    loss = ((pred - target) ** 2).mean()
    loss.backward()
    fails = 0

    def compare(name, mine, ref):
        nonlocal fails
        mine = torch.tensor(mine, dtype=dt).reshape(ref.shape)
        scale = ref.abs().max().item()
        err = (mine - ref).abs().max().item()
        ok = scale > 0 and err <= 1e-4 * scale + 1e-9
        print(f"{variant} {name}: max |grad| {scale:.3e}, max difference {err:.3e}"
              + ("" if ok else "  FAIL"))
        fails += not ok

    compare("loss", [d["loss"]], loss.detach().reshape(1))
    compare("g_ftw", d["g_ftw"], ftw.grad)
    compare("g_ftb", d["g_ftb"], ftb.grad)
    compare("g_ow", d["g_ow"], ow.grad)
    compare("g_ob", [d["g_ob"]], ob.grad.reshape(1))
    touched = int((ftw.grad.abs().sum(dim=1) > 0).sum())
    print(f"{variant}: {n} positions, {touched} of {nf} feature rows with a gradient")
    if touched < 50:
        print(f"FAIL {variant}: too few feature rows touched to test anything")
        fails += 1
    return fails


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    fails = check(binary, work, "chess", 32, 64, [])
    fails += check(binary, work, "superchess", 16, 48, ["--keep-check", "--keep-captures"])
    print("nnue gradients:", "FAIL" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
