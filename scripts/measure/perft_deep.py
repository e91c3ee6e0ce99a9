#!/usr/bin/env python3
"""Deep perft runs checked against published counts, written to results/perft_deep.json.

  start d8   84,998,978,956       start d9   2,439,530,234,167
  Kiwipete d7   374,190,009,323   (Chess Programming Wiki, "Perft Results")

Every run uses `--checkpoint` (files in --work-dir), so an interrupted script resumes where
it stopped: rerun the same command. Each session's wall, user and system seconds are kept
next to the checkpoint (FILE.sessions.json) and summed in the results; `resumed_units` says
how many units the final session found done. SIGINT or SIGTERM stop the run, recording the
session so far.

With --baseline BINARY (a build from before the lazy hash table, made in a scratch
directory), the table start-up (perft depth 1 with --hash MB: the whole process) and the
depth-8 run are also timed for both binaries, alternately, without checkpoints.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

from scripts.common.measure_env import git_state, machine_info  # noqa: E402

from scripts.common import ROOT
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
SOURCE = "https://www.chessprogramming.org/Perft_Results"
JOBS = {
    "start_d8": {"fen": None, "depth": 8, "published": 84998978956},
    "start_d9": {"fen": None, "depth": 9, "published": 2439530234167},
    "kiwipete_d7": {"fen": KIWIPETE, "depth": 7, "published": 374190009323},
}

_child = None


def _stop(signum, _frame):
    """Forwards SIGINT/SIGTERM to the running chessvar so its session is recorded."""
    if _child is not None and _child.poll() is None:
        _child.terminate()
    raise KeyboardInterrupt


def timed(cmd, nice):
    """Runs cmd; returns (stdout, status, wall, user, sys) of the whole process."""
    global _child
    t0 = time.perf_counter()
    _child = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True,
                              preexec_fn=(lambda: os.nice(nice)) if nice else None)
    try:
        _, status, ru = os.wait4(_child.pid, 0)
        out = _child.stdout.read()
    finally:
        wall = time.perf_counter() - t0
    _child = None
    return out, status, wall, ru.ru_utime, ru.ru_stime


def run_job(args, name, job):
    """One deep run over its checkpoint, resuming if the checkpoint has units."""
    ck = os.path.join(args.work_dir, f"{name}.ck")
    log = ck + ".sessions.json"
    sessions = json.load(open(log)) if os.path.exists(log) else []
    cmd = [args.binary, "perft", "--json", "--quiet", "--depth", str(job["depth"]),
           "--threads", str(args.threads), "--hash", str(args.hash_mb), "--checkpoint", ck]
    if job["fen"]:
        cmd += ["--fen", job["fen"]]
    if sessions and "nodes" in sessions[-1]:  # finished before: nothing left to count
        return summarise(args, job, cmd, ck, sessions)
    t0 = time.perf_counter()
    try:
        out, status, wall, user, sys_s = timed(cmd, args.nice)
    except KeyboardInterrupt:
        sessions.append({"wall_s": time.perf_counter() - t0, "interrupted": True})
        json.dump(sessions, open(log, "w"), indent=1)
        raise
    if status != 0:
        sys.exit(f"{name}: chessvar exited with status {status}: {' '.join(cmd)}")
    r = json.loads(out.strip().splitlines()[-1])
    sessions.append({"wall_s": wall, "user_s": user, "sys_s": sys_s,
                     "counting_s": r["seconds"], "resumed_units": r["resumed_units"],
                     "nodes": r["nodes"], "loadavg_at_end": os.getloadavg()[0]})
    json.dump(sessions, open(log, "w"), indent=1)
    return summarise(args, job, cmd, ck, sessions)


def summarise(args, job, cmd, ck, sessions):
    """The result of a job from its sessions (the last one finished the count)."""
    total = {k: sum(s.get(k, 0) for s in sessions) for k in ("wall_s", "user_s", "sys_s")}
    nodes = sessions[-1]["nodes"]
    return {"commit": args.commit,"fen": job["fen"] or "start", "depth": job["depth"], "nodes": nodes,
            "published": job["published"], "matches_published": nodes == job["published"],
            "threads": args.threads, "hash_mb": args.hash_mb, "sessions": sessions,
            "wall_s": total["wall_s"], "user_s": total["user_s"], "sys_s": total["sys_s"],
            "uninterrupted": len(sessions) == 1 and sessions[0]["resumed_units"] == 0,
            "cpu_of_interrupted_sessions_missing": any(x.get("interrupted") for x in sessions),
            "command": " ".join(["chessvar"] + [("FILE" if c == ck else c) for c in cmd[1:]])}


def compare(args):
    """Start-up and depth-8 figures of the baseline and current binaries, alternately."""
    out = {"baseline": {"startup": [], "start_d8": []}, "current": {"startup": [], "start_d8": []}}
    for _ in range(args.runs):
        for label, binary in (("baseline", args.baseline), ("current", args.binary)):
            for kind, depth in (("startup", 1), ("start_d8", 8)):
                cmd = [binary, "perft", "--json", "--quiet", "--depth", str(depth),
                       "--threads", str(args.threads), "--hash", str(args.hash_mb)]
                text, status, wall, user, sys_s = timed(cmd, 0)
                r = json.loads(text.strip().splitlines()[-1])
                out[label][kind].append({"wall_s": wall, "user_s": user, "sys_s": sys_s,
                                         "counting_s": r["seconds"],
                                         "outside_counting_s": wall - r["seconds"],
                                         "nodes": r["nodes"],
                                         "loadavg": os.getloadavg()[0]})
                print(f"{label} {kind}: wall {wall:.2f} user {user:.2f} sys {sys_s:.2f} "
                      f"counting {r['seconds']:.2f}", flush=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--hash-mb", type=int, default=4096)
    ap.add_argument("--jobs", default="start_d8,kiwipete_d7,start_d9",
                    help="comma-separated: " + ", ".join(JOBS))
    ap.add_argument("--work-dir", default="perft_deep_work",
                    help="where the checkpoints live (delete it to start over)")
    ap.add_argument("--nice", type=int, default=0, help="run chessvar under this niceness")
    ap.add_argument("--baseline", help="an older chessvar to compare start-up and depth 8 with")
    ap.add_argument("--runs", type=int, default=2, help="alternating runs per binary (--baseline)")
    ap.add_argument("--binary-commit",
                    help="the commit --binary was built from, when it is not this checkout's HEAD")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "perft_deep.json"))
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    os.makedirs(args.work_dir, exist_ok=True)
    commit, dirty = git_state(ROOT)
    if args.binary_commit:
        commit, dirty = args.binary_commit, False
    args.commit = commit
    res = {"machine": machine_info(), "commit": commit, "uncommitted_changes": dirty,
           "source_of_counts": SOURCE, "runs": {}}
    if os.path.exists(args.out):  # keep what is not measured again this time
        old = json.load(open(args.out))
        res["runs"] = old.get("runs", {})
        if "startup_comparison" in old:
            res["startup_comparison"] = old["startup_comparison"]
    for name in [j for j in args.jobs.split(",") if j]:
        r = run_job(args, name, JOBS[name])
        res["runs"][name] = r
        print(f"{name}: {r['nodes']} nodes ({'matches' if r['matches_published'] else 'DIFFERS FROM'}"
              f" published {r['published']}) wall {r['wall_s']:.1f} s user {r['user_s']:.1f} s "
              f"sys {r['sys_s']:.1f} s", flush=True)
        if not r["matches_published"]:
            sys.exit(1)
        write(args.out, res)
    if args.baseline:
        res["startup_comparison"] = compare(args)
        res["startup_comparison"]["note"] = (
            "startup: perft depth 1 with the table (the whole process; depth 1 never probes it); "
            "start_d8: outside_counting_s = process wall minus chessvar's own counting time")
    write(args.out, res)


def write(path, res):
    """Writes the results so far (after every job, so an interruption keeps them)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: rerun the same command to resume from the checkpoints")
