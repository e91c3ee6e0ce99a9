#!/usr/bin/env python3
"""ctest: a real client drives `chessvar uci`: the Debian polyglot adapter (UCI -> xboard)
in a scripted xboard session. Checks the feature handshake (options reach the client),
moves in both directions, castling and promotion through setboard, an illegal user move
refused by the client, and ping/pong ordering. Nothing is timed.

usage: polyglot_test.py CHESSVAR [WRONG_ENGINE]"""

import os
import re
import sys
import tempfile

from uci_session import Session, check, find_tool

CHESSVAR = os.path.abspath(sys.argv[1])
MOVE_RE = re.compile(r"^move ([a-h][1-8][a-h][1-8][qrbn]?)$")


def engine_move(s, what):
    """Reads up to the engine's `move X` line and returns X."""
    got = s.until(lambda ln: MOVE_RE.match(ln) is not None or ln.startswith("Illegal"), what)
    check(MOVE_RE.match(got[-1]), f"{what}: expected a move, got {got[-5:]}")
    return MOVE_RE.match(got[-1]).group(1)


def main():
    polyglot = find_tool("polyglot")
    with tempfile.TemporaryDirectory(prefix="polyglot_test_") as home:
        env = dict(os.environ, HOME=home)  # polyglot keeps per-engine settings under $HOME
        s = Session([polyglot, "-noini", "-ec", f"{CHESSVAR} uci", "-log", "false"], env=env,
                    cwd=home)
        s.send("xboard")
        got = s.ask("protover 2", lambda ln: ln == "feature done=1", "feature done=1")
        feats = "\n".join(got)
        check('myname="chessvar"' in feats, "the engine's name reaches the client")
        check("UCI_Variant -combo" in feats and "supremo" in feats, "the variant combo")
        check("MultiPV -spin" in feats, "MultiPV reaches the client")
        s.send("new")
        s.send("sd 3")
        s.send("usermove e2e4")
        reply = engine_move(s, "reply to e2e4")
        s.ask("ping 1", lambda ln: ln == "pong 1", "pong 1")
        # an illegal user move is refused and the game goes on
        got = s.ask("usermove e2e5", lambda ln: ln.startswith("Illegal move"), "Illegal move")
        check("e2e5" in got[-1], f"illegal move named: {got[-1]}")
        s.ask("ping 2", lambda ln: ln == "pong 2", "pong 2")
        # castling in, a reply out
        s.send("new")
        s.send("force")
        s.send("setboard r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
        s.send("sd 2")
        s.send("usermove e1g1")
        s.send("go")
        reply = engine_move(s, "reply after castling")
        check(reply.startswith(("a", "b", "c", "d", "e", "f", "g", "h")), reply)
        # a promotion for the engine to find, through polyglot's notation: only promoting
        # now keeps the win (any other move lets Kc7 take the pawn or the new piece)
        s.send("new")
        s.send("force")
        s.send("setboard 8/1P1k4/8/8/8/8/8/K7 w - - 0 1")
        s.send("sd 3")
        s.send("go")
        reply = engine_move(s, "move in the promotion position")
        check(reply in ("b7b8q", "b7b8r"), f"the engine promotes: {reply}")
        s.ask("ping 3", lambda ln: ln == "pong 3", "pong 3")
        s.send("quit")
        check(s.close() == 0, "polyglot exits cleanly")
    print("polyglot: all checks passed")


if __name__ == "__main__":
    main()
