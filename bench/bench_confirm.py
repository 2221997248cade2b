"""Benchmark: seconds for `--confirm` on the first pair (JVM start included) and each further
pair, in one process (one JVM), as `streamlint diff --confirm` and the test suite use it.

Usage: python bench/bench_confirm.py [CASE_DIR ...]
Default pairs: the realistic job pairs of tests/confirm_jobs (except the slow
transformWithStateInPandas one, which starts an extra Python worker per run; pass its directory
to include it). Targets on the 2-core reference machine: first pair < 20 s, further < 4 s.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
JOBS = HERE.parent / "tests" / "confirm_jobs"
DEFAULT = ["kafka_agg_count_added", "refactor_helper_extracted", "kafka_window_widened",
           "dedup_keys_changed", "dedup_within_watermark", "source_topic_unioned",
           "sql_grouping_key_added", "join_key_added", "pandas_state_field_added"]
TABLES = {"customers": "customer_id STRING, segment STRING",
          "finance.refunds": "refund_id STRING, order_id STRING, amount DOUBLE, "
                             "refunded_at TIMESTAMP"}


def main(argv: list[str]) -> int:
    cases = [Path(a) for a in argv] or [JOBS / name for name in DEFAULT]
    start = time.perf_counter()
    from streamlint.spark.confirm import confirm_files
    from streamlint.spark.runtime import start_session

    session = start_session()
    jvm = time.perf_counter() - start
    further: list[float] = []
    for index, case in enumerate(cases):
        began = time.perf_counter()
        result = confirm_files(case / "old.py", case / "new.py", session, TABLES)
        took = time.perf_counter() - began
        outcomes = ", ".join(q.outcome for q in result.queries) or result.problem
        if index == 0:
            print(f"first pair  {jvm + took:6.1f} s  (JVM start {jvm:.1f} s + {took:.1f} s)  "
                  f"{case.name}: {outcomes}")
        else:
            further.append(took)
            print(f"further     {took:6.1f} s  {case.name}: {outcomes}")
    if further:
        print(f"further pairs: median {statistics.median(further):.1f} s, "
              f"max {max(further):.1f} s over {len(further)}")
    session.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
