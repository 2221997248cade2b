"""Benchmark: `streamlint diff` end to end against the floor of parsing both files with libcst.

Usage: python bench/bench_diff.py [OLD NEW] [--runs N]
Prints the median wall time of each command over N fresh processes, the ratio (target: within
1.3x of the floor), and whether the static path imported pyspark (it must not).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLOOR = (
    "import sys, libcst\n"
    "for path in sys.argv[1:]:\n"
    "    with open(path, encoding='utf-8') as handle:\n"
    "        libcst.parse_module(handle.read())\n"
)


# pip compiles an installed package to bytecode; an editable checkout under
# PYTHONDONTWRITEBYTECODE=1 would recompile streamlint on every run and measure the compiler.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def median_seconds(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                       env=ENV)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def pyspark_imports(command: list[str]) -> list[str]:
    result = subprocess.run([sys.executable, "-X", "importtime", *command], capture_output=True,
                            text=True, check=False, env=ENV)
    names = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()
             if line.startswith("import time:")]
    return [name for name in names if name.split(".")[0] == "pyspark"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("old", nargs="?", default=str(HERE / "jobs" / "payments_old.py"))
    parser.add_argument("new", nargs="?", default=str(HERE / "jobs" / "payments_new.py"))
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    lines = sum(len(Path(p).read_text().splitlines()) for p in (args.old, args.new))
    floor_cmd = [sys.executable, "-c", FLOOR, args.old, args.new]
    # The console script pip installs, as users run it (no runpy, unlike `python -m`).
    script = Path(sys.executable).with_name("streamlint")
    entry = [str(script)] if script.exists() else [sys.executable, "-m", "streamlint"]
    tool_cmd = [*entry, "diff", args.old, args.new]
    # Warm the file cache and the bytecode cache before timing.
    for command in (floor_cmd, tool_cmd):
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                       env=ENV)
    floor = median_seconds(floor_cmd, args.runs)
    tool = median_seconds(tool_cmd, args.runs)
    pyspark = pyspark_imports(["-m", "streamlint", "diff", args.old, args.new])
    print(f"files: {args.old} {args.new} ({lines} lines)")
    print(f"floor (import libcst, parse both): {floor * 1000:7.1f} ms, median of {args.runs}")
    print(f"streamlint diff:                   {tool * 1000:7.1f} ms, median of {args.runs}")
    print(f"ratio: {tool / floor:.2f}x (target <= 1.30x)")
    print(f"pyspark imported by the static path: {'YES' if pyspark else 'no'}")
    return 0 if not pyspark else 1


if __name__ == "__main__":
    sys.exit(main())
