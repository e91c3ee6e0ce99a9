#!/usr/bin/env python3
"""The network loop: self-play -> train -> stronger self-play, for one variant.

Generation 0's data comes from the classical evaluation; net 1 is trained on it; data of
generation 1 is played with net 1; net 2 is trained on the data of generations 0 and 1
(the newest --window generations); and so on. Each net is matched against the classical
evaluation and against its predecessor at equal time per move, with paired openings; the
match against the predecessor is an SPRT (--sprt, default [0,41] at alpha = beta = 0.05,
at most --match-games games; results/sprt_games.json has why) that accepts the net only
on H1 (undecided at the cap or H0 rejects it, whatever the Elo: the predecessor plays the
next generation's data), and the record keeps the games it saved. The loop writes results/flywheel_<variant>.json (every step's command, CPU time and outcome)
and results/flywheel_<variant>.png (Elo with its 95% interval per generation, against the
millions of positions trained on and against the CPU hours spent).

Every step is resumable: a finished step leaves a marker and is skipped when the script is
run again with the same arguments; a killed self-play run continues with --resume and a
killed training from its checkpoint. Long steps print progress (their own lines on
stderr, passed through). Large data stays in --work, outside the repository; only the
results and the commands that made them are kept (paths written as $WORK, $GEN0 and
chessvar for the binary).

  python3 scripts/flywheel.py --variant chess --generations 2 --positions 2000000 \\
      --nodes 1000 --work ../flywheel-data
  python3 scripts/flywheel.py --variant chess --generations 1 --positions 20000 \\
      --match-games 8 --work /tmp/fw --quick     # a small smoke run
"""
import argparse
import json
import math
import os
import re
import resource
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RES = os.path.join(ROOT, "results")


def log(msg):
    """One progress line on stderr, with the time."""
    print(f"flywheel {time.strftime('%H:%M:%S')}: {msg}", file=sys.stderr, flush=True)


