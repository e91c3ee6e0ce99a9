"""Correctness cross-checks: perft counts against Stockfish and independent generators."""
