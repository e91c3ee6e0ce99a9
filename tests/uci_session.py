"""A line-based session with a child process for the protocol tests: send a line, read
lines until an expected one. Nothing is timed: the deadline only turns a hang into a
failure instead of a stuck test."""

import os
import queue
import shutil
import subprocess
import threading

DEADLINE = 120.0  # seconds; a correct engine answers in well under a second


def find_tool(name):
    """Path of an installed program (Debian puts engines in /usr/games, often not on PATH)."""
    found = shutil.which(name)
    if found:
        return found
    path = os.path.join("/usr/games", name)
    if os.access(path, os.X_OK):
        return path
    raise SystemExit(f"FAIL: {name} is not installed (scripts/setup.sh installs it)")


class Session:
    """A child process spoken to line by line; its output is read on a thread."""

    def __init__(self, argv, env=None, cwd=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1, env=env,
                                     cwd=cwd)
        self.lines = queue.Queue()
        self.seen = []
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)

    def send(self, line):
        """Writes one line."""
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, pred, what):
        """Lines read up to and including the first for which pred holds."""
        got = []
        while True:
            try:
                line = self.lines.get(timeout=DEADLINE)
            except queue.Empty:
                raise AssertionError(f"no {what} within {DEADLINE} s; got {got[-10:]}") from None
            if line is None:
                raise AssertionError(f"process ended before {what}; got {got[-10:]}")
            got.append(line)
            self.seen.append(line)
            if pred(line):
                return got

    def ask(self, line, pred, what):
        """Sends a line and returns the answer lines up to the expected one."""
        self.send(line)
        return self.until(pred, what)

    def close(self):
        """Closes stdin and waits for the process to exit."""
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        return self.proc.wait(timeout=DEADLINE)


def check(cond, msg):
    """Fails the test with msg unless cond holds."""
    if not cond:
        raise AssertionError(msg)
