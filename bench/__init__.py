"""Benchmarks: `python -m bench <name> [args]` runs bench/<name>.py (see bench/__main__.py)."""
