"""Minimal UCI client for Stockfish-family engines, used to compute and verify perft counts.

Only what the perft scripts need: start the engine, set options (and a Fairy-Stockfish
variant), set a position, run `go perft N` (total and per-move counts), and read the FEN
back with `d`.
"""

import os
import shutil
import subprocess
import time

DEFAULT_CANDIDATES = ("stockfish", "/usr/games/stockfish")


def find_engine(name=None, candidates=DEFAULT_CANDIDATES):
    """Return the path of the engine binary: `name` if given, else the first candidate found."""
    for cand in ([name] if name else list(candidates)):
        if os.path.sep in cand and os.access(cand, os.X_OK):
            return cand
        found = shutil.which(cand)
        if found:
            return found
        games = os.path.join("/usr/games", cand)
        if os.access(games, os.X_OK):
            return games
    raise FileNotFoundError(f"UCI engine not found: {name or ', '.join(candidates)}")


def perft_once(path, fen, depth, ini=None, variant=None):
    """One engine process, one thread: (nodes, seconds of `go perft depth`, engine name),
    with the Fairy-Stockfish variant of the variants file ini loaded first when given."""
    with UciEngine(path, threads=1) as engine:
        if variant:
            engine.load_variant(ini, variant)
        engine.set_position(fen)
        nodes, _, secs = engine.perft_divide(depth)
        return nodes, secs, engine.name


class UciEngine:
    """One engine process spoken to over UCI through pipes."""

    def __init__(self, path=None, threads=1, hash_mb=16):
        self.path = find_engine(path)
        self.proc = subprocess.Popen(
            [self.path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.name = None
        self._send("uci")
        for line in self._lines_until(lambda ln: ln == "uciok"):
            if line.startswith("id name "):
                self.name = line[len("id name "):].strip()
        self.set_option("Threads", threads)
        self.set_option("Hash", hash_mb)
        self.ready()

    def _send(self, cmd):
        """Write one command line to the engine."""
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()

    def _readline(self):
        """Read one line (without newline); raise if the engine exited."""
        line = self.proc.stdout.readline()
        if line == "":
            raise RuntimeError(f"{self.path} exited unexpectedly")
        return line.rstrip("\r\n")

    def _lines_until(self, stop):
        """Yield output lines up to and including the first line for which stop(line) holds."""
        while True:
            line = self._readline()
            yield line
            if stop(line):
                return

    def ready(self):
        """Block until the engine answers isready."""
        self._send("isready")
        for _ in self._lines_until(lambda ln: ln == "readyok"):
            pass

    def set_option(self, name, value):
        """Send `setoption name NAME value VALUE`."""
        self._send(f"setoption name {name} value {value}")

    def set_position(self, fen=None, moves=()):
        """Set the position from a FEN (or the start position) plus a list of UCI moves."""
        cmd = f"position fen {fen}" if fen else "position startpos"
        if moves:
            cmd += " moves " + " ".join(moves)
        self._send(cmd)

    def perft_divide(self, depth):
        """Run `go perft depth` on the current position.

        Returns (total, {move: count}, seconds) where seconds runs from sending the command to
        reading the "Nodes searched" line, so start-up and network loading are excluded.
        """
        self.ready()
        start = time.perf_counter()
        self._send(f"go perft {depth}")
        divide = {}
        total = None
        for line in self._lines_until(lambda ln: ln.startswith("Nodes searched")):
            if line.startswith("Nodes searched"):
                total = int(line.split(":", 1)[1])
            elif ":" in line:
                mv, cnt = line.split(":", 1)
                mv = mv.strip()
                if 4 <= len(mv) <= 5 and cnt.strip().isdigit():
                    divide[mv] = int(cnt)
        elapsed = time.perf_counter() - start
        return total, divide, elapsed

    def perft(self, fen, depth):
        """Leaf count of the legal-move tree of `fen` to `depth` plies."""
        self.set_position(fen)
        return self.perft_divide(depth)[0]

    def legal_moves(self, fen=None, moves=()):
        """Legal moves (UCI strings, sorted) of the position reached from fen by moves."""
        self.set_position(fen, moves)
        return sorted(self.perft_divide(1)[1])

    def board_info(self, fen=None, moves=()):
        """Return (fen, checkers) of the position reached from fen by moves, read with `d`."""
        self.set_position(fen, moves)
        self.ready()
        self._send("d")
        out_fen, checkers = None, []
        for line in self._lines_until(lambda ln: ln.startswith("Checkers:")):
            if line.startswith("Fen: "):
                out_fen = line[len("Fen: "):].strip()
            elif line.startswith("Checkers:"):
                checkers = line[len("Checkers:"):].split()
        return out_fen, checkers

    def load_variant(self, ini, variant):
        """Fairy-Stockfish: read the variants file ini and play variant (UCI_Variant)."""
        self.set_option("VariantPath", ini)
        self.set_option("UCI_Variant", variant)
        self.ready()

    def close(self):
        """Ask the engine to quit and wait for it."""
        if self.proc.poll() is None:
            try:
                self._send("quit")
                self.proc.wait(timeout=5)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
