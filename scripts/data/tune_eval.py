#!/usr/bin/env python3
"""Texel tuning of chessvar's evaluation from its own self-play games.

    python3 -m scripts.data.tune_eval fit DATA_DIR --chessvar BIN [--out results/eval_tune_VARIANT.json]
    python3 -m scripts.data.tune_eval write-c [--out selfplay/player/eval_params.c] [results/eval_tune_VARIANT.json ...]

`fit` reads a self-play folder written with `--format bin,jsonl` (records from the .bin,
FENs from the JSONL), keeps the quiet positions (not in check, best move not a capture,
ply >= --min-ply, no mate score) and fits, per variant:

    eval(White) = sum over pieces of +-(value[type] + psq[type][square]) + hand values + tempo
                  + the hand-set terms of selfplay/player/eval.c (a fixed offset per position)

(with --tapered, value and psq come twice, the opening's weighted by phase / 256 and the
ending's by 1 - phase / 256, the phase being the engine's), with the square seen from the piece's own side (ranks flipped for Black: symmetric by
colour) and files mirrored (a and h share a parameter), so an 8x8 variant has 32 and a
10x10 one 50 placement terms per piece type. The Texel loss is the mean squared error
between the game result r (1, 1/2, 0 for White; Supremo stalemates 3/4, 1/4) and
sigmoid(K * eval / 400). First K is fitted to the engine's current static evaluation
(read from `chessvar uci`'s `eval` command, so "before" is the engine's own number), then
the parameters are fitted by L-BFGS with K fixed, starting from a least-squares copy of the
current evaluation. The fit's target is lambda * sigmoid(K * search score / 400) +
(1 - lambda) * r: by default (lambda 1) the static evaluation learns the recorded search
scores; lambda 0 is plain Texel on the results, which predicted held-out results better
but played worse in every match tried (a thousand games of a weak player are too few
outcomes for hundreds of terms). Every parameter is pulled towards the start by an L2
penalty (--l2 for placement, a weaker --l2-value for piece, hand and tempo values), so
squares and pieces seen rarely (a Supremo Protector's count changes only by promotion)
stay where they were. One game in ten (game id % 10 == 0) is
held out and never fitted. The JSON gives the losses before and after (train and
held-out), K, the parameters rounded to integers as the engine compiles them, and a plot.

`write-c` turns the chosen fits into selfplay/player/eval_params.c (a generated file naming the
dataset and the fit in its header); with no fit given it writes the empty table (every
variant back on the built-in heuristic). Keep a variant's fit only when a match says the
tuned evaluation plays better (docs/tuning.md: the loop).
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from scripts.common.system_python import require

require("numpy")
import numpy as np  # noqa: E402

from scripts.common import ROOT
from scripts.data.read_dataset import load_dataset  # noqa: E402

MATE_BOUND = 29000
MK_EP, MK_MULTI = 2, 6


def read_jsonl_fens(folder):
    """(game, ply, fen) of every JSONL row, in shard order (the order of the .bin records)."""
    games, plies, fens = [], [], []
    paths = sorted(p for p in glob.glob(os.path.join(folder, "shard-*.jsonl")))
    for p in paths:
        with open(p) as f:
            for line in f:
                r = json.loads(line)
                games.append(r["game"])
                plies.append(r["ply"])
                fens.append(r["fen"])
    return np.array(games), np.array(plies), fens


def quiet_mask(d, min_ply):
    """Positions a static evaluation should explain: searched, not in check, the best move
    not a capture, past the opening plies, no mate score."""
    best = d["best"].astype(np.int64)
    to = (best >> 7) & 127
    kind = (best >> 26) & 15
    n = len(best)
    target = d["board"][np.arange(n), np.minimum(to, d["board"].shape[1] - 1)]
    capture = (target != 0) | (kind == MK_EP) | (kind == MK_MULTI)
    return ((d["flags"] & 2) == 0) & (best != 0) & ~capture & (d["ply"] >= min_ply) & \
        (np.abs(d["score"].astype(int)) < MATE_BOUND)


class Features:
    """Index of every parameter and the sparse feature matrix (White minus Black counts)."""

    def __init__(self, width, height, npt, hold, tapered=False):
        self.w, self.h, self.npt, self.hold, self.tapered = width, height, npt, hold, tapered
        self.half = (width + 1) // 2
        self.nrel = height * self.half
        self.n_value = npt + 1
        self.n_psq = (npt + 1) * self.nrel
        self.n_hand = (npt + 1) if hold else 0
        self.off_value, self.off_psq = 0, npt + 1
        self.off_hand = self.off_psq + self.n_psq
        self.off_tempo = self.off_hand + self.n_hand
        self.size = self.off_tempo + 1
        if tapered:  # the ending's values and placement after the opening's (and hand, tempo)
            self.off_value_eg = self.size
            self.off_psq_eg = self.off_value_eg + self.n_value
            self.size = self.off_psq_eg + self.n_psq

    def rel(self, sq, black):
        """Parameter square of a piece on sq: own side's view, files mirrored."""
        f, r = sq % self.w, sq // self.w
        r = np.where(black, self.h - 1 - r, r)
        f = np.minimum(f, self.w - 1 - f)
        return r * self.half + f

    def matrix(self, d, phase=None):
        """Rows of positions, columns of parameters; tapered: value and placement columns
        weighted by phase / 256 (opening) and by 1 - phase / 256 (ending)."""
        from scipy import sparse
        x = self.matrix_flat(d)
        if not self.tapered:
            return x
        w = sparse.diags(np.asarray(phase, dtype=float) / 256.0)
        one = sparse.identity(x.shape[0])
        vp = x[:, :self.off_hand]
        return sparse.hstack([w @ vp, x[:, self.off_hand:], (one - w) @ vp]).tocsr()

    def matrix_flat(self, d):
        """The untapered matrix: White-minus-Black counts per value, placement, hand and
        tempo parameter."""
        from scipy import sparse
        board = d["board"].astype(np.int64)
        n, nsq = board.shape
        pos, sq = np.nonzero(board)
        pc = board[pos, sq]
        black = (pc >> 5) == 1
        t = pc & 31
        sign = np.where(black, -1.0, 1.0)
        rows = [pos, pos]
        cols = [self.off_value + t, self.off_psq + t * self.nrel + self.rel(sq, black)]
        vals = [sign, sign]
        if self.hold:
            for c, s in ((0, 1.0), (1, -1.0)):
                hp, ht = np.nonzero(d["hand"][:, c, :])
                rows.append(hp)
                cols.append(self.off_hand + ht + 1)
                vals.append(s * d["hand"][hp, c, ht].astype(float))
        rows.append(np.arange(n))
        cols.append(np.full(n, self.off_tempo))
        vals.append(np.where(d["side"] == 0, 1.0, -1.0))
        return sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                                 shape=(n, self.off_tempo + 1))

    def expand_psq(self, theta, ending=False):
        """Full [(npt+1) * W*H] placement table for White from the mirrored parameters (the
        ending's of a tapered model with ending=True)."""
        off = self.off_psq_eg if ending else self.off_psq
        out = np.zeros((self.npt + 1, self.w * self.h))
        for sq in range(self.w * self.h):
            out[:, sq] = theta[off + np.arange(self.npt + 1) * self.nrel +
                               int(self.rel(np.array(sq), False))]
        return out