def run_step(argv, logfile):
    """Runs a step's command to its end, its stdout to logfile and its stderr passed through
    (progress lines); (exit status, CPU seconds of the step, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    log("$ " + " ".join(shlex.quote(a) for a in argv))
    with open(logfile, "a") as out:
        out.write("$ " + " ".join(shlex.quote(a) for a in argv) + "\n")
        out.flush()
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=None, text=True)
        out.write(p.stdout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.returncode, cpu, p.stdout


class Loop:
    """The state of one variant's loop: its folder, its record and its steps."""

    def __init__(self, args):
        self.a = args
        self.work = os.path.abspath(os.path.join(args.work, args.variant))
        os.makedirs(self.work, exist_ok=True)
        self.record_path = args.out or os.path.join(RES, f"flywheel_{args.variant}.json")
        self.state_path = os.path.join(self.work, "flywheel_state.json")
        self.state = {}
        if os.path.exists(self.state_path):
            self.state = json.load(open(self.state_path))
        self.state.setdefault("steps", {})
        self.state["arguments"] = vars(args)
        self.start = 0      # the first generation whose data this loop plays
        self.earlier = None  # generations before it, from the record of the loop that made them
        self.offset = 0      # this loop's net g > start is net g + offset in the record
        if args.start_net:
            self.start = args.start_generation
            self.adopt_start_net()
            later = [r["net"] for r in (self.earlier or {}).get("generations", [])
                     if r.get("net", 0) > self.start]
            self.offset = max(later) - self.start if later else 0

    def real(self, g):
        """The record's number of this loop's net g: the start net and those before it keep
        theirs; a loop continued from net K while the record already holds nets after K (nets
        not accepted) numbers its own after them, so no earlier row is overwritten or lost.
        Files in the work folder keep the loop's numbering."""
        return g if g <= self.start else g + self.offset

    def adopt_start_net(self):
        """--start-net: the net of an earlier loop becomes net K (K = --start-generation) of
        this one, copied into the work folder (a --ship at the end may overwrite the
        original). The earlier loop's record is kept whole: every generation (those after K,
        not accepted, too: their CPU was spent) and its steps, under earlier_loop."""
        a, k = self.a, self.start
        dst = os.path.join(self.work, f"net{k}.nnue")
        try:
            data = open(a.start_net, "rb").read()
        except OSError as e:
            sys.exit(f"flywheel: --start-net {a.start_net}: {e.strerror}")
        xxh = data[-8:][::-1].hex()
        if os.path.exists(dst) and open(dst, "rb").read() != data:
            if self.state.get("start_net", {}).get("xxh3_64") != xxh:
                sys.exit(f"flywheel: --start-net: {dst} exists and differs from {a.start_net}; "
                         "use another --work to start afresh")
        if not os.path.exists(dst):
            with open(dst + ".tmp", "wb") as f:
                f.write(data)
            os.replace(dst + ".tmp", dst)
        if "start_net" not in self.state:
            prov = os.path.splitext(a.start_net)[0] + ".json"
            self.state["start_net"] = {
                "generation": k, "file": os.path.relpath(os.path.abspath(a.start_net), ROOT)
                if os.path.abspath(a.start_net).startswith(ROOT + os.sep) else a.start_net,
                "xxh3_64": xxh, "bytes": len(data),
                "provenance": json.load(open(prov)) if os.path.exists(prov) else None}
            earlier = None
            if os.path.exists(self.record_path):
                rec = json.load(open(self.record_path))
                if rec.get("variant") == a.variant:
                    earlier = {"command": rec.get("command"), "commit": rec.get("commit"),
                               "date": rec.get("date"), "generations": rec.get("generations", []),
                               "steps": rec.get("steps", {})}
                    if rec.get("earlier_loop"):
                        earlier["earlier_loop"] = rec["earlier_loop"]
            self.state["earlier"] = earlier
        self.earlier = self.state.get("earlier")

    def save(self):
        """Writes the state (atomically) and the results record and plot."""
        tmp = self.state_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.state, f, indent=1)
        os.replace(tmp, self.state_path)
        self.write_record()

    def step(self, name, argv, parse=None):
        """Runs a named step once: a finished one (in the state) is skipped. Returns its
        entry: command, cpu seconds, and what parse made of its output."""
        done = self.state["steps"].get(name)
        if done and done.get("ok"):
            log(f"{name}: done before, skipped")
            return done
        t0 = time.time()
        rc, cpu, out = run_step(argv, os.path.join(self.work, name + ".log"))
        prev_cpu = (done or {}).get("cpu_s", 0.0)  # a resumed step adds to its earlier CPU
        entry = {"command": " ".join(shlex.quote(a) for a in argv), "exit": rc,
                 "cpu_s": round(prev_cpu + cpu, 1), "wall_s": round(time.time() - t0, 1),
                 "ok": rc == 0, "finished": time.strftime("%Y-%m-%d %H:%M:%S")}
        if rc == 0 and parse:
            entry.update(parse(out))
        self.state["steps"][name] = entry
        self.save()
        if rc != 0:
            sys.exit(f"flywheel: step {name} failed (exit {rc}); see {self.work}/{name}.log. "
                     "Run the same command again to resume it.")
        return entry

    # --------------------------------------------------------------- the steps

    def data(self, g, net):
        """Generation g's self-play data, played with net (None: the classical evaluation)."""
        a = self.a
        if g == 0 and a.gen0_data:
            return self.given_data(a.gen0_data)
        out = os.path.join(self.work, f"data{g}")
        argv = [a.chessvar, "selfplay", "--variant", a.variant, "--positions", str(a.positions),
                "--out", out, "--seed", str(1000 + g), "--threads", str(a.threads),
                "--eval", net or "classical", "--write-min-ply", str(a.write_min_ply),
                "--eval-limit", str(a.eval_limit), "--dedup-bits", str(a.dedup_bits),
                "--progress", "60", "--json", "--format", a.data_format]
        if a.nodes:
            argv += ["--nodes", str(a.nodes)]
        if a.book:
            argv += ["--book", a.book]
        if os.path.exists(os.path.join(out, "run.json")):
            argv.append("--resume")
        return self.step(f"data{g}", argv, lambda out_text: {"positions": json.loads(
            out_text.strip().splitlines()[-1])["positions"]})

    def given_data(self, folders):
        """Generation 0 from classical self-play runs made before (--gen0-data, one folder
        or a comma-separated list): their options (run.json) and positions (manifest.json)
        are recorded as the step."""
        configs, positions, games = [], 0, 0
        for folder in gen0_folders(folders):
            try:
                configs.append(json.load(open(os.path.join(folder, "run.json"))))
                manifest = json.load(open(os.path.join(folder, "manifest.json")))
            except (OSError, ValueError) as e:
                sys.exit(f"flywheel: --gen0-data {folder}: not a self-play run folder ({e})")
            if configs[-1].get("variant") != self.a.variant:
                sys.exit(f"flywheel: --gen0-data {folder}: a run of variant "
                         f"'{configs[-1].get('variant')}', not '{self.a.variant}'")
            positions += manifest["positions"]
            games += manifest["games_done"]
        what = ("a chessvar selfplay run with options " + json.dumps(configs[0])
                if len(configs) == 1 else
                f"{len(configs)} chessvar selfplay runs with options " + json.dumps(configs))
        entry = {"command": "given: " + what, "folder": ",".join(gen0_folders(folders)),
                 "positions": positions, "games": games, "ok": True, "cpu_s": None}
        self.state["steps"]["data0"] = entry
        self.save()
        return entry

    def data_dir(self, g):
        """The folder of generation g's data."""
        if g == 0 and self.a.gen0_data:
            return ",".join(gen0_folders(self.a.gen0_data))
        return os.path.join(self.work, f"data{g}")

    def train(self, g):
        """Net g+1 from the data of generations max(0, g-window+1) .. g."""
        a = self.a
        first = max(self.start, g - a.window + 1)
        dirs = [self.data_dir(k) for k in range(first, g + 1)]
        positions = sum(self.state["steps"][f"data{k}"].get("positions", 0)
                        for k in range(first, g + 1))
        net = os.path.join(self.work, f"net{g + 1}.nnue")
        argv = [a.chessvar, "train", "--data", ",".join(dirs), "--out", net,
                "--hidden", str(a.hidden), "--positions", str(int(positions * a.epochs)),
                "--lambda", str(a.train_lambda), "--seed", str(g + 1), "--threads",
                str(a.threads), "--checkpoint", net + ".ckpt",
                "--log", os.path.join(self.work, f"net{g + 1}.loss.csv"), "--progress", "30"]
        if a.mirror:
            argv.append("--mirror")
        argv += shlex.split(a.train_options or "")
        e = self.step(f"train{g + 1}", argv)
        e["data_positions"] = positions
        e["generations"] = list(range(first, g + 1))
        return net

    def match(self, name, net, opponent, sprt=None):
        """A match of net (player A) against opponent (a net or 'classical'): --match-games
        games, or with sprt ("elo0,elo1[,alpha,beta]") an SPRT of at most that many that
        stops at its decision; the record keeps the pentanomial, the SPRT and the games it
        saved."""
        a = self.a
        out = os.path.join(self.work, name)
        argv = [a.chessvar, "selfplay", "--variant", a.variant, "--games", str(a.match_games),
                "--paired", "--temperature", "0", "--movetime", str(a.movetime),
                "--threads", str(a.threads), "--eval", net, "--opponent-eval", opponent,
                "--seed", "7", "--out", out, "--progress", "60", "--json"]
        if sprt:
            argv += ["--sprt", sprt]
        if a.book:
            argv += ["--book", a.book]
        if os.path.exists(os.path.join(out, "run.json")):
            argv.append("--resume")

        def parse(text):
            j = json.loads(text.strip().splitlines()[-1])
            r = {k: j[k] for k in ("games", "a_score", "a_wins", "a_draws", "a_losses",
                                   "elo", "elo_95")}
            for k in ("pentanomial", "elo_pairs_95", "sprt"):
                if k in j:
                    r[k] = j[k]
            if sprt:
                r["games_saved"] = a.match_games - j["games"]
            return r
        return self.step(name, argv, parse)

    def accepted(self, name):
        """Whether the net of match `name` (against its predecessor) is accepted: the SPRT
        accepted H1 (an SPRT undecided at --match-games is not enough, whatever its Elo:
        every generation must be SPRT-positive); with --sprt off, a positive Elo."""
        m = self.state["steps"].get(name) or {}
        if not m.get("ok"):
            return True
        if "sprt" in m:
            return m["sprt"].get("decision") == "H1"
        return m["elo"] > 0

    # --------------------------------------------------------------- record

    def write_record(self):
        """results/flywheel_<variant>.json and its plot from the state."""
        steps = self.state["steps"]
        gens = []
        if self.earlier:
            for row in self.earlier["generations"]:
                gens.append(dict(row, from_earlier_loop=True))
        for g in range(self.start + 1, self.a.generations + 1):
            t = steps.get(f"train{g}")
            if not t:
                break
            row = {"net": self.real(g), "trained_on_positions": t.get("data_positions"),
                   "train_cpu_s": t.get("cpu_s")}
            d = steps.get(f"data{g - 1}")
            if d:
                row["data_generation"] = self.real(g - 1)
                # after a rejected net its predecessor plays on: the data's player is the net
                # its command names (the loop's numbering)
                player = re.search(r"--eval \S*net(\d+)\.nnue", d.get("command", ""))
                if player:
                    row["data_played_by_net"] = self.real(int(player.group(1)))
                row["data_positions"] = d.get("positions")
                row["data_cpu_s"] = d.get("cpu_s")
            for key, name in (("vs_classical", f"match{g}-classical"),
                              ("vs_previous", f"match{g}-net{g - 1}")):
                m = steps.get(name)
                if m and m.get("ok"):
                    row[key] = {k: m[k] for k in ("games", "a_score", "a_wins", "a_draws",
                                                  "a_losses", "elo", "elo_95", "cpu_s",
                                                  "pentanomial", "elo_pairs_95", "sprt",
                                                  "games_saved") if k in m}
            if "vs_previous" in row:
                row["accepted"] = self.accepted(f"match{g}-net{g - 1}")
            gens.append(row)
        rec = {"what": "network loop: each net against the classical evaluation and its "
                       "predecessor at equal time per move, paired openings",
               "variant": self.a.variant, "command": "python3 scripts/flywheel.py " +
               " ".join(shlex.quote(x) for x in sys.argv[1:]),
               "date": time.strftime("%Y-%m-%d"), "commit": git_head(),
               "generations": gens, "steps": steps}
        if self.start:
            rec["start_net"] = {k: v for k, v in self.state["start_net"].items()
                                if k != "provenance"}
            rec["earlier_loop"] = ({k: v for k, v in self.earlier.items() if k != "generations"}
                                   if self.earlier else None)
        rec = redact(rec, self.a)
        os.makedirs(os.path.dirname(self.record_path), exist_ok=True)
        with open(self.record_path, "w") as f:
            json.dump(rec, f, indent=1)
            f.write("\n")
        plot(rec, self.record_path[:-5] + ".png")


