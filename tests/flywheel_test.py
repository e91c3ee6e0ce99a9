#!/usr/bin/env python3
"""ctest: scripts/flywheel.py runs the whole loop on a tiny scale and resumes.

One generation (classical data -> net 1 -> match against classical), then the same command
with --generations 2: the first generation's steps must be skipped (done before), and the
second adds data played with net 1, net 2 trained on both generations, and its matches
against classical and net 1. The record must hold both generations with their Elo, data
sizes and the commands; the data folders must have been played with the right evaluation.

usage: flywheel_test.py CHESSVAR"""

import json
import os
import subprocess
import sys
import tempfile

CHESSVAR = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def flywheel(work, generations, extra=(), expect_ok=True):
    """Runs the loop; its stderr (progress and step log)."""
    argv = [sys.executable, os.path.join(ROOT, "scripts", "flywheel.py"), "--variant", "chess",
            "--generations", str(generations), "--positions", "3000", "--nodes", "200",
            "--hidden", "32", "--epochs", "2", "--match-games", "4", "--movetime", "5",
            "--dedup-bits", "16", "--threads", "2", "--work", work,
            "--out", os.path.join(work, "flywheel_chess.json"), "--chessvar", CHESSVAR, *extra]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    if expect_ok:
        check(r.returncode == 0, f"flywheel exit {r.returncode}: {r.stderr[-2000:]}")
    else:
        check(r.returncode != 0, "flywheel should have refused")
    return r.stderr


def classical_run(folder, variant, seed):
    """A tiny classical self-play run (a generation-0 folder made before the loop)."""
    subprocess.run([CHESSVAR, "selfplay", "--variant", variant, "--games", "6", "--nodes", "200",
                    "--threads", "2", "--seed", str(seed), "--out", folder, "--progress", "0"],
                   check=True, capture_output=True, timeout=300)
    return json.load(open(os.path.join(folder, "manifest.json")))["positions"]


def given_gen0():
    """--gen0-data with two run folders, one a prefix of the other's path: net 1 trains on
    both, the record adds their positions and names them $GEN0_1, $GEN0_2; a run of another
    variant is refused with its folder named."""
    with tempfile.TemporaryDirectory() as work:
        a, b = os.path.join(work, "g0"), os.path.join(work, "g0b")
        n = classical_run(a, "chess", 1) + classical_run(b, "chess", 2)
        flywheel(os.path.join(work, "loop"), 1, ["--gen0-data", f"{a},{b}"])
        rec = json.load(open(os.path.join(work, "loop", "flywheel_chess.json")))
        check(rec["steps"]["data0"]["positions"] == n, f"data0 holds {n} positions: {rec}")
        check("--data $GEN0_1,$GEN0_2 " in rec["steps"]["train1"]["command"],
              f"net 1 trains on both folders: {rec['steps']['train1']['command']}")
        check(work not in json.dumps(rec), "the record holds no path of this machine")
        s = os.path.join(work, "sw")
        classical_run(s, "switching", 3)
        err = flywheel(os.path.join(work, "loop2"), 1, ["--gen0-data", f"{a},{s}"], False)
        check(f"--gen0-data {s}: a run of variant 'switching', not 'chess'" in err,
              f"the wrong variant's folder is named: {err[-500:]}")


def started(work, rec):
    """--start-net: a new loop continues from the first loop's net 2 as its net 2. It plays
    generation 2's data with it, trains net 3 on that data alone, matches net 3 against
    classical and net 2, and its record keeps the first loop's two generations."""
    net2 = os.path.join(work, "chess", "net2.nnue")
    work2 = os.path.join(work, "second")
    os.makedirs(work2)
    out = os.path.join(work2, "flywheel_chess.json")
    with open(out, "w") as f:
        json.dump(rec, f)
    argv = [sys.executable, os.path.join(ROOT, "scripts", "flywheel.py"), "--variant", "chess",
            "--generations", "3", "--positions", "3000", "--nodes", "200", "--hidden", "32",
            "--epochs", "2", "--match-games", "4", "--movetime", "5", "--dedup-bits", "16",
            "--threads", "2", "--work", work2, "--out", out, "--chessvar", CHESSVAR]
    for extra, want in ((["--start-net", net2, "--start-generation", "3"],
                         "--start-generation 3: must"),
                        (["--start-net", net2 + ".missing", "--start-generation", "2"],
                         "--start-net " + net2 + ".missing: No such file")):
        r = subprocess.run(argv + extra, capture_output=True, text=True, timeout=60)
        check(r.returncode != 0 and want in r.stderr, f"refused naming {want!r}: {r.stderr[-400:]}")
    r = subprocess.run(argv + ["--start-net", net2, "--start-generation", "2"],
                       capture_output=True, text=True, timeout=900)
    check(r.returncode == 0, f"flywheel --start-net exit {r.returncode}: {r.stderr[-2000:]}")
    rec2 = json.load(open(out))
    gens = rec2["generations"]
    check([g["net"] for g in gens] == [1, 2, 3], f"nets 1, 2 (earlier) and 3, got {gens}")
    check(all(g.get("from_earlier_loop") for g in gens[:2]) and "from_earlier_loop" not in gens[2],
          "nets 1 and 2 are marked as the earlier loop's")
    check(gens[2]["trained_on_positions"] == gens[2]["data_positions"],
          f"net 3 trained on generation 2's data alone: {gens[2]}")
    check(gens[2]["vs_classical"]["games"] == 4 and gens[2]["vs_previous"]["games"] == 4,
          "net 3 matched against classical and net 2")
    steps = rec2["steps"]
    check(set(steps) == {"data2", "train3", "match3-classical", "match3-net2"},
          f"only this loop's steps: {sorted(steps)}")
    check("--eval $WORK/chess/net2.nnue" in steps["data2"]["command"],
          f"generation 2 played with the start net: {steps['data2']['command']}")
    with open(net2, "rb") as f:
        xxh = f.read()[-8:][::-1].hex()
    check(rec2["start_net"]["xxh3_64"] == xxh, f"the start net's checksum: {rec2['start_net']}")
    check(work not in json.dumps(rec2), "the record holds no path of this machine")
    continued_again(work, net2, rec2, argv)