EVAL_LINE = re.compile(r"info string eval (-?\d+) side to move, (-?\d+) white, "
                       r"linear part (-?\d+) white, phase (\d+)")


def engine_evals(binary, variant, fens, part="total"):
    """One part of engine_eval_parts (see there)."""
    return engine_eval_parts(binary, variant, fens)[part]


def engine_eval_parts(binary, variant, fens):
    """White's static evaluation of every FEN by `chessvar uci` (its `eval` command): the
    whole of it, with part="linear" only the linear part this script fits (the phased
    terms of selfplay/player/eval.c, royal centralisation, pawn structure and piece activity, are
    set by hand), with part="phase" the game phase (256 opening .. 0 ending): a dict of the
    three arrays by part."""
    with tempfile.NamedTemporaryFile("w", suffix=".uci", delete=False) as f:
        f.write(f"uci\nsetoption name UCI_Variant value {variant}\n")
        for fen in fens:
            f.write(f"position fen {fen}\neval\n")
        f.write("quit\n")
        name = f.name
    try:
        with open(name) as inp:
            out = subprocess.run([binary, "uci"], stdin=inp, capture_output=True, text=True,
                                 check=True).stdout
    finally:
        os.unlink(name)
    rows = [m for m in map(EVAL_LINE.match, out.splitlines()) if m]
    errors = [line for line in out.splitlines() if "error" in line]
    if len(rows) != len(fens) or errors:
        raise RuntimeError(f"chessvar uci gave {len(rows)} evals for {len(fens)} FENs: {errors[:3]}")
    return {part: np.array([int(m.group(g)) for m in rows], dtype=float)
            for part, g in (("total", 2), ("linear", 3), ("phase", 4))}


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def texel_loss(ev, r, k):
    return float(np.mean((r - sigmoid(k * ev / 400.0)) ** 2))


