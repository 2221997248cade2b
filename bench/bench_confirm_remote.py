"""Benchmark: seconds per pair for `--confirm --remote sc://HOST:PORT` (Spark Connect), in one
process, first contact with the server included in the first pair.

Usage: python bench/bench_confirm_remote.py sc://HOST:PORT [CASE_DIR ...]
A loopback server from the installed pyspark (what the suite uses):
  SPARK_HOME=$(python -c 'import pyspark, os; print(os.path.dirname(pyspark.__file__))')
  PYSPARK_PYTHON=$(which python) $SPARK_HOME/bin/spark-submit --master 'local[2]' \\
    --class org.apache.spark.sql.connect.service.SparkConnectServer \\
    --conf spark.connect.grpc.binding.port=15002 --conf spark.ui.enabled=false
Default pairs: a refused restart and a compatible refactor from tests/confirm_jobs.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

JOBS = Path(__file__).resolve().parent.parent / "tests" / "confirm_jobs"
DEFAULT = ["kafka_agg_count_added", "refactor_helper_extracted"]


def main(argv: list[str]) -> int:
    if not argv or not argv[0].startswith("sc://"):
        print(__doc__, file=sys.stderr)
        return 2
    url, cases = argv[0], [Path(a) for a in argv[1:]] or [JOBS / name for name in DEFAULT]
    from streamlint.spark.confirm import confirm_files
    from streamlint.spark.connect import connect_mode, start_remote_session

    took: list[float] = []
    with connect_mode():
        began = time.perf_counter()
        session = start_remote_session(url)
        contact = time.perf_counter() - began
        for case in cases:
            began = time.perf_counter()
            result = confirm_files(case / "old.py", case / "new.py", session)
            took.append(time.perf_counter() - began)
            outcomes = ", ".join(q.outcome for q in result.queries) or result.problem
            print(f"{took[-1]:6.1f} s  {case.name}: {outcomes}")
        session.stop()
    print(f"first contact {contact:.1f} s; pairs: median {statistics.median(took):.1f} s, "
          f"max {max(took):.1f} s over {len(took)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
