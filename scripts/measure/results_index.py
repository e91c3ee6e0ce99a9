#!/usr/bin/env python3
"""Writes results/README.md: every file in results/ with one line on what it shows, the
command that made it, and the commit, build and date it came from.

What a file shows and which command makes it are written once, in FILES below (a pattern
per family of files). The commit and the date are those of the last commit that changed
the file (git log); the build is read from the file where its script recorded it (the
CMake cache's CHESSVAR_ARCH / CHESSVAR_NATIVE and compiler), else the line says it was not
recorded; a commit and date the file records of its own run win over git's. What follows
the marker line in results/README.md (the measurement logs, written by hand) is kept as it
is. scripts.measure.make_plots calls this after drawing;
`--check` (a CTest) fails when a file in results/ is not described in FILES, or is not
listed in results/README.md.

  python3 -m scripts.measure.results_index           # rewrite results/README.md
  python3 -m scripts.measure.results_index --check   # exit 1 when it is out of date
"""
import argparse
import fnmatch
import json
import os
import subprocess
import sys

from scripts.common import ROOT
RES = os.path.join(ROOT, "results")

# (pattern, what it shows, the command that makes it). First match wins.
FILES = [
    ("README.md", None, None),
    ("*_quick.*", None, None),  # smoke runs (--quick), never committed
    ("*.tmp", None, None),  # half-written
    ("build_speed.json", "Default build against gcc x86-64-v3 / portable and clang builds, and "
     "cannon10 against Fairy-Stockfish: whole-process CPU time, alternating runs, medians",
     "python3 -m scripts.measure.build_speed"),
    ("check_report.json", "Rule-consistency report of the short check run (invariants on "
     "sampled positions, per variant), JSON", "chessvar check (scripts/sanitize.sh runs it)"),
    ("check_report.md", "The same short check report, Markdown", "chessvar check"),
    ("check_report_long*.json", "Rule-consistency report of a long check run, JSON",
     "chessvar check --games N (command inside the file)"),
    ("check_report_long*.md", "The same long check report, Markdown", "chessvar check --games N"),
    ("elo_ladder.json", "Matches against Stockfish at UCI_Elo rungs: where the player stands on "
     "a rating scale", "python3 -m scripts.measure.elo_ladder"),
    ("elo_ladder_gen8.json", "The UCI_Elo ladder at 50 ms a move with the generation-8 chess "
     "net (8 output buckets), one rung of 200 games", "python3 -m scripts.measure.elo_ladder "
     "(command inside)"),
    ("plot_elo_ladder_gen8.png", "Its plot", "python3 -m scripts.measure.elo_ladder"),
    ("elo_ladder_*.json", "An earlier run of the UCI_Elo ladder, kept for comparison (commit in "
     "the name)", "python3 -m scripts.measure.elo_ladder"),
    ("plot_elo_ladder.png", "Score against each UCI_Elo rung, with intervals",
     "python3 -m scripts.measure.elo_ladder"),
    ("plot_elo_ladder_*.png", "The earlier ladder run's plot (commit in the name)",
     "python3 -m scripts.measure.elo_ladder"),
    ("elo_uci2000_50ms.json", "Match against Stockfish UCI_Elo 2000 at 50 ms per move",
     "chessvar selfplay --opponent uci:stockfish ... (command inside the file)"),
    ("elo_uci2000_50ms_current.txt", "The same match for the current player: summary lines "
     "and the command", "chessvar selfplay --opponent uci:stockfish ... (command inside)"),
    ("engine_comparison.json", "Perft nodes/s of chessvar beside Stockfish and Fairy-Stockfish "
     "on the same positions", "python3 -m scripts.measure.perft_speed --report engines"),
    ("engine_comparison.csv", "The same comparison as CSV", "python3 -m scripts.measure.perft_speed --report engines"),
    ("plot_nps.png", "Perft Mnodes/s per position and engine (from engine_comparison.json)",
     "python3 -m scripts.measure.make_plots"),
    ("eval_tune_matches*.json", "Tuned against untuned evaluation, self-play matches at equal "
     "nodes (variants of the run in the name)", "python3 -m scripts.measure.eval_match"),
    ("plot_eval_tune_matches.png", "Elo of the tuned evaluation per variant, with intervals",
     "python3 -m scripts.measure.eval_match"),
    ("eval_tune_*.json", "Texel fit of one variant's evaluation to its own self-play games: "
     "loss, K, values before and after", "python3 -m scripts.data.tune_eval --variant V"),
    ("eval_tune_*.png", "Calibration of the fitted evaluation (mean result per evaluation "
     "bucket) and the piece values before and after", "python3 -m scripts.data.tune_eval --variant V"),
    ("sprt_games.json", "Games an SPRT (alpha = beta = 0.05) needs for the network loop's own "
     "decisions, simulated per pair of bounds, capped at 400; the rate at which each pair "
     "would reject the loop's past generations; error rates at the bounds; the bounds chosen "
     "for the loop and why",
     "python3 -m scripts.measure.sprt_games"),
    ("sprt_net_vs_classical.json", "SPRT of each variant's shipped network against the "
     "classical evaluation: pentanomial, LLR, decision, Elo with intervals, CPU time",
     "python3 -m scripts.measure.sprt_net_vs_classical"),
    ("instr_counts.json", "Callgrind instructions per perft node per workload",
     "python3 -m scripts.measure.instr_counts"),
    ("perft_deep.json", "Deep perft runs checked against published counts",
     "python3 -m scripts.measure.perft_deep"),
    ("perft_depths.json", "Perft counts and times against depth per variant start",
     "python3 -m scripts.measure.make_plots"),
    ("plot_perft_depth.png", "Perft node counts against depth, log scale",
     "python3 -m scripts.measure.make_plots"),
    ("perft_scaling.json", "Perft speed-ups (threads, hash) side by side in one run",
     "python3 -m scripts.measure.perft_scaling"),
    ("thread_scaling.json", "Perft speed-up against threads per variant",
     "python3 -m scripts.measure.make_plots"),
    ("plot_threads.png", "Perft speed-up against threads", "python3 -m scripts.measure.make_plots"),
    ("perft_speed.json", "Single-thread perft beside Gigantua, qperft, Stockfish and "
     "Fairy-Stockfish, alternating runs", "python3 -m scripts.measure.perft_speed"),
    ("perft_speed.png", "Ratios of perft_speed.json against their goals",
     "python3 -m scripts.measure.perft_speed"),
    ("perft_speed_*.json", "One part of perft_speed.json rerun alone on a quiet machine "
     "(orthodox anchors, 10x10 against Fairy-Stockfish, or the variants against orthodox)",
     "python3 -m scripts.measure.perft_speed --report anchors --only PART --runs 5"),
    ("perft_speed_*.png", "Ratios of that part against their goals",
     "python3 -m scripts.measure.perft_speed --report anchors --only PART"),
    ("perft_vs_stockfish.json", "Orthodox perft against Stockfish's go perft, one thread",
     "python3 -m scripts.measure.perft_speed --report stockfish"),
    ("search_changes_round*.txt", "Each search change of a round played against the build "
     "before it (match summaries and commands)", "chessvar selfplay ... --opponent uci:OLD "
     "(command inside)"),
    ("search_matches.json", "Strength matches of the search: new against old at equal time, "
     "depth N+2 against N", "python3 -m scripts.measure.search_matches"),
    ("plot_search_matches.png", "Elo with intervals of the search matches",
     "python3 -m scripts.measure.search_matches"),
    ("search_speed.json", "Self-play positions per CPU second at fixed depths, per variant",
     "python3 -m scripts.measure.search_speed"),
    ("plot_search_speed.png", "Positions per CPU second against depth, per variant",
     "python3 -m scripts.measure.search_speed"),
    ("search_vs_stockfish.json", "Nodes and CPU time to depth 8 and 10 beside Stockfish on "
     "50 middlegames", "python3 -m scripts.measure.search_vs_stockfish"),
    ("plot_search_vs_stockfish.png", "The same, per position", "python3 -m scripts.measure.search_vs_stockfish"),
    ("chain_data.json", "Chain format per variant on the default self-play run: bytes per "
     "position (chain, bin, zstd), decode speed, trainer throughput chain/bin, rescore speed",
     "python3 -m scripts.measure.chain_data"),
    ("selfplay_strength.json", "Self-play player sanity: results against weaker settings",
     "python3 -m scripts.measure.selfplay_bench"),
    ("selfplay_throughput.json", "Self-play positions per second per variant, 1 and 2 threads",
     "python3 -m scripts.measure.selfplay_bench"),
    ("plot_selfplay.png", "Self-play positions per second per variant",
     "python3 -m scripts.measure.make_plots"),
    ("superchess_speed.json", "Superchess perft speed beside orthodox chess, fast against "
     "reference generator", "python3 -m scripts.measure.superchess_speed"),
    ("supremo_fairy.json", "Supremo's generator against Fairy-Stockfish on cannon10: counts "
     "and speed", "python3 -m scripts.measure.perft_speed --report fairy"),
    ("supremo_perft.json", "Supremo perft counts, speed and cross-checks",
     "python3 -m scripts.crosscheck.supremo_perft"),
    ("nnue_trainer_speed.json", "Trainer positions per CPU and wall second, chessvar train (1 "
     "and 2 threads) beside PyTorch on the same data; inference ns per call",
     "python3 -m scripts.measure.measure_trainer build/chessvar RUN results/nnue_trainer_speed.json"),
    ("nnue_loss_*.csv", "Training and validation loss of a network against positions trained on",
     "chessvar train --log FILE (command in selfplay/NETWORK.md)"),
    ("nnue_loss_*.png", "The loss log plotted", "python3 -m scripts.measure.plot_loss OUT.png LOG.csv"),
    ("flywheel_*.json", "The network loop of one variant: each generation's data, training and "
     "matches (Elo with 95% interval against the classical evaluation and the previous net)",
     "python3 scripts/flywheel.py --variant V (command inside)"),
    ("flywheel_*.png", "Elo per generation and per positions trained on, with intervals",
     "python3 scripts/flywheel.py --variant V"),
    ("nnue_v2_speed.json", "Network architecture v2 (issue 41): training positions per CPU second "
     "and search nodes per CPU second (and callgrind instructions per search node) of version 1 "
     "and each version 2 configuration, nets trained alike on the same data",
     "python3 -m scripts.measure.nnue_v2_speed --data RUN --callgrind V3BUILD/chessvar"),
    ("net_speed.json", "Self-play nodes and positions per CPU second with each variant's shipped "
     "network against the classical evaluation, default node budget, one thread",
     "python3 -m scripts.measure.net_speed"),
    ("net_speed_chess_gen8.json", "Search cost with the shipped chess net (generation 8, 8 output "
     "buckets) against the version-1 net it replaced: callgrind instructions per search node of "
     "the same self-play command", "python3 -m scripts.measure.net_cost (command inside)"),
    ("net_speed_switching_gen11.json", "Search cost with the shipped Switching net (generation 11, "
     "8 output buckets) against the version-1 net 7 it replaced: callgrind instructions per "
     "search node of the same self-play command", "python3 -m scripts.measure.net_cost "
     "(command inside)"),
    ("margin_tune_chess.json", "The search margins one at a time against the defaults with the "
     "shipped chess net (issue 41): SPRT matches between two chessvar uci of one build at 20 ms "
     "a move, the margin set by its UCI option", "python3 -m scripts.measure.margin_sprt"),
    ("margin_tune_supremo.json", "The search margins one at a time against the defaults with "
     "the shipped Supremo net (issue 41), as margin_tune_chess.json",
     "python3 -m scripts.measure.margin_sprt --variant supremo"),
    ("margin_tune_switching.json", "The search margins one at a time against the defaults "
     "with the shipped Switching net (issue 41), as margin_tune_chess.json",
     "python3 -m scripts.measure.margin_sprt --variant switching"),
    ("margin_tune_superchess.json", "The search margins one at a time against the defaults "
     "with the shipped Superchess net (issue 41), as margin_tune_chess.json",
     "python3 -m scripts.measure.margin_sprt --variant superchess"),
    ("chain_decode_ab.json", "Chain decoding without data-dependent branches: the same bits, "
     "CPU time against main before in alternating runs per variant, callgrind instructions and "
     "simulated mispredicts, and the trainer's chain/bin instructions explained",
     "chessvar data speed, alternating runs; valgrind --tool=callgrind (commands inside)"),
    ("chain_decode_profile_chess.json", "Where chain decoding's instructions go per chess "
     "position (callgrind): the move set (version 6: pseudo-legal), rANS, make, model rebuilds, the record",
     "valgrind --tool=callgrind chessvar data speed (command inside)"),
    ("net_arch_*.json", "Network architecture v2 at equal data (issue 41): one net per "
     "configuration (v1, output buckets, dense stack, king buckets, all) trained on the same "
     "self-play run, each against the v1 net by SPRT at 20 ms a move, paired openings; an "
     "equal-nodes check", "python3 -m scripts.measure.net_sweep --against v1 --sprt "
     "(command inside)"),
    ("net_factor_*.json", "King buckets with their factoriser (train --factorise) against the "
     "v1 net at equal data by SPRT at 20 ms a move, paired openings, with the loss curves' "
     "reading (issue 41)", "python3 -m scripts.measure.net_sweep --against v1 --sprt "
     "(command inside)"),
    ("net_lambda_*.json", "Training target and passes at equal data (issue 41): loss curves of "
     "the loop's net, its last net, and one pass at lambda 0.75 and 1.0, with SPRT matches "
     "against the loop's net and the winner's match against classical at 20 ms a move",
     "chessvar train / chessvar selfplay --sprt (commands inside)"),
    ("search_margins.json", "The search's evaluation-scale pruning margins (reverse futility, "
     "futility, razoring) re-tuned for the networks (issue 41): matches of scaled margins at "
     "20,000 nodes in chess (network and classical) and Switching, and the change at 20 ms a "
     "move, which did not hold there and was not kept",
     "chessvar match --sprt (commands inside)"),
    ("net_sweep_*.json", "Nets of one variant by configuration (width, target, mirroring, data "
     "size): best validation loss and Elo against the classical evaluation at a fixed node "
     "budget, paired openings", "python3 -m scripts.measure.net_sweep (command inside)"),
    ("label_quality*.json", "Chess label quality: best-move agreement and Spearman correlation "
     "with Stockfish depth 14, chessvar (classical, net), Fairy-Stockfish and (--reference) "
     "Stockfish's own NNUE at 1,000 and 10,000 nodes, on 200 positions (1,000 in _1000)",
     "python3 -m scripts.measure.label_quality (command inside)"),
    ("variant_speed.json", "Perft nodes/s of each variant next to orthodox chess",
     "python3 -m scripts.measure.variant_speed"),
]


