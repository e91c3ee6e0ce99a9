#!/usr/bin/env python3
"""Loads a chessvar self-play data folder (shard-*.bin, format in selfplay/FORMAT.md) into
numpy arrays and verifies every checksum. A corrupt block or file is reported and not loaded.
Also decodes the Stockfish training formats `--format plain` (shard-*.plain) and
`--format sfbin` (shard-*.sf.bin, 40-byte PackedSfenValue records).

As a library:
    from scripts.data.read_dataset import load_dataset, load_plain, load_sfbin
    data = load_dataset("out/")      # dict of numpy arrays, one row per position
    data["board"].shape              # (positions, width * height)
    sf = load_sfbin("out/")          # score, move, ply, result arrays + "fen", "move_uci" lists
    pl = load_plain("out/")          # the same keys from the text format

As a command: python3 -m scripts.data.read_dataset DIR [--json] prints a summary; exits 1 if any checksum
or structure check fails, 2 on bad usage.
"""
import argparse
import ctypes
import ctypes.util
import glob
import json
import os
import re
import struct
import sys

try:
    import numpy as np
except ImportError:  # run again under the system python (by path, the test's python has numpy)
    from scripts.common.system_python import require
    require("numpy")
    raise

MAGIC = b"CVSPDATA"
VERSION = 1
HEADER_SIZE = 64
FIXED_SIZE = 40
TERMINATIONS = ["none", "mate", "stalemate", "repetition", "fifty_moves", "ply_cap",
                "material", "resign", "draw_score", "engine_failure"]
SF_RECORD = np.dtype([("sfen", "u1", (32,)), ("score", "<i2"), ("move", "<u2"), ("ply", "<u2"),
                      ("result", "i1"), ("pad", "u1")])
SF_VALUE_NONE = 32002
# Huffman codes of the packed sfen, (bits read lowest first, length) -> piece letter
SF_HUFFMAN = {(0b0001, 4): "p", (0b0011, 4): "n", (0b0101, 4): "b", (0b0111, 4): "r", (0b1001, 4): "q"}


def _xxh3_function():
    """Returns a callable bytes -> XXH3-64 using the xxhash module or the C library."""
    try:
        import xxhash  # type: ignore
        return lambda b: xxhash.xxh3_64_intdigest(b)
    except ImportError:
        pass
    names = [ctypes.util.find_library("xxhash"), "libxxhash.so.0", "libxxhash.so", "libxxhash.dylib"]
    for name in names:
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            fn = lib.XXH3_64bits
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_uint64
        fn.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        return lambda b: fn(b, len(b))
    raise RuntimeError("XXH3 needs the python 'xxhash' module or the libxxhash shared library")


xxh3 = _xxh3_function()


def record_dtype(width, height, hold_types, record_size):
    """numpy dtype of one record for this board and holding size (little-endian)."""
    nsq = width * height
    fields = [
        ("game", "<u4"), ("ply", "<u2"), ("legal", "<u2"),
        ("move", "<u4"), ("best", "<u4"),
        ("score", "<i2"), ("result", "<i2"),
        ("side", "u1"), ("ep", "u1"), ("flags", "u1"), ("termination", "u1"),
        ("halfmove", "<u2"), ("depth", "<u2"), ("castle", "<u4"), ("key", "<u8"),
        ("board", "u1", (nsq,)),
    ]
    if hold_types:
        fields += [("hand", "u1", (2, hold_types)), ("pool", "u1", (2, hold_types))]
    used = FIXED_SIZE + nsq + 4 * hold_types
    if record_size > used:
        fields.append(("pad", "u1", (record_size - used,)))
    dt = np.dtype(fields)
    assert dt.itemsize == record_size, (dt.itemsize, record_size)
    return dt


def read_header(buf, path):
    """Parses and checks the 64-byte header; returns a dict or raises ValueError."""
    if len(buf) < HEADER_SIZE:
        raise ValueError(f"{path}: shorter than the {HEADER_SIZE}-byte header")
    if buf[:8] != MAGIC:
        raise ValueError(f"{path}: bad magic {buf[:8]!r}")
    (version, hsize, rsize, brec, width, height, npt, hold, shard, first, games, records) = \
        struct.unpack_from("<HHHHBBBBIIIQ", buf, 8)
    name = buf[40:56].split(b"\0", 1)[0].decode("ascii", "replace")
    (check,) = struct.unpack_from("<Q", buf, 56)
    if xxh3(bytes(buf[:56])) != check:
        raise ValueError(f"{path}: header checksum mismatch")
    if version != VERSION:
        raise ValueError(f"{path}: format version {version}, this reader knows {VERSION}")
    if hsize != HEADER_SIZE:
        raise ValueError(f"{path}: header size {hsize}")
    return dict(version=version, record_size=rsize, block_records=brec, width=width, height=height,
                npt=npt, hold_types=hold, shard=shard, first_game=first, games=games, records=records,
                variant=name)


