#!/usr/bin/env python3
"""Verify every perft count of an orthodox-chess EPD file with Stockfish.

Each data line is `FEN ;D1 n ;D2 n ...`; `#` starts a comment. For every (FEN, depth, n)
the script runs Stockfish's `go perft depth` and compares. Exit status 0 when all agree, 1
when any differs, 2 on a malformed file.

  python3 -m scripts.crosscheck.check_epd_stockfish tests/data/chess.epd
  python3 -m scripts.crosscheck.check_epd_stockfish tests/data/chess.epd --max-nodes 50000000
  python3 -m scripts.crosscheck.check_epd_stockfish --complete 6 --fen "8/8/8/8/8/8/8/K1k5 w - - 0 1"

--complete D prints the line with D1..D computed by Stockfish (to fill the depths a source
does not publish); the printed counts are Stockfish's, never copied from anywhere else.
"""

import argparse
import sys

from scripts.common.uci_engine import UciEngine


def parse_epd_line(line, where):
    """Split one EPD data line into (fen, [(depth, count), ...]); None for blank/comment."""
    text = line.split("#", 1)[0].strip()
    if not text:
        return None
    fields = [f.strip() for f in text.split(";")]
    fen = fields[0]
    if len(fen.split()) < 4:
        raise ValueError(f"{where}: FEN needs at least 4 fields: {fen!r}")
    counts = []
    for field in fields[1:]:
        if not field:
            continue
        parts = field.split()
        if len(parts) != 2 or not parts[0].startswith("D") or not parts[0][1:].isdigit():
            raise ValueError(f"{where}: bad count field {field!r}")
        if not parts[1].isdigit():
            raise ValueError(f"{where}: bad count {parts[1]!r}")
        counts.append((int(parts[0][1:]), int(parts[1])))
    if not counts:
        raise ValueError(f"{where}: no counts")
    return fen, counts


def check_file(engine, path, max_nodes, verbose):
    """Compare every count of the file with Stockfish; return (checked, skipped, failures)."""
    checked = skipped = 0
    failures = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            parsed = parse_epd_line(line, f"{path}:{lineno}")
            if parsed is None:
                continue
            fen, counts = parsed
            for depth, expected in counts:
                if max_nodes and expected > max_nodes:
                    skipped += 1
                    continue
                got = engine.perft(fen, depth)
                checked += 1
                status = "ok" if got == expected else "MISMATCH"
                if got != expected:
                    failures.append((lineno, fen, depth, expected, got))
                if verbose or got != expected:
                    print(f"{path}:{lineno} D{depth} file={expected} stockfish={got} {status}")
    return checked, skipped, failures


def main():
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", help="EPD files to verify")
    ap.add_argument("--engine", default=None, help="Stockfish binary (default: stockfish)")
    ap.add_argument("--max-nodes", type=int, default=0,
                    help="skip counts larger than this (0 = check everything)")
    ap.add_argument("--complete", type=int, default=0, metavar="D",
                    help="print FEN ;D1..;DD computed by Stockfish for each --fen")
    ap.add_argument("--fen", action="append", default=[], help="FEN for --complete")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    with UciEngine(args.engine) as engine:
        print(f"# engine: {engine.name}", file=sys.stderr)
        if args.complete:
            for fen in args.fen:
                counts = [engine.perft(fen, d) for d in range(1, args.complete + 1)]
                print(fen + "".join(f" ;D{d} {n}" for d, n in enumerate(counts, 1)))
            if not args.files:
                return 0
        total_fail = 0
        for path in args.files:
            try:
                checked, skipped, failures = check_file(engine, path, args.max_nodes,
                                                        args.verbose)
            except ValueError as err:
                print(f"error: {err}", file=sys.stderr)
                return 2
            total_fail += len(failures)
            print(f"{path}: {checked} counts checked, {skipped} skipped, "
                  f"{len(failures)} mismatches ({engine.name})")
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
