"""Benchmarks and measurement scripts: `python -m bench <name>` runs bench/<name>.py's main()."""
