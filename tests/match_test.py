#!/usr/bin/env python3
"""ctest: matches against UCI engines through `chessvar selfplay --opponent uci:CMD`.
Against `chessvar uci`: paired openings (the same random opening plies in games 2k and
2k+1, colours swapped), PGN and JSONL as usual, a summary with score, Elo and interval.
Against tests/fake_engine.py: an engine that crashes, hangs past its deadline, plays an
illegal move or exits loses that game with the reason recorded, is restarted, and the run
plays every game. Nothing is timed (a hang is detected by a 1 s deadline whatever the
machine's speed).

usage: match_test.py CHESSVAR [WRONG_ENGINE]"""

import json
import os
import re
import subprocess
import sys
import tempfile

from uci_session import check

CHESSVAR = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))


def match(out, opponent, games, extra=(), timeout=60):
    """Runs a match; returns (exit status, summary dict or None, stderr)."""
    cmd = [CHESSVAR, "selfplay", "--variant", "chess", "--games", str(games), "--threads", "2",
           "--nodes", "300", "--opponent", f"uci:{opponent}", "--opponent-budget", "nodes=300",
           "--out", out, "--format", "pgn,jsonl", "--json", "--progress", "0",
           "--opponent-timeout", str(timeout), *extra]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = res.stdout.strip().splitlines()
    return res.returncode, json.loads(lines[-1]) if lines else None, res.stderr


def pgn_games(out):
    """Games of every PGN shard: (tags dict, list of moves)."""
    games = []
    for name in sorted(os.listdir(out)):
        if not name.endswith(".pgn"):
            continue
        with open(os.path.join(out, name), encoding="utf-8") as fh:
            for block in fh.read().split("[Event ")[1:]:
                tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]$', block, re.M))
                body = block.split("\n\n", 1)[1]
                moves = [t for t in body.split() if not re.match(r"^\d+\.$|^1-0$|^0-1$|^1/2", t)]
                games.append((tags, moves))
    return games


def main():
    with tempfile.TemporaryDirectory(prefix="match_test_") as tmp:
        out = os.path.join(tmp, "good")
        rc, s, err = match(out, f"{CHESSVAR} uci", 4, ["--random-plies", "4"])
        check(rc == 0 and s["games"] == 4, f"match against chessvar uci: {rc} {err}")
        check(s["termination"]["engine_failure"] == 0, f"no engine failures: {s}")
        check(s["a_wins"] + s["a_draws"] + s["a_losses"] == 4 and "elo" in s
              and len(s["elo_95"]) == 2 and s["elo_95"][0] <= s["elo"] <= s["elo_95"][1],
              f"score, Elo and interval in the summary: {s}")
        games = pgn_games(out)
        check(len(games) == 4, f"4 PGN games, got {len(games)}")
        for k in (0, 2):
            (ta, ma), (tb, mb) = games[k], games[k + 1]
            check(ma[:4] == mb[:4], f"games {k},{k + 1} share the opening: {ma[:4]} {mb[:4]}")
            check(ta["White"] == tb["Black"] and ta["Black"] == tb["White"]
                  and ta["White"].startswith("chessvar") and tb["White"].startswith("uci:"),
                  f"colours swapped within the pair: {ta['White']} / {tb['White']}")
        with open(os.path.join(out, "shard-000000.jsonl"), encoding="utf-8") as fh:
            recs = [json.loads(line) for line in fh]
        # the engine's moves carry its own depth and score (game 2k: the engine is Black)
        eng = [r for r in recs if not r["random"] and r["ply"] % 2 == 1 - r["game"] % 2]
        check(eng and all(r["best"] == r["move"] for r in eng)
              and sum(r["depth"] >= 1 for r in eng) > len(eng) // 2
              and any(r["score"] != 0 for r in eng), f"engine moves labelled: {eng[:3]}")
        print("ok   match against chessvar uci:", s["a_score"], s["elo"], s["elo_95"])

        reasons = {"crash": "engine crashed (signal 11)", "hang": "did not answer 'go' within",
                   "illegal": "illegal move 'a1a1'", "exit": "engine exited (status 3)"}
        for mode, reason in reasons.items():
            out = os.path.join(tmp, mode)
            # only the hang needs a short deadline: a slow legal answer then reads as the
            # same failure, so the test does not depend on the machine's speed
            rc, s, err = match(out, f"python3 {HERE}/fake_engine.py {CHESSVAR} {mode} 3", 4,
                               timeout=1 if mode == "hang" else 60)
            check(rc == 0 and s["games"] == 4, f"{mode}: the run plays every game: {rc} {err}")
            check(s["termination"]["engine_failure"] == 4,
                  f"{mode}: every game lost by the engine: {s['termination']}")
            check(s["a_wins"] == 4 and s["engine_restarts"] >= 2,
                  f"{mode}: chessvar wins, the engine restarts: {s}")
            for tags, _ in pgn_games(out):
                check(tags["Termination"] == "engine_failure"
                      and reason in tags.get("TerminationDetail", ""),
                      f"{mode}: reason recorded: {tags}")
                engine_white = tags["White"].startswith("uci:")
                check(tags["Result"] == ("0-1" if engine_white else "1-0"),
                      f"{mode}: the engine's side lost: {tags}")
            print(f"ok   {mode}: 4 games lost by the engine, restarts {s['engine_restarts']}")

        rc, s, err = match(os.path.join(tmp, "none"), os.path.join(HERE, "no-such-engine"), 2)
        check(rc == 2 and "--opponent" in err, f"an engine that does not start: exit 2: {err}")
        rc = subprocess.run([CHESSVAR, "selfplay", "--games", "2", "--out",
                             os.path.join(tmp, "x"), "--opponent-option", "A=1"],
                            capture_output=True, text=True, check=False).returncode
        check(rc == 2, "--opponent-option without a uci: opponent is a usage error")
    print("match: all checks passed")


if __name__ == "__main__":
    main()
