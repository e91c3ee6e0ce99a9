#!/usr/bin/env python3
"""ctest: `chessvar uci` spoken to directly. Sends sequences and checks the answers (as
Stockfish's own protocol tests do; nothing is timed): handshake and options, go perft in
Stockfish's exact format, d, bad input answered with `info string error:` while the last
good state stays, searches with every kind of limit, stop during go infinite, MultiPV,
every variant, and the notation of every special move.

usage: uci_protocol_test.py CHESSVAR [WRONG_ENGINE]"""

import json
import re
import subprocess
import sys

from uci_session import Session, check

CHESSVAR = sys.argv[1]
VARIANTS = ["chess", "switching", "superchess", "supremo", "cannon10"]
INFO_RE = re.compile(r"^info depth (\d+) seldepth (\d+) multipv (\d+) score (cp -?\d+|mate -?\d+)"
                     r"( upperbound| lowerbound)? nodes (\d+) nps (\d+) hashfull (\d+) "
                     r"time (\d+) pv( \S+)+$")


def is_(text):
    """Predicate: the line equals text."""
    return lambda line: line == text


def divide(s, depth):
    """go perft depth: the move lines, the total; checks Stockfish's layout exactly."""
    got = s.ask(f"go perft {depth}", lambda ln: ln.startswith("Nodes searched: "), "perft")
    s.ask("isready", is_("readyok"), "readyok")  # the blank line after the total comes first
    check(got[-2] == "", f"a blank line before 'Nodes searched', got {got[-3:]}")
    moves = {}
    for line in got[:-2]:
        m = re.fullmatch(r"(\S+): (\d+)", line)
        check(m, f"divide line 'move: count', got '{line}' in {got}")
        moves[m.group(1)] = int(m.group(2))
    total = int(got[-1].split(": ")[1])
    check(sum(moves.values()) == total, f"divide sums to {sum(moves.values())}, total {total}")
    after = s.seen[-2]
    check(after == "", f"a blank line after 'Nodes searched', got '{after}'")
    return moves, total


def fen_of(s):
    """The FEN that `d` prints."""
    got = s.ask("d", lambda ln: ln.startswith("Key: "), "d")
    fens = [ln[5:] for ln in got if ln.startswith("Fen: ")]
    check(len(fens) == 1, f"d prints one Fen line, got {got}")
    check(re.fullmatch(r"Key: [0-9A-F]{16}", got[-1]), f"d prints the key, got {got[-1]}")
    return fens[0]


def error_after(s, line, *words):
    """Sends a bad line and checks the `info string error:` answer names every word."""
    got = s.ask(line, lambda ln: ln.startswith("info string error: "), f"error for '{line}'")
    for w in words:
        check(w in got[-1], f"error for '{line}' should name '{w}': {got[-1]}")
    s.ask("isready", is_("readyok"), "readyok after an error")


def search(s, go):
    """Runs a search; checks every info line's fields and returns (infos, bestmove)."""
    got = s.ask(go, lambda ln: ln.startswith("bestmove"), f"bestmove for '{go}'")
    infos = [ln for ln in got if ln.startswith("info depth")]
    for ln in infos:
        check(INFO_RE.match(ln), f"info line with depth seldepth multipv score nodes nps "
                                 f"hashfull time pv: '{ln}'")
    return infos, got[-1].split()[1]


def perft_cli(variant, depth, fen=None):
    """Total of `chessvar perft` for the same position (the reference for go perft)."""
    cmd = [CHESSVAR, "perft", "--variant", variant, "--depth", str(depth), "--json",
           "--threads", "1"]
    if fen:
        cmd += ["--fen", fen]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["nodes"]


