"""What Spark does with two different queries on one checkpoint (QY11's evidence).

Runs real pyspark: a query runs on a checkpoint, then a different, aggregating query starts
on the same checkpoint in the same session.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark


def test_a_second_query_on_a_running_querys_checkpoint_stops_it_and_fails(
        spark, tmp_path: Path) -> None:
    from pyspark.errors import StreamingQueryException

    checkpoint = str(tmp_path / "chk")
    rows = spark.readStream.format("rate").option("rowsPerSecond", 5).load()
    first = (rows.writeStream.format("noop").trigger(processingTime="200 milliseconds")
             .option("checkpointLocation", checkpoint).start())
    try:
        deadline = time.monotonic() + 120
        while first.lastProgress is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert first.lastProgress is not None, "the first query never ran a batch"
        second = (rows.selectExpr("value % 3 AS k").groupBy("k").count().writeStream
                  .format("noop").outputMode("complete")
                  .option("checkpointLocation", checkpoint).start())
        try:
            # The checkpoint's metadata file holds the query id: the second query is the first.
            assert second.id == first.id
            assert not first.isActive  # stopped (spark.sql.streaming.stopActiveRunOnRestart)
            with pytest.raises(StreamingQueryException) as raised:
                second.awaitTermination(120)
            assert "STREAMING_STATEFUL_OPERATOR_MISSING_STATE_DIRECTORY" in str(raised.value)
        finally:
            second.stop()
    finally:
        first.stop()
