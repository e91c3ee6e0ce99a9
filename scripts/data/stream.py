#!/usr/bin/env python3
"""Streams chessvar training positions as numpy batches, one block at a time: memory holds
a block and a batch, never a folder (selfplay/FORMAT.md describes the files).

Bin shards (shard-*.bin) are read directly, every block's XXH3 checked. Chain shards
(shard-*.chain) need the rules of the variant to replay their moves, so the C program
decodes them: `chessvar data convert --in DIR --to bin --out -` writes the same records as
one bin stream to a pipe, which this module reads exactly as it reads a bin file. (A Python
decoder would have to carry every variant's move generator; the pipe costs one process and
reads at the C decoder's speed.)

    from scripts.data.stream import iter_batches
    for b in iter_batches("runs/chess", batch_size=4096):      # chain or bin shards
        x = board_planes(b["board"], npt=6)                    # (n, 2*npt, squares) float32
        y = b["score"]; z = b["result"]; stm = b["side"]       # int16, int16 (per mille), uint8
        ...                                                    # train on them

`ChainDataset(DIR)` wraps the same iterator as a PyTorch IterableDataset when torch imports.
As a command, `python3 -m scripts.data.stream DIR` prints positions, batches and a checksum.
"""
import argparse
import glob
import os
import struct
import subprocess
import sys

try:
    import numpy as np
except ImportError:  # run again under the system python (by path, the test's python has numpy)
    from scripts.common.system_python import require
    require("numpy")
    raise

from scripts.common import ROOT
from scripts.data.read_dataset import FIXED_SIZE, HEADER_SIZE, MAGIC, VERSION, xxh3

FIELDS = [("game", "<u4", 0), ("ply", "<u2", 4), ("legal", "<u2", 6), ("move", "<u4", 8),
          ("best", "<u4", 12), ("score", "<i2", 16), ("result", "<i2", 18), ("side", "u1", 20),
          ("ep", "u1", 21), ("flags", "u1", 22), ("termination", "u1", 23),
          ("halfmove", "<u2", 24), ("depth", "<u2", 26), ("castle", "<u4", 28),
          ("key", "<u8", 32)]


class StreamError(Exception):
    """A stream that cannot be read on (bad header, a strict reader meeting a bad block)."""


def default_chessvar():
    """The chessvar binary: $CHESSVAR, else build/chessvar of the repository."""
    return os.environ.get("CHESSVAR") or os.path.join(ROOT, "build", "chessvar")


def _read_exact(f, n):
    """n bytes from f, fewer only at the end of the stream."""
    parts, got = [], 0
    while got < n:
        b = f.read(n - got)
        if not b:
            break
        parts.append(b)
        got += len(b)
    return b"".join(parts)


def _header(buf, name):
    """The fields of a 64-byte bin header; StreamError when it does not check."""
    if len(buf) < HEADER_SIZE or buf[:8] != MAGIC:
        raise StreamError(f"{name}: not a bin shard (no CVSPDATA header)")
    if xxh3(bytes(buf[:56])) != struct.unpack_from("<Q", buf, 56)[0]:
        raise StreamError(f"{name}: corrupt header")
    ver, _, rsize, per_block = struct.unpack_from("<HHHH", buf, 8)
    if ver != VERSION:
        raise StreamError(f"{name}: version {ver}, this reader knows {VERSION}")
    w, h, npt, hld = buf[16], buf[17], buf[18], buf[19]
    variant = buf[40:56].split(b"\0")[0].decode()
    return {"rsize": rsize, "per_block": per_block, "width": w, "height": h, "npt": npt,
            "hld": hld, "variant": variant}


def iter_blocks(f, name, strict=False):
    """Yields (header, records) per good block of a bin stream f: one shard or several
    shards back to back (a header starts each). records is a (n, rsize) uint8 array. A block
    that fails its checks is reported on stderr and skipped (strict: StreamError)."""
    hdr, index = None, 0
    while True:
        head = _read_exact(f, 8)
        if not head:
            return
        if head == MAGIC:  # the next shard of a stream
            hdr = _header(head + _read_exact(f, HEADER_SIZE - 8), name)
            index = 0
            continue
        if hdr is None:
            raise StreamError(f"{name}: not a bin shard (no CVSPDATA header)")
        n, bindex = struct.unpack("<II", head) if len(head) == 8 else (0, 0)
        if not 1 <= n <= hdr["per_block"]:
            msg = f"{name}: block {index} has a bad length: the rest of the stream"
            if strict:
                raise StreamError(msg)
            print(f"stream: {msg} skipped", file=sys.stderr)
            return
        body = _read_exact(f, n * hdr["rsize"] + 8)
        ok = (len(body) == n * hdr["rsize"] + 8 and bindex == index and
              xxh3(head + body[:-8]) == struct.unpack_from("<Q", body, len(body) - 8)[0])
        if not ok:
            if strict:
                raise StreamError(f"{name}: block {index} fails its checks")
            print(f"stream: {name}: block {index} fails its checks, skipped", file=sys.stderr)
            index += 1
            continue
        index += 1
        yield hdr, np.frombuffer(body[:-8], dtype=np.uint8).reshape(n, hdr["rsize"])


def _shards(path):
    """('chain', [dir]) or ('bin', [files]) for a folder or a file."""
    if os.path.isdir(path):
        if glob.glob(os.path.join(path, "shard-*.chain")):
            return "chain", [path]
        files = sorted(p for p in glob.glob(os.path.join(path, "shard-*.bin"))
                       if not p.endswith(".sf.bin"))
        if not files:
            raise StreamError(f"{path}: no shard-*.chain or shard-*.bin files")
        return "bin", files
    return ("chain", [path]) if path.endswith(".chain") else ("bin", [path])