def ship(loop):
    """Copies the net that scored best against the classical evaluation to
    selfplay/nets/<variant>.nnue with its provenance (<variant>.json): the data commands and
    positions, the training command and its CPU time, the match, the commit and the file's
    own XXH3-64 (its last 8 bytes, selfplay/NETWORK.md)."""
    steps, a = loop.state["steps"], loop.a
    best = None
    for g in range(loop.start + 1, a.generations + 1):
        m = steps.get(f"match{g}-classical")
        prev = steps.get(f"match{g}-net{g - 1}") or {}
        # a net that lost to its predecessor is never shipped: it must be accepted (SPRT
        # H1), or its match must have ended with a 95% interval (game pairs) above zero
        if prev.get("ok") and not loop.accepted(f"match{g}-net{g - 1}") and \
                not (prev.get("elo_pairs_95") or [0])[0] > 0:
            continue
        if m and m.get("ok") and (best is None or m["elo"] > best[1]["elo"]):
            best = (g, m)
    if best is None:
        sys.exit("flywheel: --ship: no net has been matched yet, or none that did not lose "
                 "to its predecessor")
    g, match = best
    before = [r["vs_classical"]["elo"] for r in (loop.earlier or {}).get("generations", [])
              if "vs_classical" in r]
    if before and match["elo"] <= max(before):
        sys.exit(f"flywheel: --ship: net {loop.real(g)} ({match['elo']:+.0f} Elo against classical) does "
                 f"not beat the earlier loop's best ({max(before):+.0f}); nothing shipped")
    src = os.path.join(loop.work, f"net{g}.nnue")
    nets = os.path.join(ROOT, "selfplay", "nets")
    os.makedirs(nets, exist_ok=True)
    dst = os.path.join(nets, f"{a.variant}.nnue")
    data = open(src, "rb").read()
    if len(data) > 2 * 1024 * 1024:
        sys.exit(f"flywheel: --ship: {src} is {len(data)} bytes, over the 2 MB a shipped net may have")
    with open(dst + ".tmp", "wb") as f:
        f.write(data)
    os.replace(dst + ".tmp", dst)
    train = steps[f"train{g}"]
    prov = {"network": f"selfplay/nets/{a.variant}.nnue", "variant": a.variant,
            "bytes": len(data), "xxh3_64": data[-8:][::-1].hex(),
            "net": loop.real(g),
            "data": [{"generation": loop.real(k), "command": steps[f"data{k}"]["command"],
                      "positions": steps[f"data{k}"].get("positions"),
                      "cpu_s": steps[f"data{k}"].get("cpu_s")}
                     for k in train.get("generations", [])],
            "training": {"command": train["command"], "cpu_s": train["cpu_s"],
                         "wall_s": train["wall_s"], "finished": train["finished"]},
            "match_vs_classical": {k: match[k] for k in ("command", "games", "a_score", "elo",
                                                         "elo_95")},
            "started_from": (dict(loop.state["start_net"]) if loop.start else None),
            "commit": git_head(), "made_by": "python3 scripts/flywheel.py " +
            " ".join(shlex.quote(x) for x in sys.argv[1:])}
    with open(os.path.join(nets, f"{a.variant}.json"), "w") as f:
        json.dump(redact(prov, a), f, indent=1)
        f.write("\n")
    log(f"shipped net {loop.real(g)} ({match['elo']:+.0f} Elo against classical) as {dst}")