def continued_again(work, net2, rec2, argv):
    """A loop continued from net 2 again while the record already holds net 3 after it (as
    when net 3 was not accepted): net 3's row and the earlier loop's steps stay in the
    record, and the new net is numbered 4, not 3."""
    work3 = os.path.join(work, "third")
    os.makedirs(work3)
    out = os.path.join(work3, "flywheel_chess.json")
    with open(out, "w") as f:
        json.dump(rec2, f)
    argv = [x if x != os.path.join(work, "second") else work3 for x in argv]
    argv[argv.index("--out") + 1] = out
    r = subprocess.run(argv + ["--start-net", net2, "--start-generation", "2"],
                       capture_output=True, text=True, timeout=900)
    check(r.returncode == 0, f"flywheel continued again, exit {r.returncode}: {r.stderr[-2000:]}")
    rec3 = json.load(open(out))
    gens = rec3["generations"]
    check([g["net"] for g in gens] == [1, 2, 3, 4], f"nets 1, 2, 3 (earlier) and 4, got {gens}")
    check(gens[2] == dict(rec2["generations"][2], from_earlier_loop=True),
          f"the earlier net 3's row kept as it was: {gens[2]}")
    check(gens[3]["data_generation"] == 2 and "vs_previous" in gens[3],
          f"net 4 trained on data played by net 2 and matched against it: {gens[3]}")
    check(rec3["earlier_loop"]["steps"] == rec2["steps"],
          "the earlier loop's steps are kept under earlier_loop")
    check(set(rec3["steps"]) == {"data2", "train3", "match3-classical", "match3-net2"},
          f"this loop's own steps keep the loop's numbering: {sorted(rec3['steps'])}")


def cpu_hours_counts_every_generation():
    """The plot's CPU-hours axis: a net's figure includes the generations before it that
    were not accepted or never met classical (their data, training and matches were spent)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("flywheel", os.path.join(ROOT, "scripts",
                                                                           "flywheel.py"))
    fw = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fw)
    gens = [{"net": 1, "data_cpu_s": 3600, "train_cpu_s": 0, "vs_classical": {"cpu_s": 1800}},
            {"net": 3, "data_cpu_s": 0, "train_cpu_s": 1800, "vs_previous": {"cpu_s": 1800},
             "vs_classical": {"cpu_s": 0}},
            {"net": 2, "data_cpu_s": 7200, "train_cpu_s": 1800, "vs_previous": {"cpu_s": 3600},
             "accepted": False}]
    hours = fw.cpu_hours(gens)
    check(hours == {1: 1.5, 2: 5.0, 3: 6.0}, f"CPU hours by net 1.5, 5.0, 6.0, got {hours}")


def main():
    cpu_hours_counts_every_generation()
    with tempfile.TemporaryDirectory() as work:
        flywheel(work, 1)
        rec = json.load(open(os.path.join(work, "flywheel_chess.json")))
        check(len(rec["generations"]) == 1, f"one generation, got {rec['generations']}")
        log = flywheel(work, 2)
        for step in ("data0", "train1", "match1-classical"):
            check(f"{step}: done before, skipped" in log, f"{step} not skipped on the rerun")
        rec = json.load(open(os.path.join(work, "flywheel_chess.json")))
        gens = rec["generations"]
        check([g["net"] for g in gens] == [1, 2], f"nets 1 and 2, got {gens}")
        for g in gens:
            m = g["vs_classical"]
            check(m["games"] == 4 and m["a_wins"] + m["a_draws"] + m["a_losses"] == 4,
                  f"net {g['net']}: 4 games against classical, got {m}")
            check(g["data_positions"] >= 3000, f"net {g['net']}: >= 3000 positions, got {g}")
        check("vs_previous" in gens[1] and gens[1]["vs_previous"]["games"] == 4,
              "net 2 matched against net 1")
        prev = gens[1]["vs_previous"]
        # the default SPRT, the bounds results/sprt_games.json chose, capped at --match-games 4
        chosen = json.load(open(os.path.join(ROOT, "results", "sprt_games.json")))["chosen"]
        s = prev["sprt"]
        check(s["elo0"] == chosen["elo0"] and s["elo1"] == chosen["elo1"] and s["pairs"] == 2
              and sum(prev["pentanomial"]) == 2 and prev["games_saved"] == 4 - prev["games"]
              and gens[1]["accepted"] == (s["decision"] == "H1"),
              f"net 2 judged by an SPRT against net 1, games saved recorded: {gens[1]}")
        check(gens[1]["trained_on_positions"] == gens[0]["data_positions"] + gens[1]["data_positions"],
              "net 2 trained on the data of both generations")
        steps = rec["steps"]
        check("--eval classical" in steps["data0"]["command"], "generation 0 played classically")
        check("--eval $WORK/chess/net1.nnue" in steps["data1"]["command"],
              "generation 1 played with net 1 (the record names the work folder $WORK)")
        check(work not in json.dumps(rec), "the record holds no path of this machine")
        run1 = json.load(open(os.path.join(work, "chess", "data1", "run.json")))
        check("net1.nnue" in run1["player_a"], f"data1's player is net 1: {run1['player_a']}")
        started(work, rec)
    given_gen0()
    print("flywheel_test: two generations, resumed, recorded; generation 0 from two given runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