# results/README.md: the index above this line is written here; what follows it is kept as
# it is (hand-written: the measurement logs and tables of past results).
MARKER = "<!-- Below this line: written by hand; scripts/measure/results_index.py keeps it. -->"


def hand_part(path):
    """The hand-written part of results/README.md: the marker and what follows it."""
    try:
        text = open(path).read()
    except OSError:
        return MARKER + "\n"
    i = text.find(MARKER)
    return text[i:] if i >= 0 else MARKER + "\n"


def describe(name):
    """(what, command) for a results file, or None when FILES does not describe it."""
    for pattern, what, cmd in FILES:
        if fnmatch.fnmatch(name, pattern):
            return what, cmd
    return None


def git_last(path):
    """(short commit, date) of the last commit that changed path, or ('uncommitted', '')."""
    r = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h %cs", "--", path],
                       capture_output=True, text=True)
    parts = r.stdout.split()
    return (parts[0], parts[1]) if len(parts) == 2 else ("uncommitted", "")


def recorded(path):
    """What a JSON results file records of its run: (build, commit, date), each '' when it
    does not say. Build: CHESSVAR_ARCH (or CHESSVAR_NATIVE before it) and the compiler."""
    if not path.endswith(".json"):
        return "", "", ""
    try:
        data = json.load(open(path))
    except (OSError, ValueError):
        return "", "", ""
    found = {}

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if isinstance(v, str) and k not in found:
                    found[k] = v
                walk(v)
        elif isinstance(x, list):
            for v in x[:50]:
                if isinstance(v, str) and len(v) == 40 and "git" not in found:
                    found["git"] = v  # measure_env.git_state's [commit, dirty]
                walk(v)

    walk(data)
    parts = []
    if "CHESSVAR_ARCH" in found:
        parts.append("CHESSVAR_ARCH=" + found["CHESSVAR_ARCH"])
    elif "CHESSVAR_NATIVE" in found:
        parts.append("-march=native" if found["CHESSVAR_NATIVE"] == "ON" else "portable")
    if "CMAKE_C_COMPILER" in found:
        parts.append(os.path.basename(found["CMAKE_C_COMPILER"]))
    commit = next((found[k] for k in ("commit", "chessvar_commit", "git") if k in found), "")
    date = next((found[k] for k in ("date", "date_utc") if k in found), "")
    return ", ".join(parts), commit[:7], date[:10]


