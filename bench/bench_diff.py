"""Benchmark: `streamlint diff` end to end against the floor of parsing both files with libcst.

Usage: python bench/bench_diff.py [OLD NEW] [--runs N] [--sql]
Without files, two pairs: `payments_*` (no SQL: its floor imports libcst; sqlglot must not be
imported) and `sql_*` (SQL-heavy: its floor imports libcst and sqlglot). `--sql` gives a pair
of files the SQL floor. Prints the median wall time of each command over N fresh processes
(the two commands alternate), the ratio (target: within 1.3x of the floor), and whether the
static path imported pyspark (it must not) or sqlglot.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLOOR = (
    "import sys, libcst{extra}\n"
    "for path in sys.argv[1:]:\n"
    "    with open(path, encoding='utf-8') as handle:\n"
    "        libcst.parse_module(handle.read())\n"
)


# pip compiles an installed package to bytecode; an editable checkout under
# PYTHONDONTWRITEBYTECODE=1 would recompile streamlint on every run and measure the compiler.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def seconds(command: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run; CPU time (user + system) varies far less than wall
    time when other work shares the machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def interleaved_medians(first: list[str], second: list[str], runs: int
                        ) -> tuple[tuple[float, float], tuple[float, float]]:
    """Median (wall, CPU) time of each command, run alternately: a change in the machine's
    load during the measurement weighs on both sides alike, not on whichever ran second."""
    times: tuple[list[tuple[float, float]], ...] = ([], [])
    for _ in range(runs):
        times[0].append(seconds(first))
        times[1].append(seconds(second))
    return tuple(  # type: ignore[return-value]
        (statistics.median(t[0] for t in side), statistics.median(t[1] for t in side))
        for side in times)


def imported(command: list[str], package: str) -> list[str]:
    result = subprocess.run([sys.executable, "-X", "importtime", *command], capture_output=True,
                            text=True, check=False, env=ENV)
    names = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()
             if line.startswith("import time:")]
    return [name for name in names if name.split(".")[0] == package]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("old", nargs="?")
    parser.add_argument("new", nargs="?")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--sql", action="store_true", help="the floor imports sqlglot too")
    args = parser.parse_args()
    if args.old and args.new:
        pairs = [(args.old, args.new, args.sql)]
    else:
        jobs = HERE / "jobs"
        pairs = [(str(jobs / "payments_old.py"), str(jobs / "payments_new.py"), False),
                 (str(jobs / "sql_old.py"), str(jobs / "sql_new.py"), True)]
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    failed = False
    for old, new, sql in pairs:
        failed = bench_pair(old, new, sql, args.runs) or failed
    return 1 if failed else 0


def bench_pair(old: str, new: str, sql: bool, runs: int) -> bool:
    lines = sum(len(Path(p).read_text().splitlines()) for p in (old, new))
    floor_cmd = [sys.executable, "-c", FLOOR.format(extra=", sqlglot" if sql else ""), old, new]
    # The console script pip installs, as users run it (no runpy, unlike `python -m`).
    script = Path(sys.executable).with_name("streamlint")
    entry = [str(script)] if script.exists() else [sys.executable, "-m", "streamlint"]
    tool_cmd = [*entry, "diff", old, new]
    # Warm the file cache and the bytecode cache before timing.
    for command in (floor_cmd, tool_cmd):
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                       env=ENV)
    (floor, floor_cpu), (tool, tool_cpu) = interleaved_medians(floor_cmd, tool_cmd, runs)
    static = ["-m", "streamlint", "diff", old, new]
    pyspark = imported(static, "pyspark")
    sqlglot = imported(static, "sqlglot")
    label = "import libcst, sqlglot" if sql else "import libcst"
    print(f"files: {old} {new} ({lines} lines)")
    print(f"floor ({label}, parse both): {floor * 1000:7.1f} ms, median of {runs}")
    print(f"streamlint diff: {tool * 1000:7.1f} ms, median of {runs}")
    print(f"ratio: {tool / floor:.2f}x (target <= 1.30x)")
    print(f"CPU time (user + system): floor {floor_cpu * 1000:.1f} ms, streamlint "
          f"{tool_cpu * 1000:.1f} ms, ratio {tool_cpu / floor_cpu:.2f}x")
    print(f"pyspark imported by the static path: {'YES' if pyspark else 'no'}")
    print(f"sqlglot imported: {'yes' if sqlglot else 'no'}"
          + ("" if sql else " (must be no: this pair has no SQL statement)"))
    return bool(pyspark) or (bool(sqlglot) and not sql)


if __name__ == "__main__":
    sys.exit(main())
