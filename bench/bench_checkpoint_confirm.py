"""Benchmark: seconds for `diff --checkpoint PATH NEW --confirm`'s Spark part on the fixture
checkpoints, in one process (one JVM): JVM start, the first checkpoint, each further one.

Usage: python bench/bench_checkpoint_confirm.py [FIXTURE_DIR ...]
Default: the aggregation fixtures of Spark 3.5.9 and 4.3.0 and the generated 3.3.4 / 4.1.4
ones, each with its own unchanged job (tests/checkpoint_jobs.py).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"
DEFAULT = [TESTS / "fixtures" / "checkpoints" / "spark-3.5.9" / "agg_hdfs",
           TESTS / "fixtures" / "checkpoints" / "spark-4.3.0" / "agg_hdfs",
           TESTS / "fixtures" / "checkpoints" / "spark-4.3.0" / "agg_rocksdb",
           TESTS / "fixtures" / "checkpoints-generated" / "spark-3.3.4" / "agg_hdfs",
           TESTS / "fixtures" / "checkpoints-generated" / "spark-4.1.4" / "dedup_then_agg"]


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(TESTS))
    from checkpoint_jobs import write_job

    from streamlint.checkpoint.reader import read_checkpoint
    from streamlint.spark.checkpoint_confirm import derive_state, spark_findings
    from streamlint.spark.runtime import start_session

    fixtures = [Path(a) for a in argv] or DEFAULT
    start = time.perf_counter()
    session = start_session()
    print(f"JVM and session start: {time.perf_counter() - start:.1f} s")
    took: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for fixture in fixtures:
            job = write_job(Path(tmp), fixture)
            began = time.perf_counter()
            checkpoint = read_checkpoint(str(fixture / "checkpoint"))
            state = derive_state(checkpoint, job, session)
            codes = [f.code for f in spark_findings(checkpoint, state, fixture.name)]
            took.append(time.perf_counter() - began)
            print(f"{fixture.parent.name}/{fixture.name}: {took[-1]:.1f} s, "
                  f"findings {codes or 'none'}")
    session.stop()
    print(f"first checkpoint {took[0]:.1f} s; further ones median "
          f"{statistics.median(took[1:] or took):.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
