#!/usr/bin/env python3
"""CTest: `chessvar train` end to end on a small chess run. The same seed gives the same
network file (the one of the lowest validation loss) byte for byte with 1 or 2 threads, with
and without --mirror (which changes the network, and whose checkpoint a run without it refuses); a run stopped after a checkpoint and
resumed gives the same file as one that was never stopped; the loss log shows the training
loss falling; a network file that is truncated, corrupt or of another variant makes the command
exit 2 with one line naming the file; a corrupt block of a shard is reported and skipped.
Version 2 (output buckets, a dense stack, king buckets, all at once): one network for 1 and
2 threads, a stopped and resumed run gives the same file, a checkpoint of other version 2
options is refused, the file is a version 2 file that evaluates FENs, and --king-buckets
in Superchess is refused with one line.

usage: nnue_train_test.py CHESSVAR_BINARY WORK_DIR
"""
import csv
import os
import shutil
import subprocess
import sys

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL", msg)


def train(binary, data, out, *extra):
    cmd = [binary, "train", "--data", data, "--out", out, "--hidden", "32", "--batch", "1024",
           "--positions", "60000", "--lr", "0.01", "--lr-end", "0.001", "--seed", "4",
           "--progress", "0", "--shuffle", "5000", "--log-every", "8192", "--val-permille", "100"]
    return subprocess.run(cmd + list(extra), capture_output=True, text=True)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    binary, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    data = os.path.join(work, "run")
    subprocess.run([binary, "selfplay", "--variant", "chess", "--games", "30", "--seed", "8",
                    "--threads", "2", "--out", data, "--progress", "0", "--nodes", "200"],
                   check=True, stdout=subprocess.DEVNULL)
    p = lambda name: os.path.join(work, name)  # noqa: E731
    r = train(binary, data, p("a.nnue"), "--threads", "2", "--log", p("a.csv"))
    if r.returncode:
        fail(f"training exited {r.returncode}: {r.stderr}")
        return 1
    r = train(binary, data, p("b.nnue"), "--threads", "1")
    if r.returncode or read(p("a.nnue")) != read(p("b.nnue")):
        fail("1 and 2 threads give different networks for one seed")
    r = train(binary, data, p("c.nnue"), "--checkpoint", p("c.ckpt"), "--stop-after", "20000")
    if r.returncode or not os.path.exists(p("c.ckpt")) or "stopped after" not in r.stderr:
        fail(f"--stop-after: exit {r.returncode}, no checkpoint or no stop: {r.stderr}")
    r = train(binary, data, p("c.nnue"), "--checkpoint", p("c.ckpt"))
    if r.returncode or "resumed" not in r.stderr:
        fail(f"resume: exit {r.returncode}: {r.stderr}")
    elif read(p("a.nnue")) != read(p("c.nnue")):
        fail("a resumed run gives another network than an uninterrupted one")
    # --mirror: also one network for any thread count, another than without it, and a
    # checkpoint made with it is refused by a run without it
    r = train(binary, data, p("m2.nnue"), "--threads", "2", "--mirror")
    r1 = train(binary, data, p("m1.nnue"), "--threads", "1", "--mirror")
    if r.returncode or r1.returncode or read(p("m1.nnue")) != read(p("m2.nnue")):
        fail(f"--mirror: 1 and 2 threads differ or fail: {r.stderr} {r1.stderr}")
    elif read(p("m2.nnue")) == read(p("a.nnue")):
        fail("--mirror gives the same network as without it")
    r = train(binary, data, p("mc.nnue"), "--checkpoint", p("m.ckpt"), "--stop-after", "20000",
              "--mirror")
    r = train(binary, data, p("mc.nnue"), "--checkpoint", p("m.ckpt"))
    if r.returncode != 2 or "mirror" not in r.stderr:
        fail(f"a --mirror checkpoint resumed without --mirror: exit {r.returncode}, {r.stderr!r}")
    # version 2: the same guarantees with every part on
    v2 = ["--output-buckets", "4", "--stack", "8,16", "--king-buckets", "4"]
    r = train(binary, data, p("v2a.nnue"), "--threads", "2", *v2)
    r1 = train(binary, data, p("v2b.nnue"), "--threads", "1", *v2)
    if r.returncode or r1.returncode or read(p("v2a.nnue")) != read(p("v2b.nnue")):
        fail(f"version 2: 1 and 2 threads differ or fail: {r.stderr} {r1.stderr}")
    elif read(p("v2a.nnue"))[8] != 2 or read(p("a.nnue"))[8] != 1:
        fail("version 2 options do not make a version 2 file, or none a version 1 file")
    r = train(binary, data, p("v2c.nnue"), "--checkpoint", p("v2.ckpt"), "--stop-after", "20000",
              *v2)
    r = train(binary, data, p("v2c.nnue"), "--checkpoint", p("v2.ckpt"), *v2)
    if r.returncode or "resumed" not in r.stderr or read(p("v2a.nnue")) != read(p("v2c.nnue")):
        fail(f"version 2: a resumed run differs or fails: {r.stderr}")
    other_map = ",".join(["0", "1", "2"] + ["3"] * 29)  # 4 buckets, not the preset's map
    r = train(binary, data, p("v2d.nnue"), "--checkpoint", p("v2.ckpt"), "--output-buckets", "4",
              "--stack", "8,16", "--king-buckets", other_map)
    if r.returncode != 2 or "king buckets" not in r.stderr:
        fail(f"a checkpoint of other king buckets resumed: exit {r.returncode}, {r.stderr!r}")
    # --factorise: the file has the shape of the plain king buckets' (the factor is added
    # into it), one network for any thread count, a checkpoint refused without it, and no
    # factoriser without king buckets
    kf = ["--king-buckets", "4", "--factorise"]
    r = train(binary, data, p("kf2.nnue"), "--threads", "2", *kf)
    r1 = train(binary, data, p("kf1.nnue"), "--threads", "1", *kf)
    rk = train(binary, data, p("k4.nnue"), "--king-buckets", "4")
    if r.returncode or r1.returncode or read(p("kf1.nnue")) != read(p("kf2.nnue")):
        fail(f"--factorise: 1 and 2 threads differ or fail: {r.stderr} {r1.stderr}")
    elif rk.returncode or len(read(p("kf2.nnue"))) != len(read(p("k4.nnue"))) \
            or read(p("kf2.nnue")) == read(p("k4.nnue")) or "factorised" not in r.stderr:
        fail("--factorise: not the plain king buckets' file shape, or the same net as without")
    r = train(binary, data, p("kfc.nnue"), "--checkpoint", p("kf.ckpt"), "--stop-after", "20000",
              *kf)
    r = train(binary, data, p("kfc.nnue"), "--checkpoint", p("kf.ckpt"), "--king-buckets", "4")
    if r.returncode != 2 or "factoriser" not in r.stderr:
        fail(f"a --factorise checkpoint resumed without it: exit {r.returncode}, {r.stderr!r}")
    r = train(binary, data, p("kfc.nnue"), "--checkpoint", p("kf.ckpt"), *kf)
    if r.returncode or "resumed" not in r.stderr or read(p("kfc.nnue")) != read(p("kf2.nnue")):
        fail(f"--factorise: a resumed run differs or fails: {r.stderr}")
    r = train(binary, data, p("f.nnue"), "--factorise")
    if r.returncode != 2 or "--factorise: needs --king-buckets" not in r.stderr:
        fail(f"--factorise without king buckets: exit {r.returncode}, {r.stderr!r}")
    sc = p("sc_run")
    subprocess.run([binary, "selfplay", "--variant", "superchess", "--games", "1", "--seed", "8",
                    "--out", sc, "--progress", "0", "--nodes", "50", "--ply-cap", "20"],
                   check=True, stdout=subprocess.DEVNULL)
    r = train(binary, sc, p("sc.nnue"), "--king-buckets", "4")
    lines = r.stderr.strip().splitlines()
    if r.returncode != 2 or len(lines) != 1 or "superchess has none" not in lines[0]:
        fail(f"--king-buckets in superchess: exit {r.returncode}, {r.stderr!r}")
    r = train(binary, data, p("d.nnue"), "--seed", "5")
    if r.returncode or read(p("a.nnue")) == read(p("d.nnue")):
        fail("another seed gives the same network")
    with open(p("a.csv")) as f:
        rows = list(csv.DictReader(f))
    if len(rows) < 5:
        fail(f"loss log has {len(rows)} lines")
    else:
        first, last = float(rows[0]["train_loss"]), float(rows[-1]["train_loss"])
        v0, v1 = float(rows[0]["val_loss"]), float(rows[-1]["val_loss"])
        print(f"loss {first:.5f} -> {last:.5f}, validation {v0:.5f} -> {v1:.5f}")
        # a few thousand positions, many epochs: the training loss must fall; the
        # validation loss (3 games) only has to be there
        if not last < first / 2:
            fail("the training loss did not fall by half")
        if not (v0 == v0 and v1 == v1):
            fail("no validation loss")
    # a corrupt block is reported and skipped, the rest trains
    bad_run = p("bad_run")
    shutil.copytree(data, bad_run)
    shard = os.path.join(bad_run, "shard-000000.bin")
    raw = bytearray(read(shard))
    raw[64 + 8 + 500] ^= 0xFF  # a byte of the first block's records
    with open(shard, "wb") as f:
        f.write(raw)
    r = train(binary, bad_run, p("e.nnue"))
    if r.returncode or "block 0 fails its checks, skipped" not in r.stderr:
        fail(f"corrupt block: exit {r.returncode}, stderr {r.stderr!r}")
    img = read(p("a.nnue"))
    bad = {"trunc.nnue": img[:-1], "corrupt.nnue": img[:200] + bytes([img[200] ^ 1]) + img[201:]}
    for name, content in bad.items():
        with open(p(name), "wb") as f:
            f.write(content)
    fens = p("start.fen")
    with open(fens, "w") as f:
        f.write("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n")
    for name, variant, what in (("trunc.nnue", "chess", "truncated"),
                                ("corrupt.nnue", "chess", "checksum"),
                                ("a.nnue", "switching", "variant 'chess', not 'switching'")):
        r = subprocess.run([binary, "train", "--net", p(name), "--variant", variant,
                            "--eval-fens", fens], capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 2 or len(lines) != 1 or what not in lines[0] or name not in lines[0]:
            fail(f"{name} as {variant}: exit {r.returncode}, stderr {r.stderr!r}")
    for name in ("a.nnue", "v2a.nnue"):
        r = subprocess.run([binary, "train", "--net", p(name), "--variant", "chess",
                            "--eval-fens", fens], capture_output=True, text=True)
        if r.returncode != 0 or len(r.stdout.split()) != 1:
            fail(f"a good network {name}: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
    print("nnue train:", "FAIL" if FAILS else "ok")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