def iter_records(path, strict=False, chessvar=None):
    """Yields (header, records) blocks of a folder or shard file: bin read directly, chain
    through `chessvar data convert ... --out -`."""
    kind, items = _shards(path)
    if kind == "bin":
        for p in items:
            with open(p, "rb") as f:
                yield from iter_blocks(f, p, strict)
        return
    src = items[0]
    if os.path.isfile(src):  # one chain file: the program reads folders
        raise StreamError(f"{src}: give the folder that holds it")
    cmd = [chessvar or default_chessvar(), "data", "convert", "--in", src, "--from", "chain",
           "--to", "bin", "--out", "-"] + (["--strict"] if strict else [])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE)
    try:
        yield from iter_blocks(proc.stdout, src, strict)
    finally:
        proc.stdout.close()
        rc = proc.wait()
    if rc != 0:
        raise StreamError(f"{' '.join(cmd)}: exit status {rc}")


def _columns(hdr, rec):
    """The named fields of a block of records, as numpy arrays."""
    out = {}
    for name, dt, off in FIELDS:
        size = np.dtype(dt).itemsize
        out[name] = rec[:, off:off + size].copy().view(dt).reshape(-1)
    nsq = hdr["width"] * hdr["height"]
    out["board"] = rec[:, FIXED_SIZE:FIXED_SIZE + nsq]
    out["holdings"] = rec[:, FIXED_SIZE + nsq:FIXED_SIZE + nsq + 4 * hdr["hld"]]
    return out


def iter_batches(path, batch_size=4096, searched_only=True, strict=False, chessvar=None):
    """Yields dicts of numpy arrays of batch_size positions (the last may be shorter):
    board (n, squares) piece codes (colour << 5 | type), holdings (n, 4 * hld), side, score
    (centipawns for the side to move), result (per mille for the side to move), ply, game,
    move, best, depth, flags and the rest of the record's fields. searched_only drops
    positions whose move was not searched (random opening moves: no score)."""
    pending, have = [], 0
    for hdr, rec in iter_records(path, strict, chessvar):
        cols = _columns(hdr, rec)
        if searched_only:
            keep = (cols["best"] != 0) & ((cols["flags"] & 1) == 0)
            cols = {k: v[keep] for k, v in cols.items()}
        pending.append(cols)
        have += len(cols["score"])
        while have >= batch_size:
            merged = {k: np.concatenate([c[k] for c in pending]) for k in pending[0]}
            yield {k: v[:batch_size] for k, v in merged.items()}
            pending = [{k: v[batch_size:] for k, v in merged.items()}]
            have -= batch_size
    if have:
        yield {k: np.concatenate([c[k] for c in pending]) for k in pending[0]}


def board_planes(board, npt):
    """One-hot planes of a batch's boards: (n, 2 * npt, squares) float32, plane
    colour * npt + type - 1 set where that piece stands (White = colour 0)."""
    n, nsq = board.shape
    planes = np.zeros((n, 2 * npt, nsq), dtype=np.float32)
    pc = board.astype(np.int64)
    occ = pc != 0
    idx = (pc >> 5) * npt + (pc & 31) - 1
    rows, sqs = np.nonzero(occ)
    planes[rows, idx[rows, sqs], sqs] = 1.0
    return planes


def _torch_ready(v):
    """v in a dtype torch takes: unsigned 16/32 bits widened, 64-bit keys as int64 bits."""
    if v.dtype == np.uint16:
        return v.astype(np.int32)
    if v.dtype == np.uint32:
        return v.astype(np.int64)
    if v.dtype == np.uint64:
        return np.ascontiguousarray(v).view(np.int64)
    return np.ascontiguousarray(v)


try:
    import torch.utils.data as _tud

    class ChainDataset(_tud.IterableDataset):
        """PyTorch IterableDataset over a folder's batches (chain or bin): each item is
        one batch dict of tensors; use DataLoader(ds, batch_size=None)."""

        def __init__(self, path, batch_size=4096, searched_only=True, chessvar=None):
            super().__init__()
            self.args = (path, batch_size, searched_only, False, chessvar)

        def __iter__(self):
            import torch
            for b in iter_batches(*self.args):
                yield {k: torch.from_numpy(_torch_ready(v)) for k, v in b.items()}
except ImportError:  # torch is optional
    ChainDataset = None


def main():
    ap = argparse.ArgumentParser(description="Streams a folder's positions in batches and "
                                 "prints positions, batches and a checksum.")
    ap.add_argument("path", help="a run folder (chain or bin shards) or a bin shard")
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--all", action="store_true", help="keep unsearched positions too")
    ap.add_argument("--strict", action="store_true", help="stop at a bad block")
    ap.add_argument("--chessvar", help="the chessvar binary (default build/chessvar)")
    args = ap.parse_args()
    try:
        n = batches = 0
        check = 0
        for b in iter_batches(args.path, args.batch, not args.all, args.strict, args.chessvar):
            n += len(b["score"])
            batches += 1
            check = (check + int(b["score"].astype(np.int64).sum()) +
                     int(b["board"].astype(np.int64).sum())) % (1 << 61)
    except (StreamError, OSError) as e:
        print(f"stream: {e}", file=sys.stderr)
        return 2
    print(f'{{"positions": {n}, "batches": {batches}, "checksum": {check}}}')
    return 0


if __name__ == "__main__":
    sys.exit(main())