def fit_k(ev, r):
    """K minimising the Texel loss of evaluations ev (golden-section search on [0.05, 5])."""
    lo, hi = 0.05, 5.0
    g = (np.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = texel_loss(ev, r, a), texel_loss(ev, r, b)
    for _ in range(60):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = texel_loss(ev, r, a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = texel_loss(ev, r, b)
    return (lo + hi) / 2


def fit(args):
    from scipy.optimize import minimize
    from scipy.sparse.linalg import lsqr

    d = load_dataset(args.data)
    meta = d["meta"]
    variant = meta["variant"]
    games, plies, fens = read_jsonl_fens(args.data)
    if len(fens) != len(d["game"]) or not (np.array_equal(games, d["game"]) and
                                           np.array_equal(plies, d["ply"])):
        sys.exit("tune_eval: the folder needs --format bin,jsonl of the same run (records and "
                 "JSONL rows differ)")
    with open(os.path.join(args.data, "run.json")) as f:
        run = json.load(f)
    keep = quiet_mask(d, args.min_ply)
    idx = np.nonzero(keep)[0]
    if args.max_positions and len(idx) > args.max_positions:
        idx = np.sort(np.random.default_rng(1).choice(idx, args.max_positions, replace=False))
    sub = {k: v[idx] for k, v in d.items() if k != "meta"}
    white = np.where(sub["side"] == 0, sub["result"], 1000 - sub["result"]) / 1000.0
    search_white = np.where(sub["side"] == 0, 1, -1) * sub["score"].astype(float)
    hold = sub["game"] % 10 == 0
    tr = ~hold
    feats = Features(meta["width"], meta["height"], meta["npt"], meta["hold_types"], args.tapered)
    parts = engine_eval_parts(args.chessvar, variant, [fens[i] for i in idx])
    e0, phase = parts["total"], parts["phase"]
    # the hand-set terms (everything but the linear part) stay as they are: a fixed offset
    offset = e0 - parts["linear"]
    X = feats.matrix(sub, phase)
    print(f"{variant}: {len(d['game'])} positions, {len(idx)} quiet used "
          f"({int(tr.sum())} train, {int(hold.sum())} held out), {feats.size} parameters")

    k = fit_k(e0[tr], white[tr])
    # the target: the game result, blended with the search score (--lambda) seen through
    # the same sigmoid; the losses reported stay against the game result
    target = args.lam * sigmoid(k * search_white / 400.0) + (1 - args.lam) * white
    # the current linear part in these parameters (exact up to terms the data never sees;
    # a tapered model starts with the ending's parameters equal to the opening's, which is
    # what an untapered engine evaluates)
    x_flat = feats.matrix_flat(sub)
    flat0 = lsqr(x_flat, parts["linear"], damp=1e-3, atol=1e-10, btol=1e-10, iter_lim=20000)[0]
    theta0 = np.zeros(feats.size)
    theta0[:len(flat0)] = flat0
    if args.tapered:
        theta0[feats.off_value_eg:] = flat0[:feats.off_hand]
    resid = float(np.max(np.abs(X @ theta0 + offset - e0)))
    reg = np.full(feats.size, args.l2)
    reg[:feats.n_value] = args.l2_value
    reg[feats.off_hand:feats.off_tempo + 1] = args.l2_value
    if args.tapered:
        reg[feats.off_value_eg:feats.off_psq_eg] = args.l2_value
    used = np.asarray((abs(X[tr]) > 0).sum(axis=0)).ravel() > 0
    if args.values_only:  # placement stays as the engine has it
        used[feats.off_psq:feats.off_psq + feats.n_psq] = False
        if args.tapered:
            used[feats.off_psq_eg:] = False
    Xt, rt, nt, ot = X[tr], target[tr], int(tr.sum()), offset[tr]

    def objective(theta):
        ev = Xt @ theta + ot
        p = sigmoid(k * ev / 400.0)
        err = p - rt
        loss = np.mean(err ** 2) + np.sum(reg * (theta - theta0) ** 2)
        g = Xt.T @ (2.0 * err * p * (1 - p) * k / 400.0) / nt + 2 * reg * (theta - theta0)
        return loss, g * used

    res = minimize(objective, theta0, jac=True, method="L-BFGS-B",
                   options={"maxiter": args.iters, "maxfun": args.iters * 2, "gtol": 1e-14,
                            "ftol": 1e-15})
    theta = np.where(used, res.x, theta0)
    # integers as the engine compiles them; royal (never-varying) values stay 0
    value = np.round(theta[:feats.n_value]).astype(int)
    value[np.asarray((abs(X[:, :feats.n_value]) > 0).sum(axis=0)).ravel() == 0] = 0
    theta_i = theta.copy()
    theta_i[:feats.n_value] = value
    theta_i[feats.off_psq:] = np.round(theta[feats.off_psq:])
    psq_full = np.clip(feats.expand_psq(theta_i), -2000, 2000).astype(int)
    hand = np.round(theta_i[feats.off_hand:feats.off_hand + feats.n_hand]).astype(int)
    tempo = int(round(theta_i[feats.off_tempo]))
    value_eg = psq_eg = None
    if args.tapered:
        value_eg = theta_i[feats.off_value_eg:feats.off_psq_eg].astype(int)
        value_eg[value == 0] = 0  # royal and unused types, as the opening's
        theta_i[feats.off_value_eg:feats.off_psq_eg] = value_eg
        psq_eg = np.clip(feats.expand_psq(theta_i, ending=True), -2000, 2000).astype(int)
    e1 = X @ theta_i + offset

    report = {
        "variant": variant,
        "dataset": {"folder": os.path.basename(os.path.normpath(args.data)), "run": run,
                    "positions": int(len(d["game"])), "games": int(len(np.unique(d["game"]))),
                    "quiet_positions_used": int(len(idx)), "train": nt,
                    "held_out": int(hold.sum()), "held_out_rule": "game id % 10 == 0",
                    "min_ply": args.min_ply},
        "model": {"parameters": feats.size, "fitted_parameters": int(used.sum()),
                  "values_only": args.values_only, "tapered": args.tapered,
                  "fixed_offset": "the hand-set terms of the evaluation (total - linear part)",
                  "target": f"{args.lam} * sigmoid(K * search score / 400) + "
                            f"{1 - args.lam} * game result",
                  "placement": "own-side view, files mirrored", "l2_towards_start_per_cp2": {"placement": args.l2, "values": args.l2_value},
                  "start_reproduces_engine_eval_max_abs_error_cp": round(resid, 3),
                  "optimizer": f"L-BFGS-B, {res.nit} iterations ({res.message})"},
        "K": round(k, 5),
        "loss": {"train_before": texel_loss(e0[tr], white[tr], k),
                 "train_after": texel_loss(e1[tr], white[tr], k),
                 "held_out_before": texel_loss(e0[hold], white[hold], k),
                 "held_out_after": texel_loss(e1[hold], white[hold], k),
                 "held_out_after_refit_K": None},
        "params": {"npt": meta["npt"], "width": meta["width"], "height": meta["height"],
                   "tempo": tempo, "value": value.tolist(),
                   "hand": hand.tolist() if feats.n_hand else None,
                   "psq": psq_full.ravel().tolist(),
                   "value_eg": value_eg.tolist() if args.tapered else None,
                   "psq_eg": psq_eg.ravel().tolist() if args.tapered else None},
        "start_values": np.round(theta0[:feats.n_value]).astype(int).tolist(),
    }
    k1 = fit_k(e1[tr], white[tr])
    report["loss"]["held_out_after_refit_K"] = texel_loss(e1[hold], white[hold], k1)
    report["K_after_refit"] = round(k1, 5)
    try:
        import measure_env
        report["machine"] = measure_env.machine_info()
        report["git"] = measure_env.git_state(ROOT)
    except Exception as exc:  # the fit stands without the record of the machine
        report["machine"] = {"error": str(exc)}
    out = args.out or os.path.join(ROOT, "results", f"eval_tune_{variant}.json")
    with open(out, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    print(json.dumps({k2: report[k2] for k2 in ("K", "loss")}, indent=1))
    print(f"values before {report['start_values']}\nvalues after  {value.tolist()}  tempo {tempo}")
    plot(report, e0, e1, white, hold, k, out[:-5] + ".png")
    print(f"wrote {out} and {out[:-5]}.png")


def plot(report, e0, e1, white, hold, k, path):
    """Held-out calibration (mean result per evaluation bucket against the sigmoid) and the
    piece values before and after."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("tune_eval: no matplotlib, no plot")
        return
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
    xs = np.linspace(-800, 800, 200)
    for ev, name, col in ((e0, "before", "tab:gray"), (e1, "after", "tab:blue")):
        b = np.clip(np.round(ev[hold] / 50) * 50, -800, 800)
        ub = np.unique(b)
        m = [white[hold][b == u].mean() for u in ub]
        c = [(b == u).sum() for u in ub]
        ax[0].scatter(ub, m, s=np.sqrt(c) * 3, color=col, alpha=0.7,
                      label=f"{name}: held-out loss {report['loss']['held_out_' + name]:.5f}")
    ax[0].plot(xs, 1 / (1 + np.exp(-k * xs / 400)), color="k", lw=1, label=f"sigmoid, K={k:.3f}")
    ax[0].set_xlabel("static evaluation for White (cp)")
    ax[0].set_ylabel("mean game result for White")
    ax[0].set_title(f"{report['variant']}: held-out positions")
    ax[0].legend(fontsize=8)
    v0, v1 = report["start_values"], report["params"]["value"]
    t = [i for i in range(1, len(v1)) if v0[i] or v1[i]]
    xi = np.arange(len(t))
    ax[1].bar(xi - 0.2, [v0[i] for i in t], 0.4, color="tab:gray", label="before")
    ax[1].bar(xi + 0.2, [v1[i] for i in t], 0.4, color="tab:blue", label="after (fitted)")
    ax[1].set_xticks(xi)
    ax[1].set_xticklabels([str(i) for i in t])
    ax[1].set_xlabel("piece type id")
    ax[1].set_ylabel("centipawns")
    ax[1].set_title("piece values")
    ax[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def c_array(name, vals, per_line=16):
    lines = []
    for i in range(0, len(vals), per_line):
        lines.append("    " + ", ".join(str(int(v)) for v in vals[i:i + per_line]) + ",")
    return f"static const int16_t {name}[{len(vals)}] = {{\n" + "\n".join(lines) + "\n};\n"


def write_c(args):
    fits = []
    for p in args.fits:
        with open(p) as f:
            fits.append(json.load(f))
    head = ["/* eval_params.c - GENERATED by scripts/data/tune_eval.py write-c; do not edit by hand.",
            " * Texel fits (eval = value + placement, own-side view, files mirrored; tapered fits",
            " * also the ending's, blended by phase) kept because a",
            " * match said the tuned evaluation plays better; other variants use eval.c's heuristic."]
    if not fits:
        head.append(" * No variant's fitted parameters are kept.")
    for r in fits:
        ds, lo = r["dataset"], r["loss"]
        run = ds["run"]
        head.append(f" * {r['variant']}: from `chessvar selfplay --variant {run['variant']} --games "
                    f"{run['games']} --seed {run['seed']}` ({run['player_a']}), {ds['train']} quiet "
                    f"positions fitted, {ds['held_out']} held out; K {r['K']}; loss train "
                    f"{lo['train_before']:.5f} -> {lo['train_after']:.5f}, held out "
                    f"{lo['held_out_before']:.5f} -> {lo['held_out_after']:.5f}; target "
                    f"{r['model'].get('target', 'game result')}.")
    body = ["\n".join(head) + " */", '#include "eval_params.h"', ""]
    entries = []
    for r in fits:
        v, p = r["variant"], r["params"]
        body.append(c_array(f"{v}_value", p["value"]))
        hand = "NULL"
        if p["hand"]:
            body.append(c_array(f"{v}_hand", p["hand"]))
            hand = f"{v}_hand"
        body.append(c_array(f"{v}_psq", p["psq"]))
        eg = "NULL, NULL"
        if p.get("psq_eg"):
            body.append(c_array(f"{v}_value_eg", p["value_eg"]))
            body.append(c_array(f"{v}_psq_eg", p["psq_eg"]))
            eg = f"{v}_value_eg, {v}_psq_eg"
        entries.append(f'const EvalTuned eval_tuned_{v} = {{"{v}", {p["npt"]}, '
                       f'{p["width"] * p["height"]}, {p["tempo"]}, {v}_value, {hand}, {v}_psq, {eg}}};')
    body.append("/* Each variant's fit, named as selfplay/profile.c (the variant's profile) refers to it. */")
    body.extend(entries)
    body.append("")
    with open(args.out, "w") as f:
        f.write("\n".join(body))
    if shutil.which("clang-format"):
        subprocess.run(["clang-format", f"--style=file:{os.path.join(ROOT, '.clang-format')}", "-i",
                        args.out], check=True)
    print(f"wrote {args.out} with {', '.join(r['variant'] for r in fits) or 'no variant'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="fit one variant's parameters to a self-play folder")
    f.add_argument("data")
    f.add_argument("--chessvar", default=os.path.join(ROOT, "build", "chessvar"),
                   help="the binary whose evaluation is the starting point")
    f.add_argument("--out", help="JSON report (default results/eval_tune_VARIANT.json)")
    f.add_argument("--min-ply", type=int, default=8)
    f.add_argument("--l2", type=float, default=2e-8, help="pull of every parameter towards the start, per cp^2")
    f.add_argument("--l2-value", type=float, default=1e-9,
                   help="pull of piece, hand and tempo values towards the start, per cp^2")
    f.add_argument("--lambda", dest="lam", type=float, default=1.0,
                   help="weight of the search score in the target (0: game result only)")
    f.add_argument("--values-only", action="store_true",
                   help="fit piece, hand and tempo values only; placement stays as it is")
    f.add_argument("--iters", type=int, default=400)
    f.add_argument("--tapered", action="store_true",
                   help="fit opening and ending values and placement, blended by the game phase")
    f.add_argument("--max-positions", type=int, default=0)
    w = sub.add_parser("write-c", help="generate selfplay/player/eval_params.c from kept fits")
    w.add_argument("fits", nargs="*")
    w.add_argument("--out", default=os.path.join(ROOT, "selfplay", "player", "eval_params.c"))
    args = ap.parse_args()
    fit(args) if args.cmd == "fit" else write_c(args)


if __name__ == "__main__":
    main()
