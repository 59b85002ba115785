"""Tools that are not tests: crash, fuzz and load runs and benchmarks (`python -m tests.tools.<name>`)."""