def main():
    s = Session([CHESSVAR, "uci"])
    got = s.ask("uci", is_("uciok"), "uciok")
    opts = [ln for ln in got if ln.startswith("option name ")]
    combo = [ln for ln in opts if ln.startswith("option name UCI_Variant type combo default chess")]
    check(combo and all(f" var {v}" in combo[0] for v in VARIANTS), f"UCI_Variant combo: {opts}")
    check("option name Threads type spin default 1 min 1 max 1" in opts, "Threads fixed at 1")
    check(any(ln.startswith("option name Hash type spin") for ln in opts), "Hash option")
    check(any(ln.startswith("option name MultiPV type spin default 1") for ln in opts), "MultiPV")
    check("id name chessvar" in got, "id name")
    s.ask("isready", is_("readyok"), "readyok")

    # go perft as Stockfish prints it; e2e4 at depth 4 of the start is 13160 (published)
    s.send("position startpos moves e2e4")
    moves, total = divide(s, 3)
    check(total == 13160 and len(moves) == 20, f"perft 3 after e2e4: {total}, {len(moves)} moves")
    good = fen_of(s)
    check(good.startswith("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq"), good)

    # bad input: answered with an error naming what was wrong; the last good state stays
    error_after(s, "foo bar", "unknown command", "foo")
    error_after(s, "position startpos moves e2e4 e7e5 e1e3", "illegal move", "e1e3", "move 3")
    check(fen_of(s) == good, "an illegal move leaves the position unchanged")
    error_after(s, "position fen 8/8/8 w", "bad FEN")
    error_after(s, "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves "
                   "e2e4 x9", "illegal move", "x9")
    error_after(s, "position sideways", "position", "sideways")
    error_after(s, "setoption name Hash value lots", "Hash", "lots")
    error_after(s, "setoption name Hash value 0", "Hash")
    error_after(s, "setoption name Threads value 2", "Threads", "one thread")
    error_after(s, "setoption name MultiPV value 0", "MultiPV")
    error_after(s, "setoption name NoSuchThing value 1", "NoSuchThing")
    error_after(s, "setoption name UCI_Variant value xiangqi", "UCI_Variant", "xiangqi")
    error_after(s, "setoption value 3", "setoption")
    error_after(s, "go depth deep", "depth", "deep")
    error_after(s, "go sideways 3", "sideways")
    error_after(s, "go perft 0", "perft", "0")
    check(fen_of(s) == good, "bad input leaves the position unchanged")

    # searches under every kind of limit; the best move is legal
    legal = set(moves)
    for go in ["go depth 3", "go nodes 3000", "go movetime 30",
               "go wtime 3000 btime 3000 winc 20 binc 20 movestogo 25", "go btime 500 wtime 10"]:
        infos, best = search(s, go)
        check(best in legal, f"{go}: bestmove {best} is legal")
    infos, best = search(s, "go depth 4")
    check([int(INFO_RE.match(i).group(1)) for i in infos] == [1, 2, 3, 4], f"depths 1..4: {infos}")
    # MultiPV: one line per PV and depth
    s.send("setoption name MultiPV value 3")
    infos, best = search(s, "go depth 3")
    last = [INFO_RE.match(i) for i in infos if INFO_RE.match(i).group(1) == "3"]
    check([m.group(3) for m in last] == ["1", "2", "3"], f"MultiPV 3 lines: {infos}")
    s.send("setoption name MultiPV value 1")
    # the search margins: listed with the start's (chess with its network: QSDelta 300 of
    # its profile, the others the built-in defaults), checked, and used: a depth-9 search of
    # a fresh table counts other nodes with a reverse futility margin of 40 than with 80,
    # the same again with 80 (kept over a new table, EvalFile and UCI_Variant)
    for name, default in [("RFPMargin", 80), ("FutilityMargin", 150), ("RazorMargin", 250),
                          ("QSDelta", 300), ("ProbCutMargin", 200), ("NullEvalR", 200),
                          ("AspWindow", 30)]:
        check(any(ln.startswith(f"option name {name} type spin default {default} min ")
                  for ln in opts), f"{name} option with default {default}: {opts}")
    error_after(s, "setoption name RFPMargin value 0", "RFPMargin", "'0'")
    error_after(s, "setoption name AspWindow value wide", "AspWindow", "wide")

    def nodes_at_9():
        s.send("ucinewgame")
        s.send("position startpos")
        infos, _ = search(s, "go depth 9")
        return int(INFO_RE.match(infos[-1]).group(6))
    default_nodes = nodes_at_9()
    s.send("setoption name RFPMargin value 40")
    narrow = nodes_at_9()
    # a new search (Hash makes one at any value) keeps the margins; the same size as the
    # default's 16 MB, since where entries collide, so the nodes a search counts, depends on it
    s.send("setoption name Hash value 16")
    check(nodes_at_9() == narrow, "RFPMargin kept over a new table")
    s.send("setoption name RFPMargin value 80")
    s.send("setoption name Hash value 16")
    check(narrow != default_nodes, f"RFPMargin 40 searches other nodes: {narrow}")
    check(nodes_at_9() == default_nodes, "RFPMargin back at 80: the default's nodes again")
    # a margin never set follows the evaluation: the classical one searches with QSDelta 200
    # (the network's 300 is its own), and one set stays over a change of evaluation
    s.send("setoption name EvalFile value classical")
    classical = nodes_at_9()
    s.send("setoption name QSDelta value 300")
    classical_300 = nodes_at_9()
    check(classical_300 != classical, f"classical with QSDelta 300 searches other nodes: {classical}")
    s.send("setoption name QSDelta value 200")
    check(nodes_at_9() == classical, "classical with QSDelta unset is QSDelta 200")
    s.send("setoption name EvalFile value <default>")
    check(nodes_at_9() != default_nodes, "QSDelta 200, set, is kept with the network")
    s.send("setoption name QSDelta value 300")
    check(nodes_at_9() == default_nodes, "the network with QSDelta unset is QSDelta 300")
    s.send("position startpos moves e2e4")
    # go infinite: isready answered during the search, no bestmove before stop
    s.send("go infinite")
    s.until(lambda ln: ln.startswith("info depth 2 "), "info depth 2 of go infinite")
    got = s.ask("isready", is_("readyok"), "readyok during go infinite")
    check(not any(ln.startswith("bestmove") for ln in got), "no bestmove before stop")
    got = s.ask("stop", lambda ln: ln.startswith("bestmove"), "bestmove after stop")
    check(got[-1].split()[1] in legal, f"bestmove after stop is legal: {got[-1]}")
    # mate and stalemate positions: no legal move
    s.send("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    got = s.ask("go depth 3", lambda ln: ln.startswith("bestmove"), "bestmove when mated")
    check(got[-1] == "bestmove (none)" and "info depth 0 score mate 0" in got, f"mated: {got}")
    s.send("position fen k7/8/1K6/8/8/8/7Q/8 w - - 0 1")
    infos, best = search(s, "go depth 3")
    check(best == "h2h8", f"mate in one is found: {best} {infos[-1:]}")
    check(" score mate 1 " in infos[-1], f"mate in one scored 'mate 1': {infos[-1]}")

    # the last PV reported leads with the move played, also when the node budget ends an
    # iteration that found a new best move (these budgets did so, and reported the old PV
    # last, before the search reported the new one)
    s.send("position startpos")
    for nodes in [1655, 1752, 1849, 1946, 2043, 2140]:
        s.send("ucinewgame")
        infos, best = search(s, f"go nodes {nodes}")
        last = infos[-1].split(" pv ")[1].split()[0]
        check(last == best, f"go nodes {nodes}: last PV starts with {last}, bestmove {best}")

    # every variant: go perft agrees with chessvar perft, the search answers a legal move
    for v in VARIANTS:
        s.send(f"setoption name UCI_Variant value {v}")
        s.send("ucinewgame")
        s.send("position startpos")
        moves, total = divide(s, 2)
        check(total == perft_cli(v, 2), f"{v}: go perft 2 = chessvar perft 2")
        infos, best = search(s, "go depth 2")
        check(best in moves, f"{v}: bestmove {best} is legal")
        check(infos, f"{v}: info lines")

    # the notation of each special move, in and out (the examples of engine/README.md)
    cases = [
        ("chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1 e8g8",
         "r4rk1/8/8/8/8/8/8/2KR3R w - - 2 2"),
        ("chess", "8/P6k/8/8/8/8/8/K7 w - - 0 1", "a7a8n", "N7/7k/8/8/8/8/8/K7 b - - 0 1"),
        ("switching", None, "Sb1c1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RBNQKBNR b KQkq - 1 1"),
        ("switching", "2N4k/1P6/8/8/8/8/8/K7 w - - 0 1", "Sb7c8q",
         "2Q4k/1N6/8/8/8/8/8/K7 b - - 0 1"),
        ("superchess", None, "X@d3",
         "dofekmga/tthpphtt/8/8/8/3X4/TTHPPHTT/DOFEKMGA[Llx] b - - 0 1"),
        ("supremo", "9k/10/10/10/4p5/4T5/3P6/10/10/K9 w - - 0 1", "e5d5",
         "9k/10/10/10/10/3T6/3P6/10/10/K9 b - - 0 1"),
        ("supremo", "9k/10/10/5p4/10/4N5/10/10/10/K9 w - - 0 1", "e5xf7-e9",
         "9k/4N5/10/10/10/10/10/10/10/K9 b - - 0 1"),
    ]
    for v, fen, mv, want in cases:
        s.send(f"setoption name UCI_Variant value {v}")
        s.send(f"position {'fen ' + fen if fen else 'startpos'}")
        moves, _ = divide(s, 1)
        check(mv.split()[0] in moves, f"{v}: go perft lists {mv.split()[0]}: {sorted(moves)}")
        s.send(f"position {'fen ' + fen if fen else 'startpos'} moves {mv}")
        check(fen_of(s) == want, f"{v}: after {mv}: {fen_of(s)} != {want}")

    s.send("quit")
    check(s.close() == 0, "quit exits with status 0")
    print("uci protocol: all checks passed")


if __name__ == "__main__":
    main()