def read_shard(path, errors):
    """Returns (header, structured array of the good records) of one .bin file; problems
    are appended to errors and their blocks skipped."""
    with open(path, "rb") as f:
        buf = f.read()
    try:
        hdr = read_header(buf, path)
    except ValueError as e:
        errors.append(str(e))
        return None, None
    rs = hdr["record_size"]
    dt = record_dtype(hdr["width"], hdr["height"], hdr["hold_types"], rs)
    parts, off, index, total = [], HEADER_SIZE, 0, 0
    while off < len(buf):
        if off + 8 > len(buf):
            errors.append(f"{path}: truncated block header at byte {off}")
            break
        n, bindex = struct.unpack_from("<II", buf, off)
        end = off + 8 + n * rs
        if n == 0 or n > hdr["block_records"] or end + 8 > len(buf):
            errors.append(f"{path}: block {index} at byte {off}: bad record count {n} or truncated file")
            break
        (check,) = struct.unpack_from("<Q", buf, end)
        if xxh3(bytes(buf[off:end])) != check:
            errors.append(f"{path}: block {index} at byte {off}: checksum mismatch, {n} records not loaded")
        elif bindex != index:
            errors.append(f"{path}: block {index} at byte {off}: holds index {bindex}")
        else:
            parts.append(np.frombuffer(buf, dtype=dt, count=n, offset=off + 8))
        total += n
        index += 1
        off = end + 8
    if total != hdr["records"]:
        errors.append(f"{path}: header says {hdr['records']} records, blocks hold {total}")
    arr = np.concatenate(parts) if parts else np.zeros(0, dtype=dt)
    lo, hi = hdr["first_game"], hdr["first_game"] + hdr["games"]
    if len(arr) and (int(arr["game"].min()) < lo or int(arr["game"].max()) >= hi):
        errors.append(f"{path}: records of games outside the shard's range {lo}..{hi - 1}")
    return hdr, arr


def _shard_paths(folder, ext):
    """The folder's shard files of one extension, in shard order (shard-NNNNNN.EXT only)."""
    pat = re.compile(r"shard-\d{6}\." + re.escape(ext) + "$")
    return sorted(p for p in glob.glob(os.path.join(folder, "shard-*")) if pat.search(p))


