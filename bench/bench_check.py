"""Benchmark: `streamlint check --base` on a synthetic monorepo.

Usage: python bench/bench_check.py [--files 2000] [--jobs 400] [--changed 200] [--runs 3]
       [--keep DIR]

Builds a git repository of FILES Python files, JOBS of them streaming jobs (variants of the
realistic jobs in tests/jobs and examples/), commits, changes CHANGED jobs (windows, triggers,
filters, helper code) and as many plain modules, commits again, then runs
`streamlint check --base HEAD~1 --head HEAD` in fresh processes. Prints the median wall time,
the peak memory of the whole process tree (RSS of the command and its workers summed,
sampled every 10 ms from /proc) and the largest single process's peak (getrusage), against
the targets: under 10 s and under 200 MB. The CPU time of the command and its workers is
printed too: unlike the wall time it does not grow when other work shares the cores.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TEMPLATES = sorted((ROOT / "tests" / "jobs").glob("*.py")) + [
    ROOT / "examples" / "orders" / "old.py", ROOT / "examples" / "clickstream" / "old.py"]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

PLAIN_MODULE = '''"""Helpers for the {name} pipeline (not a streaming job)."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass
class Record{n}:
    key: str
    value: float
    tags: tuple[str, ...] = ()


def parse_{n}(line: str) -> Record{n}:
    data = json.loads(line)
    return Record{n}(data["key"], float(data.get("value", 0)), tuple(data.get("tags", ())))


def summarize_{n}(records: list[Record{n}]) -> dict[str, float]:
    totals: dict[str, float] = {{}}
    for record in records:
        totals[record.key] = totals.get(record.key, 0.0) + record.value
    return dict(sorted(totals.items()))
''' + "\n\n".join(f'''def transform_{{n}}_{i}(values: list[float]) -> list[float]:
    """Step {i} of the batch clean-up."""
    out = []
    for value in values:
        if value > {i}:
            out.append(value * {i + 1} - {i})
    return out''' for i in range(8)) + "\n"


# Each team's shared modules: every job imports its team's settings, and one job in four is
# split over modules (source and writer from common/io.py, the aggregation from
# common/transforms.py), so a changed helper re-judges the jobs that import it.
HELPER_SETTINGS = '''"""Settings shared by the {team} jobs."""

OWNER = "{team}"
CHECKPOINTS = "s3://lake/{team}/_checkpoints"
'''

HELPER_IO = '''"""Sources and sinks of the {team} jobs."""

from pyspark.sql import functions as F

from {team}.common.settings import CHECKPOINTS


def read_events(spark, topic):
    return (spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", "broker:9092")
            .option("subscribe", topic).load()
            .select(F.col("key").cast("string").alias("customer_id"),
                    F.col("timestamp").alias("event_time"),
                    F.length("value").alias("amount")))


def write_delta(df, name):
    return (df.writeStream.format("delta").outputMode("append")
            .option("checkpointLocation", f"{{CHECKPOINTS}}/{{name}}")
            .trigger(processingTime="1 minute"))
'''

HELPER_TRANSFORMS = '''"""Aggregations of the {team} jobs."""

from pyspark.sql import functions as F


def per_customer(df):
    return (df.withWatermark("event_time", "10 minutes")
            .groupBy(F.window("event_time", "5 minutes"), "customer_id")
            .agg(F.sum("amount").alias("total"), F.count("*").alias("events")))
'''

SPLIT_JOB = '''"""Job {n}: totals per customer, built by the team's shared modules."""

from pyspark.sql import SparkSession

from {team}.common.io import read_events, write_delta
from {team}.common.transforms import per_customer

