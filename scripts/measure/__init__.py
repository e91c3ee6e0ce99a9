"""Measuring scripts: each writes results/ files (results/README.md says which)."""