def redact(obj, args):
    """obj with this machine's paths replaced by names (the records are committed): the
    work folder is $WORK, the binary chessvar, a --gen0-data folder $GEN0 (several:
    $GEN0_1, $GEN0_2, ...)."""
    text = json.dumps(obj)
    pairs = [(os.path.abspath(args.work), "$WORK"), (os.path.abspath(args.chessvar), "chessvar"),
             (args.chessvar, "chessvar")]
    if args.start_net:
        pairs.append((os.path.abspath(args.start_net), "$START_NET"))
    if args.gen0_data:
        folders = gen0_folders(args.gen0_data)
        names = ["$GEN0"] if len(folders) == 1 else [f"$GEN0_{i + 1}" for i in range(len(folders))]
        pairs[:0] = list(zip(folders, names))
    for path, name in sorted(pairs, key=lambda p: -len(p[0])):  # a path before its prefixes
        text = text.replace(json.dumps(path)[1:-1], name)
    return redact_programs(json.loads(text))


def redact_programs(obj):
    """obj with every step command's program written as chessvar, whatever binary ran it:
    a resumed loop keeps the commands of earlier steps, run by other binaries."""
    if isinstance(obj, list):
        return [redact_programs(x) for x in obj]
    if not isinstance(obj, dict):
        return obj
    out = {k: redact_programs(v) for k, v in obj.items()}
    cmd = out.get("command")
    if isinstance(cmd, str) and " " in cmd:
        prog, rest = cmd.split(" ", 1)
        if "/" in prog and os.path.basename(prog).startswith("chessvar"):
            out["command"] = "chessvar " + rest
    return out