spark = SparkSession.builder.appName("job-{n}").getOrCreate()
write_delta(per_customer(read_events(spark, "events_{n}")), "job_{n}").start("s3://lake/{team}/job_{n}")
'''


def job_variant(template: str, n: int) -> str:
    """A template job made distinct: its own paths, topics and checkpoints."""
    return re.sub(r'(["\'])(/|s3://|abfss://|dbfs:/)', rf"\1\2bench{n}/", template)


def change_job(text: str, rng: random.Random) -> str:
    """One realistic edit: a window or watermark duration, a trigger, or helper code."""
    durations = list(re.finditer(r'"(\d+) (seconds|minutes|hours)"', text))
    choice = rng.random()
    if durations and choice < 0.6:
        m = rng.choice(durations)
        return text[:m.start()] + f'"{int(m.group(1)) + 1} {m.group(2)}"' + text[m.end():]
    return text + "\n\ndef audit_note():\n    return 'reviewed'\n"


def build(repo: Path, files: int, jobs: int, changed: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    templates = [t.read_text(encoding="utf-8") for t in TEMPLATES]

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "bench@example.com")
    git("config", "user.name", "bench")
    paths: list[tuple[Path, bool]] = []
    teams = sorted({f"team_{n % 20:02d}" for n in range(min(files, 20))})
    for team in teams:
        for name, template in (("__init__", ""), ("settings", HELPER_SETTINGS),
                               ("io", HELPER_IO), ("transforms", HELPER_TRANSFORMS)):
            path = repo / team / "common" / f"{name}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(template.format(team=team), encoding="utf-8")
        (repo / team / "__init__.py").write_text("", encoding="utf-8")
    for n in range(files - 4 * len(teams)):
        team = f"team_{n % 20:02d}"
        if n < jobs and n % 4 == 0:
            path = repo / team / "jobs" / f"job_{n:04d}.py"
            text = SPLIT_JOB.format(team=team, n=n)
        elif n < jobs:
            path = repo / team / "jobs" / f"job_{n:04d}.py"
            text = (f"from {team}.common.settings import OWNER  # noqa: F401\n"
                    + job_variant(templates[n % len(templates)], n))
        else:
            path = repo / team / "lib" / f"module_{n:04d}.py"
            text = PLAIN_MODULE.format(name=team, n=n)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        paths.append((path, n < jobs))
    git("add", "-A")
    git("commit", "-qm", "base")
    job_paths = [p for p, is_job in paths if is_job]
    plain_paths = [p for p, is_job in paths if not is_job]
    for path in rng.sample(job_paths, changed):
        path.write_text(change_job(path.read_text(encoding="utf-8"), rng), encoding="utf-8")
    for path in rng.sample(plain_paths, min(changed, len(plain_paths))):
        path.write_text(path.read_text(encoding="utf-8") + "\n# touched\n", encoding="utf-8")
    # Shared modules change too: a window in 5 teams' transforms, a setting in 5 others'.
    changed_teams = rng.sample(teams, min(10, len(teams)))
    for i, team in enumerate(changed_teams):
        if i % 2 == 0:
            path = repo / team / "common" / "transforms.py"
            old, new = '"5 minutes"', '"6 minutes"'
        else:
            path = repo / team / "common" / "settings.py"
            old, new = "_checkpoints", "_checkpoints_v2"
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    git("add", "-A")
    git("commit", "-qm", "change")


def tree_rss_kb(pid: int) -> int:
    """RSS of a process and all its descendants, from /proc (Linux)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo.extend(children.get(current, []))
        try:
            with open(f"/proc/{current}/status", encoding="ascii") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def run_once(repo: Path, command: list[str]) -> tuple[float, int, int, int, float]:
    """(seconds, peak tree RSS in kB, exit code, the largest process's peak RSS in kB, CPU
    seconds of the command and its workers: the number a loaded machine does not change)."""
    peak = 0
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=repo, env=ENV, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss_kb(process.pid))
            time.sleep(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    # wait4 gives this child's own peak RSS (its workers are reaped by it, and counted in it)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    done.set()
    sampler.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, peak, process.returncode, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=400)
    parser.add_argument("--changed", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None,
                        help="build the repository here and leave it")
    args = parser.parse_args()
    repo = args.keep or Path(tempfile.mkdtemp(prefix="streamlint-bench-"))
    repo.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    build(repo, args.files, args.jobs, args.changed)
    print(f"built {args.files} files ({args.jobs} jobs, {args.changed} jobs and "
          f"{args.changed} modules changed, and 10 teams' shared modules that jobs import) in "
          f"{time.perf_counter() - started:.1f} s: {repo}")
    streamlint = shutil.which("streamlint", path=str(Path(sys.executable).parent)) or "streamlint"
    command = [streamlint, "check", "--base", "HEAD~1", "--head", "HEAD", "--format", "json"]
    print("command:", " ".join(command))
    times, peaks, biggest = [], [], []
    for _ in range(args.runs):
        elapsed, peak, code, maxrss, cpu = run_once(repo, command)
        times.append(elapsed)
        peaks.append(peak)
        biggest.append(maxrss)
        print(f"  {elapsed:.2f} s wall, {cpu:.2f} s CPU, peak tree RSS {peak / 1024:.0f} MB, "
              f"largest process {maxrss / 1024:.0f} MB, exit {code}")
    median = statistics.median(times)
    peak_mb = max(peaks) / 1024
    print(f"median {median:.2f} s (target < 10 s), peak tree RSS {peak_mb:.0f} MB "
          f"(target < 200 MB), on {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} (other work on the machine slows the wall time)")
    if args.keep is None:
        shutil.rmtree(repo, ignore_errors=True)
    return 0 if median < 10 and peak_mb < 200 else 1


if __name__ == "__main__":
    sys.exit(main())
