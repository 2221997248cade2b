"""Benchmark: seconds for `--confirm` on the first pair (JVM start included) and each further
pair, in one process (one JVM), as `streamlint diff --confirm` and the test suite use it.

Usage: python bench/bench_confirm.py [--phases] [CASE_DIR ...]
`--phases`: where the first pair's time goes (JVM start, static reading, plan runs, each
deployment run's start and wait, state reads), summed per phase over the pair.
Default pairs: the realistic job pairs of tests/confirm_jobs (except the slow
transformWithStateInPandas one, which starts an extra Python worker per run; pass its directory
to include it). Targets on the 2-core reference machine: first pair < 20 s, further < 4 s.
"""

from __future__ import annotations

import functools
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
JOBS = HERE.parent / "tests" / "confirm_jobs"
DEFAULT = ["kafka_agg_count_added", "refactor_helper_extracted", "kafka_window_widened",
           "dedup_keys_changed", "dedup_within_watermark", "source_topic_unioned",
           "sql_grouping_key_added", "join_key_added", "pandas_state_field_added"]
TABLES = {"customers": "customer_id STRING, segment STRING",
          "finance.refunds": "refund_id STRING, order_id STRING, amount DOUBLE, "
                             "refunded_at TIMESTAMP"}


def cpu_seconds() -> float:
    """CPU time of this process and its children (the JVM): wall time on a busy machine says
    little, CPU time says what the work costs. Linux only (/proc); 0 elsewhere."""
    found = subprocess.run(["pgrep", "-P", str(os.getpid())], capture_output=True, text=True)
    total = 0
    for pid in [os.getpid(), *map(int, found.stdout.split())]:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return total / os.sysconf("SC_CLK_TCK")


PHASES: dict[str, float] = {}


def _timed(owner: Any, name: str, phase: str) -> None:
    """Wrap `owner.name` so that its wall time adds to PHASES[phase]."""
    original = getattr(owner, name)

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            PHASES[phase] = PHASES.get(phase, 0.0) + time.perf_counter() - began

    setattr(owner, name, timed)


def _time_phases() -> None:
    import streamlint.spark.confirm as confirm
    import streamlint.spark.deployment as deployment
    import streamlint.spark.inferred_schemas as inferred

    _timed(confirm, "static_files", "static reading of both versions")
    _timed(inferred, "inferred_schemas", "tables' schemas inferred")
    _timed(confirm, "_versions", "Spark and Java versions asked")
    _timed(confirm, "_plans", "plan runs (both versions, no query started)")
    _timed(deployment.Deployment, "land", "synthetic batches written")
    _timed(deployment.Deployment, "start", "deployment runs: the job's code up to its starts")
    _timed(confirm, "finish_job", "deployment runs: waiting for the queries")
    _timed(confirm, "cancel_job", "deployment runs: cancelled")
    _timed(deployment.Deployment, "state", "state schemas read")


def main(argv: list[str]) -> int:
    phases = "--phases" in argv
    argv = [a for a in argv if a != "--phases"]
    cases = [Path(a) for a in argv] or [JOBS / name for name in DEFAULT]
    start = time.perf_counter()
    from streamlint.spark.confirm import confirm_files
    from streamlint.spark.runtime import start_session

    if phases:
        _time_phases()
    session = start_session()
    jvm = time.perf_counter() - start
    further: list[float] = []
    for index, case in enumerate(cases):
        began, cpu = time.perf_counter(), cpu_seconds()
        result = confirm_files(case / "old.py", case / "new.py", session, TABLES)
        took, cpu = time.perf_counter() - began, cpu_seconds() - cpu
        outcomes = ", ".join(q.outcome for q in result.queries) or result.problem
        if index == 0:
            print(f"first pair  {jvm + took:6.1f} s  (JVM start {jvm:.1f} s + {took:.1f} s, "
                  f"CPU {cpu:.1f} s)  {case.name}: {outcomes}")
            for phase, seconds in PHASES.items():
                print(f"    {seconds:6.1f} s  {phase}")
            PHASES.clear()
        else:
            further.append(took)
            print(f"further     {took:6.1f} s  (CPU {cpu:4.1f} s)  {case.name}: {outcomes}")
    if further:
        print(f"further pairs: median {statistics.median(further):.1f} s, "
              f"max {max(further):.1f} s over {len(further)}; "
              f"load average {os.getloadavg()[0]:.1f} (2 cores: above 2 the wall times grow)")
    session.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
