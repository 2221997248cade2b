"""Bounds: the inputs that once took minutes or gigabytes, each timed in a fresh process.

Usage: python bench/bench_bounds.py [--only NAME ...] [--keep DIR] [--timeout SECONDS]

Each input is written to a temp dir and checked with `python -m streamlint diff FILE FILE`
in a child process; the report gives the exit code, the wall time, the child's peak memory
(`ru_maxrss` of RUSAGE_CHILDREN) and stderr's first line. The bounds say every input gets an
answer within 10 s and 500 MB on the development machine, or an exit-2 refusal saying why.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAD = ("from pyspark.sql import SparkSession\nfrom pyspark.sql import functions as F\n"
        "spark = SparkSession.builder.getOrCreate()\n")


def chain_3000() -> str:
    """One chain of 3,000 calls."""
    steps = "".join(f"\n    .withColumn('c{i}', F.col('value'))" for i in range(3000))
    return (HEAD + "q = (spark.readStream.format('rate').load()" + steps +
            "\n    .writeStream.option('checkpointLocation', '/chk').start())\n")


def lines_50000() -> str:
    """A 50,000-line file: a real job's code repeated with its own names."""
    job = (ROOT / "tests" / "jobs" / "kafka_revenue.py").read_text()
    parts, count, copy = [], 0, 0
    while count < 50_000:
        text = job.replace("/chk", f"/chk{copy}").replace("def ", f"def c{copy}_")
        parts.append(text)
        count += text.count("\n")
        copy += 1
    return "".join(parts)


def queries_2000() -> str:
    """A file with 2,000 queries."""
    return HEAD + "".join(
        f"q{i} = spark.readStream.format('kafka').option('subscribe', 't{i}').load()"
        f".groupBy('key').count().writeStream.outputMode('update')"
        f".option('checkpointLocation', '/chk/{i}').start()\n" for i in range(2000))


def self_calling() -> str:
    """A helper calling itself twice per call (found by the fuzz): 2^depth calls."""
    return HEAD + (
        "def build(spark):\n"
        "    df = spark.readStream.format('rate').load()\n"
        "    df = df.where(build(spark).x == build(spark).y)\n"
        "    return df\n"
        "build(spark).writeStream.option('checkpointLocation', '/c').start()\n")


def fan_out() -> str:
    """40 helpers, each calling the next twice: no recursion, 2^40 calls."""
    defs = "".join(f"def f{i}(df):\n    return f{i + 1}(f{i + 1}(df))\n" for i in range(40))
    return HEAD + defs + "def f40(df):\n    return df.where('x > 1')\n" + (
        "f0(spark.readStream.format('rate').load())"
        ".writeStream.option('checkpointLocation', '/c').start()\n")


def long_loop() -> str:
    """A loop over a big literal range building a query per item."""
    return HEAD + ("for i in range(10**9):\n"
                   "    spark.readStream.format('rate').load().writeStream"
                   ".option('checkpointLocation', f'/c/{i}').start()\n")


def nested_900() -> str:
    """Brackets nested 900 deep (under the parser guard of 1,000)."""
    return HEAD + "x = " + "(" * 900 + "1" + ")" * 900 + (
        "\nspark.readStream.format('rate').load().writeStream.start()\n")


def long_sum() -> str:
    """One expression of 20,000 terms."""
    return HEAD + "x = " + " + ".join(["1"] * 20_000) + (
        "\nspark.readStream.format('rate').load().writeStream.start()\n")


def big_literal() -> str:
    """A 1.9 MB string literal in a job."""
    return HEAD + "s = '" + "x" * 1_900_000 + "'\n" + (
        "spark.readStream.format('rate').load().writeStream.start()\n")


def string_growth() -> str:
    """A string doubled 60 times: 2^60 characters if anything evaluated it eagerly."""
    return HEAD + "s = 'x'\n" + "s = s + s\n" * 60 + (
        "spark.readStream.format('rate').load().writeStream.option('checkpointLocation', s)"
        ".start()\n")


INPUTS: dict[str, Callable[[], str]] = {
    "chain_3000": chain_3000, "lines_50000": lines_50000, "queries_2000": queries_2000,
    "self_calling": self_calling, "fan_out": fan_out, "long_loop": long_loop,
    "nested_900": nested_900, "long_sum": long_sum, "big_literal": big_literal,
    "string_growth": string_growth,
}


def measure(path: Path, timeout: float) -> dict[str, object]:
    """Exit code, seconds, peak MB and stderr's first line of one diff in a fresh process."""
    script = ("import resource, subprocess, sys, time, json\n"
              "t = time.perf_counter()\n"
              "try:\n"
              "    p = subprocess.run(sys.argv[2:], capture_output=True, text=True,"
              " timeout=float(sys.argv[1]))\n"
              "    code, err = p.returncode, p.stderr\n"
              "except subprocess.TimeoutExpired as e:\n"
              "    code, err = 'timeout', ''\n"
              "took = time.perf_counter() - t\n"
              "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
              "print(json.dumps([code, took, rss, err]))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "STREAMLINT_NO_CACHE": "1"}
    # A fresh parent per input, so RUSAGE_CHILDREN holds this input's child alone.
    out = subprocess.run(
        [sys.executable, "-c", script, str(timeout), sys.executable, "-m", "streamlint",
         "diff", str(path), str(path)], capture_output=True, text=True, env=env, check=True)
    code, took, rss_kb, err = json.loads(out.stdout)
    return {"exit": code, "seconds": round(took, 2), "peak_mb": round(rss_kb / 1024, 1),
            "stderr": (err.strip().splitlines() or [""])[-1][:240]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(INPUTS), default=None)
    parser.add_argument("--keep", type=Path, default=None, help="write the inputs here")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="streamlint-bounds-"))
    folder.mkdir(parents=True, exist_ok=True)
    worst = 0.0
    for name in args.only or INPUTS:
        path = folder / f"{name}.py"
        path.write_text(INPUTS[name]())
        result = measure(path, args.timeout)
        size = path.stat().st_size
        print(f"{name:14} {size / 1e6:5.2f} MB  exit {result['exit']!s:7} "
              f"{result['seconds']:7.2f} s  {result['peak_mb']:7.1f} MB peak  "
              f"{result['stderr']}", flush=True)
        worst = max(worst, float(result["seconds"]))
    print(f"slowest: {worst:.2f} s "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
