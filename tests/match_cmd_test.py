#!/usr/bin/env python3
"""ctest: `chessvar match` between outside engines (tests/fake_engine.py in front of
`chessvar uci`, and `chessvar uci` itself), tiny node budgets so it takes seconds.

1. Superchess and Supremo: a match of two outside engines runs to its end: every game in
   the PGN with its Variant tag, colours swapped within each pair, no engine failure.
2. An engine that plays one illegal move in the whole match (fake_engine.py with a
   marker file) loses exactly that game; the log on stderr names the move and the
   position; the engine is restarted and every game is played.
3. An engine too slow for its time control once loses that game on time.
4. --sprt stops a match between a strong and a weak player with a decision.
5. Bad --engine specs are usage errors (exit 2) that name the bad part.
6. A PGN book (Supremo games that chessvar selfplay wrote, cut at 4 plies): each pair
   starts from the position of one of its games after 4 plies (the FENs the selfplay run's
   JSONL holds there), both colours; the PGN's Event tag names the match.

usage: match_cmd_test.py CHESSVAR"""

import json
import os
import re
import subprocess
import sys
import tempfile

from uci_session import check

CHESSVAR = os.path.abspath(sys.argv[1])
FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_engine.py")


def run_match(out, *args):
    """Runs chessvar match --json; returns (exit status, summary or None, stderr)."""
    cmd = [CHESSVAR, "match", "--out", out, "--json", "--progress", "0", *args]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=300)
    lines = res.stdout.strip().splitlines()
    return res.returncode, json.loads(lines[-1]) if lines else None, res.stderr


def pgn_games(out):
    """The games of every PGN file of the match: (tags, moves) each."""
    games = []
    for name in sorted(os.listdir(out)):
        if name.endswith(".pgn"):
            with open(os.path.join(out, name), encoding="utf-8") as fh:
                for block in fh.read().split("[Event ")[1:]:
                    tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]$', block, re.M))
                    games.append(tags)
    return games


