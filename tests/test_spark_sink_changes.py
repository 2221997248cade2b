"""Changes of a query's sink type on one checkpoint, measured on pyspark (rules/sinks.toml).

Spark's guide says a Kafka sink changed to a file sink "is not allowed". The reason is the file
sink's own log (`_spark_metadata` in the output directory): it compacts every
`spark.sql.streaming.fileSink.log.compactInterval` batches (10 by default) and needs the log of
the batches before, and a file sink that takes over a checkpoint at batch N has none of batches
0..N-1: the query fails with BATCH_METADATA_NOT_FOUND at its first compaction. That holds
whatever sink wrote those batches (SK02 for Kafka, SK13 for the others): here a foreachBatch
sink, then a parquet sink on the same checkpoint.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from pyspark.errors import StreamingQueryException
from pyspark.sql import SparkSession

pytestmark = pytest.mark.spark

SCHEMA = "id INT"


def _land(inbox: Path, batch: int) -> None:
    (inbox / f"part-{batch:03d}.json").write_text(json.dumps({"id": batch}) + "\n")


def _stream(spark: SparkSession, inbox: Path):  # noqa: ANN202 - a pyspark DataFrame
    return spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(inbox))



@contextmanager
def _compacting_every_two_batches(spark: SparkSession) -> Iterator[None]:
    """The file sink's log compacted every 2 batches (10 by default), the session's own
    setting restored after."""
    key = "spark.sql.streaming.fileSink.log.compactInterval"
    previous = spark.conf.get(key)
    spark.conf.set(key, "2")
    try:
        yield
    finally:
        spark.conf.set(key, previous)


def test_a_file_sink_taking_over_a_foreach_batch_checkpoint_fails_at_its_compaction(
        spark: SparkSession, tmp_path: Path) -> None:
    inbox, out, chk = tmp_path / "in", tmp_path / "out", tmp_path / "chk"
    inbox.mkdir()
    for batch in range(3):
        _land(inbox, batch)
    old = (_stream(spark, inbox).writeStream.foreachBatch(lambda df, _id: df.count())
           .option("checkpointLocation", str(chk)).trigger(availableNow=True).start())
    old.awaitTermination()
    for batch in range(3, 6):
        _land(inbox, batch)
    with _compacting_every_two_batches(spark):
        new = (_stream(spark, inbox).writeStream.format("parquet")
               .option("checkpointLocation", str(chk)).trigger(availableNow=True)
               .start(str(out)))
        with pytest.raises(StreamingQueryException,
                           match="BATCH_METADATA_NOT_FOUND.*_spark_metadata"):
            new.awaitTermination()


def test_a_file_sink_from_batch_zero_compacts_without_error(
        spark: SparkSession, tmp_path: Path) -> None:
    """The counterpart: the same file sink on a fresh checkpoint compacts its own log."""
    inbox, out, chk = tmp_path / "in", tmp_path / "out", tmp_path / "chk"
    inbox.mkdir()
    for batch in range(6):
        _land(inbox, batch)
    with _compacting_every_two_batches(spark):
        new = (_stream(spark, inbox).writeStream.format("parquet")
               .option("checkpointLocation", str(chk)).trigger(availableNow=True)
               .start(str(out)))
        new.awaitTermination()
    assert sorted(r.id for r in spark.read.parquet(str(out)).collect()) == list(range(6))
