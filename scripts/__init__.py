"""The project's Python scripts as one package: run each from the repository root as a
module, e.g. `python3 -m scripts.measure.perft_speed` (scripts/README.md lists them)."""