def gen0_folders(spec):
    """The absolute folders of a --gen0-data value (comma-separated)."""
    return [os.path.abspath(f) for f in spec.split(",") if f]


def git_head():
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                       text=True)
    return r.stdout.strip()


def cpu_hours(gens):
    """CPU hours spent up to and including each net, by net number: the data, rescoring,
    training and matches of every generation so far, those not accepted or not matched
    against classical included (a figure the record lacks counts 0, and the loop's given
    data, generation 0, has none)."""
    total, out = 0.0, {}
    for r in sorted(gens, key=lambda g: g["net"]):
        total += (r.get("data_cpu_s") or 0.0) + (r.get("train_cpu_s") or 0.0)
        total += (r.get("rescore_cpu_s") or 0.0)
        for key in ("vs_classical", "vs_previous", "vs_previous_extended"):
            total += (r.get(key) or {}).get("cpu_s") or 0.0
        out[r["net"]] = total / 3600.0
    return out


def match_of(r, key):
    """Row r's match `key` as plotted, {elo, elo_95}: against the predecessor, the SPRT
    carried on past its game cap (vs_previous_extended, Elo over game pairs) where the
    record has one, since it holds every game of the test; else the match itself."""
    ext = r.get("vs_previous_extended") if key == "vs_previous" else None
    if ext:
        return {"elo": ext["elo"], "elo_95": ext["elo_pairs_95"]}
    return r.get(key)


