#!/usr/bin/env python3
"""ctest: a client's mistake never hangs `chessvar uci`.

Replays the sessions that used to hang (a `go` while `go infinite`, a bare `go` or
`go ponder` still ran, then `quit`), checks that such a `go` is refused with
`info string error:` and that the running search goes on until `stop`, that `quit` and the
end of the input end the process whatever runs (a search, a deep `go perft`), and plays
120 seeded random sessions of UCI words, each of which must end by itself. The deadline
(10 s a session) only turns a hang into a failure; nothing is timed.

usage: uci_hang_test.py CHESSVAR [WRONG_ENGINE]"""

import random
import subprocess
import sys

from uci_session import Session, check

CHESSVAR = sys.argv[1]
DEADLINE = 10.0


def run_session(text, what):
    """Feeds text to `chessvar uci` with the input closed after it; the output lines. Fails
    when the process has not ended by itself within the deadline."""
    try:
        r = subprocess.run([CHESSVAR, "uci"], input=text, capture_output=True, text=True,
                           timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        check(False, f"{what}: still running {DEADLINE:.0f} s after its input ended")
        return []
    check(r.returncode == 0, f"{what}: exit status {r.returncode}: {r.stderr.strip()}")
    return r.stdout.splitlines()


def hanging_sessions():
    """The issue's sessions: go infinite / bare go / go ponder, another go, quit, as one
    block of input (so the second go arrives while the first search runs)."""
    for first in ["go infinite", "go", "go ponder"]:
        for end in ["quit\n", ""]:  # quit, or the end of the input
            text = f"uci\nposition startpos\n{first}\ngo depth 2\n{end}"
            out = run_session(text, f"'{first}' then 'go depth 2' then {end.strip() or 'EOF'}")
            refused = [ln for ln in out if ln.startswith("info string error: 'go' while a search")]
            check(len(refused) == 1, f"'{first}': the second go refused once, got {refused}")


def refused_commands_keep_search():
    """go, eval, setoption and ucinewgame during go infinite are refused; the search goes on
    and stop still gives its bestmove; afterwards the engine takes a new go."""
    s = Session([CHESSVAR, "uci"])
    s.send("position startpos")
    s.send("go infinite")
    s.until(lambda ln: ln.startswith("info depth 1 "), "info depth 1 of go infinite")
    for cmd in ["go depth 1", "eval", "setoption name Hash value 1", "ucinewgame"]:
        name = cmd.split()[0]
        s.ask(cmd, lambda ln, n=name: ln.startswith(f"info string error: '{n}' while a search"),
              f"'{cmd}' refused during go infinite")
    s.ask("isready", lambda ln: ln == "readyok", "readyok after the refused commands")
    s.ask("stop", lambda ln: ln.startswith("bestmove "), "bestmove after stop")
    s.ask("go depth 2", lambda ln: ln.startswith("bestmove "), "a new go after stop is searched")
    s.send("quit")
    check(s.proc.wait(timeout=DEADLINE) == 0, "quit after a finished search")


def quit_during_work():
    """quit ends a running go infinite and a deep go perft; EOF ends go infinite."""
    run_session("position startpos\ngo infinite\nquit\n", "quit during go infinite")
    run_session("position startpos\ngo infinite\n", "EOF during go infinite")
    run_session("position startpos\ngo perft 9\nquit\n", "quit during go perft 9")
    run_session("position startpos\ngo perft 9\n", "EOF during go perft 9")
    run_session("position startpos\ngo perft 9\nstop\nisready\nquit\n", "stop, quit during go perft 9")


WORDS = ["uci", "isready", "ucinewgame", "stop", "ponderhit", "d", "eval", "quit",
         "position startpos", "position startpos moves e2e4 e7e5",
         "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
         "go", "go infinite", "go ponder", "go depth 3", "go depth 30", "go nodes 2000",
         "go movetime 20", "go wtime 200 btime 200 winc 5 binc 5", "go perft 3", "go perft 8",
         "setoption name Hash value 2", "setoption name MultiPV value 2",
         "setoption name UCI_Variant value supremo", "setoption name UCI_Variant value chess",
         "setoption name UCI_Variant value superchess", "go depth", "go sideways", "bogus"]


def random_sessions(count=120, seed=26):
    """Seeded random sessions of UCI words, half ending with quit and half with EOF."""
    rng = random.Random(seed)
    for i in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 12))]
        if i % 2 == 0:
            words.append("quit")
        run_session("\n".join(words) + "\n", f"random session {i}: {words}")


def main():
    hanging_sessions()
    refused_commands_keep_search()
    quit_during_work()
    random_sessions()
    print("uci_hang_test: every session ended by itself")
    return 0


if __name__ == "__main__":
    sys.exit(main())
