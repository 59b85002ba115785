"""`python -m tests.bench`, the name the issues use for the benchmarks: runs tests/tools/bench.py with the same
arguments (none: concurrent games through the service; `--processes 1,2,4`, `--ladder`, `--discord-load`, ...)."""

import runpy

if __name__ == "__main__":
    runpy.run_module("tests.tools.bench", run_name="__main__", alter_sys=True)