def plot(rec, path):
    """Elo (95% interval) against generation, against millions of positions trained on and
    against CPU hours spent (data, rescoring, training, matches)."""
    rows = [r for r in rec["generations"] if "vs_classical" in r]
    if not rows:
        return
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        system = "/usr/bin/python3"  # Debian's matplotlib is for the system interpreter
        if os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system):
            record = path[:-4] + ".json"
            subprocess.run([system, os.path.abspath(__file__), "--plot", record], check=False)
        else:
            log("no matplotlib: no plot (bash scripts/setup.sh --measure installs it)")
        return
    hours = cpu_hours(rec["generations"])
    xval = {"net": lambda r: r["net"],
            "positions": lambda r: r["trained_on_positions"] / 1e6,
            "hours": lambda r: hours[r["net"]]}
    fig, axs = plt.subplots(1, 3, figsize=(15, 4.4))
    for ax, xkey, xlabel in ((axs[0], "net", "generation (net number)"),
                             (axs[1], "positions", "positions trained on (millions)"),
                             (axs[2], "hours", "CPU hours spent (data, training, matches)")):
        for key, label, col in (("vs_classical", "against classical", "tab:blue"),
                                ("vs_previous", "against the previous net", "tab:orange")):
            pts = [r for r in rows if key in r]
            if not pts:
                continue
            xs = [xval[xkey](r) for r in pts]
            ms = [match_of(r, key) for r in pts]
            # a score of 0 or 1 has an unbounded Elo: everything is clipped to +-1000
            ys = [max(-1000.0, min(1000.0, m["elo"])) for m in ms]
            lo = [max(-1000.0, min(y, m["elo_95"][0])) for y, m in zip(ys, ms)]
            hi = [min(1000.0, max(y, m["elo_95"][1])) for y, m in zip(ys, ms)]
            ax.errorbar(xs, ys, yerr=[[y - l for y, l in zip(ys, lo)],
                                      [h - y for y, h in zip(ys, hi)]],
                        marker="o", capsize=4, label=label, color=col,
                        # by data size, no lines: a continued loop's nets (--start-net) are
                        # trained on other data than the earlier loop's, not on more of it
                        ls="-" if xkey == "net" else "none")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("Elo of the net (95% interval, clipped to +-1000)")
        if xkey == "net":
            ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        else:
            # plain numbers, a handful of ticks: never 2.2x10^7 beside 2.4x10^7
            ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(nbins=6))
            ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.legend(fontsize=8)
    fig.suptitle(f"{rec['variant']}: networks from chessvar's own games")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant")
    ap.add_argument("--plot", metavar="RECORD", help="only draw RECORD.png from a record")
    ap.add_argument("--generations", type=int, default=2, help="nets to train (default 2)")
    ap.add_argument("--work", default=os.path.join(os.path.dirname(ROOT), "chessvar-flywheel"),
                    help="folder for data, nets and logs, outside the repository "
                         "(default ../chessvar-flywheel)")
    ap.add_argument("--chessvar", default=os.path.join(ROOT, "build", "chessvar"))
    ap.add_argument("--positions", type=int, default=1000000,
                    help="positions written per generation (default 1000000)")
    ap.add_argument("--nodes", type=int, default=0,
                    help="search nodes per move when generating (default: selfplay's)")
    ap.add_argument("--book", help="start positions (default: the variant's start)")
    ap.add_argument("--gen0-data", help="use these classical self-play run folders "
                                        "(comma-separated) as generation 0's data instead "
                                        "of playing it")
    ap.add_argument("--start-net", metavar="FILE",
                    help="continue an earlier loop from its net FILE (e.g. the shipped "
                         "selfplay/nets/<variant>.nnue): FILE is net K and plays generation "
                         "K's data; nets K+1 .. --generations are trained on this loop's data; "
                         "the record keeps the earlier loop's generations and steps; nets "
                         "the record already has after K (not accepted) keep their numbers "
                         "and this loop's come after them")
    ap.add_argument("--start-generation", type=int, default=1, metavar="K",
                    help="the generation number of --start-net's net (default 1)")
    ap.add_argument("--data-format", default="chain", choices=("chain", "bin"),
                    help="format of the loop's self-play data (default chain: about 2.5 bytes "
                         "a position against bin's 104, so every generation's data can be kept "
                         "and trained on again; the trainer reads both)")
    ap.add_argument("--write-min-ply", type=int, default=8)
    ap.add_argument("--eval-limit", type=int, default=3000)
    ap.add_argument("--dedup-bits", type=int, default=24)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--epochs", type=float, default=8.0,
                    help="training positions = epochs x the positions of its data")
    ap.add_argument("--window", type=int, default=2, help="generations of data per net")
    ap.add_argument("--train-lambda", type=float, default=1.0,
                    help="target = lambda * search score + (1 - lambda) * result (default 1.0: "
                         "it beat 0.75 at equal data in chess and Superchess, selfplay/NETWORK.md)")
    ap.add_argument("--mirror", action="store_true",
                    help="train with files mirrored half the time (chessvar train --mirror)")
    ap.add_argument("--train-options", metavar="OPTIONS",
                    help="more `chessvar train` options for every net, e.g. the architecture: "
                         "\"--output-buckets 8 --stack 16,32\" (selfplay/NETWORK.md)")
    ap.add_argument("--match-games", type=int, default=400,
                    help="games of each match (the most, for an SPRT)")
    ap.add_argument("--sprt", default="0,41", metavar="ELO0,ELO1[,ALPHA,BETA]",
                    help="accept each net by an SPRT against its predecessor (at most "
                         "--match-games games; a rejected net does not play the next "
                         "generation's data); 'off': a fixed-length match (default 0,41: "
                         "results/sprt_games.json says why)")
    ap.add_argument("--movetime", type=int, default=20, help="ms per move in matches")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", help="the results record (default results/flywheel_<variant>.json)")
    ap.add_argument("--ship", action="store_true",
                    help="at the end, copy the net that did best against the classical "
                         "evaluation, of those that did not lose to their predecessor (SPRT "
                         "H1, or a 95%% interval above zero), to selfplay/nets/<variant>.nnue "
                         "with its provenance")
    args = ap.parse_args()
    if args.start_net and not 1 <= args.start_generation < args.generations:
        ap.error(f"--start-generation {args.start_generation}: must be at least 1 and below "
                 f"--generations ({args.generations})")
    if args.plot:
        plot(json.load(open(args.plot)), args.plot[:-5] + ".png")
        return
    if not args.variant:
        ap.error("--variant is required")
    if not os.access(args.chessvar, os.X_OK):
        sys.exit(f"flywheel: {args.chessvar}: no chessvar binary (bash scripts/run.sh builds it)")

    loop = Loop(args)
    net = os.path.join(loop.work, f"net{loop.start}.nnue") if args.start_net else None
    playing = loop.start  # the loop's number of the net that plays the data (net)
    for g in range(loop.start, args.generations):
        loop.data(g, net)
        new = loop.train(g)
        loop.save()
        loop.match(f"match{g + 1}-classical", new, "classical")
        if net:
            sprt = None if args.sprt == "off" else args.sprt
            loop.match(f"match{g + 1}-net{g}", new, net, sprt)
            if not loop.accepted(f"match{g + 1}-net{g}"):
                log(f"net {loop.real(g + 1)} rejected against net {loop.real(playing)}: "
                    f"net {loop.real(playing)} plays on")
                continue
        net, playing = new, g + 1
    loop.save()
    log(f"wrote {loop.record_path}")
    if args.ship:
        ship(loop)


if __name__ == "__main__":
    main()