def main():
    with tempfile.TemporaryDirectory(prefix="match_cmd_") as tmp:
        for variant in ("superchess", "supremo"):
            out = os.path.join(tmp, variant)
            rc, s, err = run_match(
                out, "--variant", variant, "--games", "4", "--concurrency", "2",
                "--engine", f"cmd={CHESSVAR} uci;name=inner;nodes=200;option.Hash=4",
                "--engine", f"cmd=python3 {FAKE} {CHESSVAR} none;name=fake;nodes=150")
            check(rc == 0 and s["games"] == 4, f"{variant}: the match ran: {rc} {err}")
            check(s["termination"]["engine_failure"] == 0, f"{variant}: no failure: {s}")
            check(sum(s["pentanomial"]) == 2 and s["a_wins"] + s["a_draws"] + s["a_losses"] == 4,
                  f"{variant}: 2 pairs counted: {s}")
            games = pgn_games(out)
            check(len(games) == 4 and all(t["Variant"] == variant for t in games),
                  f"{variant}: 4 PGN games with Variant tags: {[t.get('Variant') for t in games]}")
            check(all(games[k]["White"] == games[k + 1]["Black"] for k in (0, 2))
                  and games[0]["White"].startswith("inner"),
                  f"{variant}: colours swapped in each pair: {[t['White'] for t in games]}")
            print(f"ok   {variant}: 4 games between two outside engines, "
                  f"A scored {s['a_score']}, pentanomial {s['pentanomial']}")

        book_run = os.path.join(tmp, "book_run")
        subprocess.run([CHESSVAR, "selfplay", "--variant", "supremo", "--games", "4", "--nodes",
                        "100", "--seed", "9", "--threads", "1", "--progress", "0", "--format",
                        "pgn,jsonl", "--out", book_run], check=True, capture_output=True)
        at4 = set()
        with open(os.path.join(book_run, "shard-000000.jsonl"), encoding="utf-8") as fh:
            for line in fh:
                rec = json.loads(line)
                if rec["ply"] == 4:
                    at4.add(rec["fen"])
        out = os.path.join(tmp, "book")
        rc, s, err = run_match(
            out, "--variant", "supremo", "--games", "4", "--nodes", "100",
            "--book", os.path.join(book_run, "shard-000000.pgn"), "--book-plies", "4",
            "--engine", f"cmd={CHESSVAR} uci;name=inner;nodes=100")
        games = pgn_games(out)
        fens = [t["FEN"] for t in games]
        with open(os.path.join(out, "shard-000000.pgn"), encoding="utf-8") as fh:
            events = fh.read().count('[Event "chessvar match"]')
        check(rc == 0 and len(at4) == 4 and len(games) == 4 and set(fens) <= at4
              and fens[0] == fens[1] and fens[2] == fens[3] and events == 4,
              f"book: pairs start from the PGN games after 4 plies: {rc} {fens} {at4} "
              f"{events} Event tags {err}")
        print(f"ok   PGN book: {len(set(fens))} openings of the selfplay games after 4 plies")

        out = os.path.join(tmp, "illegal")
        marker = os.path.join(tmp, "illegal.marker")
        rc, s, err = run_match(
            out, "--variant", "chess", "--games", "6", "--concurrency", "2",
            "--engine", f"cmd={CHESSVAR} uci;nodes=200",
            "--engine", f"cmd=python3 {FAKE} {CHESSVAR} illegal 3 {marker};name=fake;nodes=200")
        check(rc == 0 and s["games"] == 6, f"illegal: every game played: {rc} {err}")
        check(s["termination"]["engine_failure"] == 1 and s["engine_restarts"] == 1,
              f"illegal: exactly one game lost by the engine, one restart: {s}")
        lost = [t for t in pgn_games(out) if t["Termination"] == "engine_failure"]
        check(len(lost) == 1 and "illegal move 'a1a1'" in lost[0]["TerminationDetail"],
              f"illegal: the PGN names the move: {lost}")
        fake_white = lost[0]["White"].startswith("fake")
        check(lost[0]["Result"] == ("0-1" if fake_white else "1-0"),
              f"illegal: the fake engine's side lost: {lost[0]}")
        logged = [ln for ln in err.splitlines() if "illegal move 'a1a1'" in ln]
        check(len(logged) == 1 and re.search(r"in position \S+ [wb] ", logged[0]),
              f"illegal: one log line with the move and the position (FEN): {err}")
        print(f"ok   illegal move: 1 of 6 games lost, logged: {logged[0][:110]}...")

        out = os.path.join(tmp, "time")
        marker = os.path.join(tmp, "time.marker")
        # 6 s asleep against 4 s on the clock loses; the 0.2 s increment keeps the other game,
        # played normally through the Python proxy, off the flag on a loaded machine (0.05 s
        # once lost it there too)
        rc, s, err = run_match(
            out, "--variant", "chess", "--games", "2", "--random-plies", "2",
            "--engine", f"cmd={CHESSVAR} uci;nodes=200",
            "--engine", f"cmd=python3 {FAKE} {CHESSVAR} slow 2 {marker};name=slow;tc=4+0.2")
        lost = [t for t in pgn_games(out) if t["Termination"] == "engine_failure"]
        check(rc == 0 and s["games"] == 2 and len(lost) == 1
              and "lost on time" in lost[0]["TerminationDetail"]
              and "tc=4+0.2" in lost[0]["White"] + lost[0]["Black"],
              f"time: one game lost on time: {rc} {s} {lost} {err}")
        print(f"ok   time control: {lost[0]['TerminationDetail']}")

        out = os.path.join(tmp, "sprt")
        rc, s, err = run_match(
            out, "--variant", "chess", "--games", "200", "--concurrency", "2", "--nodes", "600",
            "--engine", f"cmd={CHESSVAR} uci;nodes=5", "--sprt", "0,100", "--shard-games", "2")
        check(rc == 0 and s["sprt"]["decision"] == "H1" and s["sprt"]["stopped"]
              and s["games"] < 200 and sum(s["pentanomial"]) * 2 == s["games"]
              and s["sprt"]["llr"] >= s["sprt"]["upper"],
              f"sprt: chessvar at 600 nodes against 5 nodes: H1 before 200 games: {rc} {s} {err}")
        print(f"ok   --sprt 0,100: H1 after {s['games']} games, LLR {s['sprt']['llr']}")

        for spec, want in (("cmd=", "names no command"), ("cmd=x;tc=ten", "tc needs"),
                           ("cmd=x;colour=white", "unknown key 'colour'")):
            res = subprocess.run([CHESSVAR, "match", "--out", os.path.join(tmp, "bad"),
                                  "--engine", spec], capture_output=True, text=True, check=False)
            check(res.returncode == 2 and want in res.stderr,
                  f"--engine '{spec}': exit 2 naming it: {res.returncode} {res.stderr}")
        print("ok   bad --engine specs: exit 2 with the reason")
    print("match_cmd: all checks passed")


if __name__ == "__main__":
    main()
