"""One way for the scripts to run `chessvar ... --json` and read its result.

chessvar prints one JSON object per result line (perft: one per position, after the
divide lines when --divide is given; selfplay: one summary). `result(stdout)` returns the
last result object of an output, skipping divide lines; `run(cmd)` runs a command line and
returns that object; `run_timed(cmd)` also measures the process (wall clock, CPU seconds,
context switches) for the scripts that report them; `perft(binary, *args)` is `chessvar
perft ARGS --json --quiet`.
"""

import json
import resource
import subprocess
import time


class ChessvarError(RuntimeError):
    """A chessvar command failed or printed no JSON result; `stderr` holds its messages."""

    def __init__(self, cmd, message, stderr=""):
        super().__init__(f"{' '.join(map(str, cmd))}: {message}")
        self.stderr = stderr


def result(stdout, cmd=("chessvar",)):
    """The last JSON result object of chessvar's standard output (divide lines skipped)."""
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            obj = json.loads(line)
            if "move" not in obj:
                return obj
    raise ChessvarError(cmd, f"no JSON result in its output: {stdout[-300:]!r}")


def _with_json(cmd):
    """cmd with --json added when it is missing."""
    cmd = [str(c) for c in cmd]
    return cmd if "--json" in cmd else cmd + ["--json"]


def run(cmd, stderr=subprocess.PIPE):
    """Runs one chessvar command line (a list; --json is added if missing) and returns its
    last JSON result object; raises ChessvarError with chessvar's message on failure.
    stderr=None passes its messages (progress lines) through instead of keeping them."""
    cmd = _with_json(cmd)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=stderr, text=True)
    if proc.returncode != 0:
        err = (proc.stderr or "").strip() or "(its messages above)"
        raise ChessvarError(cmd, f"exit status {proc.returncode}: {err}", proc.stderr or "")
    return result(proc.stdout, cmd)


def run_timed(cmd, stderr=subprocess.PIPE):
    """Like run, and returns (result, timing) where timing holds the process's wall-clock
    seconds (start-up included), its CPU seconds (user + system) and its voluntary
    (waits) and involuntary (preemption) context switches."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    res = run(cmd, stderr)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    timing = {
        "wall_seconds": wall,
        "cpu_seconds": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
        "voluntary_switches": after.ru_nvcsw - before.ru_nvcsw,
        "involuntary_switches": after.ru_nivcsw - before.ru_nivcsw,
    }
    return res, timing


def perft(binary, *args):
    """`chessvar perft ARGS --json --quiet`: the result object of the (last) position."""
    return run([binary, "perft", *args, "--quiet"])
