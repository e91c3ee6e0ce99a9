#!/usr/bin/env python3
"""CTest: the C trainer's gradients against PyTorch's autograd. For chess and Superchess
(holding features) it makes a small self-play run, has `chessvar train --dump-grads` write
its initial model, one batch (feature lists, output buckets, targets), the batch's mean loss
and the gradient of every parameter, and recomputes loss and gradients here in float64 with
torch from the same model and batch. They must agree to float32 rounding. Each architecture
is checked: version 1, and version 2's output buckets alone, dense stack alone, king buckets
alone (chess, Switching), king buckets with their factoriser (--factorise: the shared rows
get their gradients, each feature activating its own) and all together.

usage: nnue_grads_test.py CHESSVAR_BINARY WORK_DIR
"""
import json
import os
import shutil
import subprocess
import sys

import torch


def run_selfplay(binary, work, variant):
    out = os.path.join(work, "grads_" + variant)
    if not os.path.isdir(out):
        subprocess.run([binary, "selfplay", "--variant", variant, "--games", "6", "--seed", "3",
                        "--threads", "2", "--out", out, "--progress", "0", "--nodes", "200"],
                       check=True, stdout=subprocess.DEVNULL)
    return out


def forward(d, ftw, ftb, head, x, buckets):
    """The trainer's model in torch: both perspectives' clipped transformer outputs, then
    each sample's bucket's output layer or dense stack."""
    h, nb, l1, l2 = d["hidden"], d["obuckets"], d["l1"], d["l2"]
    a = torch.cat([torch.clamp(x[0] @ ftw + ftb, 0.0, 1.0),  # side to move's perspective
                   torch.clamp(x[1] @ ftw + ftb, 0.0, 1.0)], dim=1)
    hb = head.reshape(nb, d["hstride"])[buckets]  # each sample's bucket
    if l1 == 0:
        return (a * hb[:, :2 * h]).sum(dim=1) + hb[:, 2 * h]
    o = 0

    def take(n):
        nonlocal o
        o += n
        return hb[:, o - n:o]

    w1 = take(l1 * 2 * h).reshape(-1, l1, 2 * h)
    b1 = take(l1)
    w2 = take(l2 * l1).reshape(-1, l2, l1)
    b2 = take(l2)
    wo = take(l2)
    bo = take(1)[:, 0]
    h1 = torch.clamp(torch.einsum("ni,nji->nj", a, w1) + b1, 0.0, 1.0)
    h2 = torch.clamp(torch.einsum("nj,nkj->nk", h1, w2) + b2, 0.0, 1.0)
    return (h2 * wo).sum(dim=1) + bo


def check(binary, work, variant, hidden, batch, extra):
    out = run_selfplay(binary, work, variant)
    name = variant + (" " + " ".join(extra) if extra else "")
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
    head = torch.tensor(d["head"], dtype=dt).requires_grad_()
    x = [torch.zeros(n, nf, dtype=dt), torch.zeros(n, nf, dtype=dt)]
    for i, s in enumerate(d["samples"]):
        for k in range(2):
            for f in s["f%d" % k]:
                x[k][i, f] += 1.0
    target = torch.tensor([s["t"] for s in d["samples"]], dtype=dt)
    buckets = torch.tensor([s["b"] for s in d["samples"]], dtype=torch.long)
    out = forward(d, ftw, ftb, head, x, buckets)
    pred = torch.sigmoid(out * d["out_to_sig"])
    loss = ((pred - target) ** 2).mean()
    loss.backward()
    fails = 0

    def compare(what, mine, ref):
        nonlocal fails
        mine = torch.tensor(mine, dtype=dt).reshape(ref.shape)
        scale = ref.abs().max().item()
        err = (mine - ref).abs().max().item()
        ok = scale > 0 and err <= 1e-4 * scale + 1e-9
        print(f"{name} {what}: max |grad| {scale:.3e}, max difference {err:.3e}"
              + ("" if ok else "  FAIL"))
        fails += not ok

    compare("loss", [d["loss"]], loss.detach().reshape(1))
    compare("g_ftw", d["g_ftw"], ftw.grad)
    compare("g_ftb", d["g_ftb"], ftb.grad)
    compare("g_head", d["g_head"], head.grad)
    touched = int((ftw.grad.abs().sum(dim=1) > 0).sum())
    used = sorted(set(int(b) for b in buckets))
    nfile = nf - d["nfactor"]  # the rows after nfile are the king buckets' shared factor
    kbs = sorted(set(f * max(d["kbuckets"], 1) // nfile for s in d["samples"] for f in s["f0"]
                     if f < nfile))
    print(f"{name}: {n} positions, {touched} of {nf} feature rows with a gradient, output "
          f"buckets {used}, king buckets {kbs}")
    if touched < 50:
        print(f"FAIL {name}: too few feature rows touched to test anything")
        fails += 1
    if d["obuckets"] > 1 and len(used) < 2:
        print(f"FAIL {name}: the batch uses one output bucket only")
        fails += 1
    if d["kbuckets"] > 1 and len(kbs) < 2:
        print(f"FAIL {name}: the batch uses one king bucket only")
        fails += 1
    if d["nfactor"]:
        # every feature of a bucket activates its factor row: those rows get gradients too
        factor_rows = int((ftw.grad[nfile:].abs().sum(dim=1) > 0).sum())
        pairs = all(len(s[k]) % 2 == 0 and all(f < nfile for f in s[k][:len(s[k]) // 2])
                    and [nfile + f % d["nbase"] for f in s[k][:len(s[k]) // 2]]
                    == s[k][len(s[k]) // 2:] for s in d["samples"] for k in ("f0", "f1"))
        print(f"{name}: {factor_rows} of {d['nfactor']} factor rows with a gradient")
        if factor_rows < 20 or not pairs:
            print(f"FAIL {name}: the factor rows are not each feature's (f mod nbase)")
            fails += 1
    return fails


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    sc = ["--keep-check", "--keep-captures"]
    fails = check(binary, work, "chess", 32, 64, [])
    fails += check(binary, work, "chess", 32, 64, ["--output-buckets", "4"])
    fails += check(binary, work, "chess", 32, 64, ["--stack", "16,32"])
    fails += check(binary, work, "chess", 32, 64, ["--king-buckets", "4"])
    fails += check(binary, work, "chess", 32, 64,
                   ["--output-buckets", "8", "--stack", "8,16", "--king-buckets", "16"])
    fails += check(binary, work, "chess", 32, 64, ["--king-buckets", "4", "--factorise"])
    fails += check(binary, work, "switching", 16, 64, ["--king-buckets", "8", "--stack", "4,8"])
    fails += check(binary, work, "switching", 16, 64, ["--king-buckets", "16", "--factorise",
                                                       "--output-buckets", "4"])
    fails += check(binary, work, "superchess", 16, 48, sc)
    fails += check(binary, work, "superchess", 16, 48, sc + ["--output-buckets", "4",
                                                           "--stack", "8,8"])
    print("nnue gradients:", "FAIL" if fails else "ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
