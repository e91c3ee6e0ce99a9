#!/usr/bin/env python3
"""A misbehaving UCI engine for the match tests: it forwards everything to `chessvar uci`
(so its moves are legal) but on the Nth `go` of its life it
  crash    kills itself with SIGSEGV,
  hang     stops answering (never sends bestmove),
  illegal  answers `bestmove a1a1`,
  exit     exits with status 3,
  slow     waits 6 s before it answers (a loss on time under a short time control),
  none     never misbehaves (an outside engine as good as chessvar's),
and on `go` number N + 1, N + 2, ... after a restart it misbehaves again (every process
misbehaves once, at its Nth go). With MARKER, only the first process to reach its Nth go
misbehaves (it creates the file MARKER; the others see it and play on): one bad move in
the whole match.   usage: fake_engine.py CHESSVAR MODE [N [MARKER]]"""

import os
import signal
import subprocess
import sys
import time

chessvar, mode = sys.argv[1], sys.argv[2]
nth = int(sys.argv[3]) if len(sys.argv) > 3 else 3
marker = sys.argv[4] if len(sys.argv) > 4 else None
inner = subprocess.Popen([chessvar, "uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, bufsize=1)


def forward_until(prefix):
    """Copies the inner engine's lines to stdout up to one starting with prefix."""
    for line in inner.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        if line.startswith(prefix):
            return


gos = 0
for line in sys.stdin:
    cmd = line.strip()
    if cmd.startswith("go"):
        gos += 1
        if gos == nth and marker:
            try:  # the first process to get here misbehaves, no other
                os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                mode = "none"
        if gos == nth:
            if mode == "slow":
                time.sleep(6.0)
            elif mode == "crash":
                os.kill(os.getpid(), signal.SIGSEGV)
            elif mode == "hang":
                while True:
                    time.sleep(3600)
            elif mode == "illegal":
                print("bestmove a1a1", flush=True)
                continue
            elif mode == "exit":
                sys.exit(3)
        inner.stdin.write(line)
        inner.stdin.flush()
        forward_until("bestmove")
    elif cmd == "uci":
        inner.stdin.write(line)
        inner.stdin.flush()
        forward_until("uciok")
    elif cmd == "isready":
        inner.stdin.write(line)
        inner.stdin.flush()
        forward_until("readyok")
    elif cmd == "quit":
        break
    else:
        inner.stdin.write(line)
        inner.stdin.flush()
inner.stdin.close()
inner.wait()