def sfen_to_fen(sfen):
    """FEN of one 32-byte packed sfen (Stockfish's SfenPacker layout, FORMAT.md)."""
    bits = np.unpackbits(np.asarray(sfen, dtype=np.uint8), bitorder="little")
    cur = 0

    def take(n):
        nonlocal cur
        v = 0
        for i in range(n):
            v |= int(bits[cur + i]) << i
        cur += n
        return v

    side = take(1)
    board = [""] * 64
    board[take(6)] = "K"
    board[take(6)] = "k"
    for r in range(7, -1, -1):
        for f in range(8):
            sq = r * 8 + f
            if board[sq]:
                continue
            code, n = 0, 0
            while True:
                code |= take(1) << n
                n += 1
                if (code, n) == (0, 1):
                    letter = None
                    break
                if (code, n) in SF_HUFFMAN:
                    letter = SF_HUFFMAN[(code, n)]
                    break
                if n > 5:
                    raise ValueError("bad Huffman code in packed sfen")
            if letter:
                board[sq] = letter.upper() if take(1) == 0 else letter
    castle = "".join(c for c in "KQkq" if take(1)) or "-"
    ep = "-"
    if take(1):
        e = take(6)
        ep = "abcdefgh"[e % 8] + str(e // 8 + 1)
    rule50 = take(6)
    full = take(8)
    full |= take(8) << 8
    rule50 |= take(1) << 6
    rows = []
    for r in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            pc = board[r * 8 + f]
            if pc:
                row += (str(empty) if empty else "") + pc
                empty = 0
            else:
                empty += 1
        rows.append(row + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {'wb'[side]} {castle} {ep} {rule50} {full}"


def sf_move_to_uci(m):
    """UCI text of a Stockfish 16-bit move (castling stored as king takes rook)."""
    m = int(m)
    to, frm, promo, kind = m & 63, (m >> 6) & 63, (m >> 12) & 3, m >> 14
    if kind == 3:
        to = (frm // 8) * 8 + (6 if to > frm else 2)
    sq = lambda s: "abcdefgh"[s % 8] + str(s // 8 + 1)
    return sq(frm) + sq(to) + ("nbrq"[promo] if kind == 1 else "")


def load_sfbin(path, decode=True):
    """PackedSfenValue records of a .sf.bin file or of every shard-*.sf.bin of a folder:
    dict of numpy arrays (score, move, ply, result, sfen) plus, with decode, the lists
    fen and move_uci."""
    paths = _shard_paths(path, "sf.bin") if os.path.isdir(path) else [path]
    parts = []
    for p in paths:
        buf = open(p, "rb").read()
        if len(buf) % SF_RECORD.itemsize:
            raise ValueError(f"{p}: {len(buf)} bytes is not a whole number of 40-byte records")
        parts.append(np.frombuffer(buf, dtype=SF_RECORD))
    rec = np.concatenate(parts) if parts else np.zeros(0, dtype=SF_RECORD)
    out = {k: rec[k] for k in ("sfen", "score", "move", "ply", "result")}
    if decode:
        out["fen"] = [sfen_to_fen(s) for s in rec["sfen"]]
        out["move_uci"] = [sf_move_to_uci(m) for m in rec["move"]]
    return out


def load_plain(path):
    """Entries of a plain text file (fen/move/score/ply/result/e lines) or of every
    shard-*.plain of a folder: lists fen and move (text), arrays score, ply, result."""
    paths = _shard_paths(path, "plain") if os.path.isdir(path) else [path]
    fen, move, score, ply, result = [], [], [], [], []
    for p in paths:
        cur = {}
        with open(p) as f:
            for line in f:
                key, _, val = line.rstrip("\n").partition(" ")
                if key == "e":
                    fen.append(cur["fen"])
                    move.append(cur["move"])
                    score.append(int(cur["score"]))
                    ply.append(int(cur["ply"]))
                    result.append(int(cur["result"]))
                    cur = {}
                elif key in ("fen", "move", "score", "ply", "result"):
                    cur[key] = val
                else:
                    raise ValueError(f"{p}: unknown line {line!r}")
    return {"fen": fen, "move": move, "score": np.array(score, dtype=np.int32),
            "ply": np.array(ply, dtype=np.int32), "result": np.array(result, dtype=np.int8)}


def load_dataset(folder, errors=None):
    """Loads every shard-*.bin of folder into one dict of numpy arrays (one row per
    position). Problems go to errors (a list) when given, else raise ValueError."""
    own = errors is None
    errors = [] if own else errors
    paths = _shard_paths(folder, "bin")
    arrays, meta = [], None
    for p in paths:
        hdr, arr = read_shard(p, errors)
        if hdr is None:
            continue
        key = (hdr["variant"], hdr["width"], hdr["height"], hdr["record_size"])
        if meta is None:
            meta = dict(variant=hdr["variant"], width=hdr["width"], height=hdr["height"],
                        npt=hdr["npt"], hold_types=hdr["hold_types"], key=key)
        elif meta["key"] != key:
            errors.append(f"{p}: variant or layout {key} differs from {meta['key']}")
            continue
        arrays.append(arr)
    manifest = os.path.join(folder, "manifest.json")
    if os.path.exists(manifest):
        with open(manifest) as f:
            man = json.load(f)
        for s in man.get("shards", []):
            binp = os.path.join(folder, s["name"] + ".bin")
            if "bin" in man["config"]["format"].split(",") and not os.path.exists(binp):
                errors.append(f"{binp}: listed in the manifest but missing")
    if own and errors:
        raise ValueError("; ".join(errors))
    if not arrays:
        return {"meta": meta or {}}
    data = np.concatenate(arrays)
    out = {name: data[name] for name in data.dtype.names if name != "pad"}
    out["meta"] = {k: v for k, v in (meta or {}).items() if k != "key"}
    return out


def summarize(data):
    """Summary numbers of a loaded dataset."""
    n = len(data.get("game", []))
    if n == 0:
        return {"positions": 0, "games": 0}
    games, first = np.unique(data["game"], return_index=True)
    # White's score per game: the result of its first position seen from White
    res = data["result"][first].astype(int)
    side = data["side"][first]
    white = np.where(side == 0, res, 1000 - res)
    term = data["termination"][first]
    order = np.lexsort((data["ply"], data["game"]))
    moves = data["move"][order]
    bounds = np.searchsorted(data["game"][order], games)
    seqs = set()
    for i in range(len(games)):
        end = bounds[i + 1] if i + 1 < len(games) else n
        seqs.add(moves[bounds[i]:end].tobytes())
    return {
        "variant": data["meta"].get("variant"),
        "positions": int(n),
        "games": int(len(games)),
        "avg_plies": round(n / len(games), 2),
        "white_score": round(float(white.mean()) / 1000, 4),
        "results": {str(k): int((white == k).sum()) for k in (1000, 750, 500, 250, 0) if (white == k).any()},
        "termination": {TERMINATIONS[t]: int((term == t).sum()) for t in np.unique(term)},
        "duplicate_games": int(len(games) - len(seqs)),
        "random_moves": int((data["flags"] & 1).sum()),
        "avg_search_depth": round(float(data["depth"][data["depth"] > 0].mean()), 2) if (data["depth"] > 0).any() else 0,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.folder):
        print(f"read_dataset: {args.folder}: not a folder", file=sys.stderr)
        return 2
    errors = []
    data = load_dataset(args.folder, errors)
    s = summarize(data)
    s["errors"] = errors
    if args.json:
        print(json.dumps(s))
    else:
        for k, v in s.items():
            if k != "errors":
                print(f"{k}: {v}")
        for e in errors:
            print(f"ERROR {e}", file=sys.stderr)
        print("checksums: " + ("all good" if not errors else f"{len(errors)} problem(s)"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