def render():
    """The text of results/README.md, and the files FILES does not describe."""
    names = sorted(n for n in os.listdir(RES) if not n.startswith("."))
    rows, missing = [], []
    for n in names:
        d = describe(n)
        if d is None:
            missing.append(n)
            continue
        what, cmd = d
        if what is None:
            continue
        build, commit, date = recorded(os.path.join(RES, n))
        last_commit, last_date = git_last(os.path.join("results", n))
        commit, date = commit or last_commit, date or last_date
        build = build or "not recorded"
        rows.append(f"| [{n}]({n}) | {what} | `{cmd}` | {commit} | {date} | {build} |")
    text = "\n".join([
        "# results/",
        "",
        "Measured numbers, reports and plots, each written by a script (never by hand).",
        "This index is written by `python3 -m scripts.measure.results_index` (also run by",
        "`scripts.measure.make_plots`); a CTest fails when a file here is missing from it.",
        "Commit and date: those the file records of its run, else the last commit that",
        "changed it. Build: what the file records (before CHESSVAR_ARCH existed, builds",
        "were portable unless it says -march=native). Figures compared with other programs are ratios",
        "measured side by side in one run: this machine is shared and absolute times drift.",
        "",
        "| file | what it shows | made by | commit | date | build |",
        "|---|---|---|---|---|---|",
    ] + rows) + "\n\n" + hand_part(os.path.join(RES, "README.md"))
    return text, missing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="exit 1 when a file is undescribed or README.md is out of date")
    args = ap.parse_args(argv)
    text, missing = render()
    for n in missing:
        print(f"results_index: results/{n} is not described in FILES of scripts/measure/results_index.py")
    path = os.path.join(RES, "README.md")
    if args.check:
        current = open(path).read() if os.path.exists(path) else ""
        listed = all(f"[{n}]" in current for n in os.listdir(RES)
                     if n != "README.md" and describe(n) is not None)
        ok = not missing and listed
        print("results_index: every file in results/ is in results/README.md" if ok else
              "results_index: results/README.md is out of date: python3 -m scripts.measure.results_index")
        return 0 if ok else 1
    open(path, "w").write(text)
    print(f"results_index: wrote {path} ({len(text.split(MARKER)[0].splitlines()) - 13} files)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
