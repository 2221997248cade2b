"""Facts about streaming DataFrames that the static reading relies on, measured on pyspark:
a batch action on a stream is refused, so such code starts no query
(extract/pyspark_api/dataframe.py consumes the stream there); a file source reads every
declared field as nullable (extract/schemas.as_read_by_a_file_source); where a query without
checkpointLocation keeps its checkpoint (diff/compare.py `_pinning`, QY27/QY28), and that one
without a name starts anew (diff/unkept.py, QY30); a view of a batch query cannot be read as a
stream (extract/pipeline_datasets.py)."""

from __future__ import annotations

import os

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

pytestmark = [pytest.mark.spark, pytest.mark.versions]


@pytest.mark.parametrize("action", ["show", "count", "collect", "toPandas"])
def test_a_batch_action_on_a_stream_is_refused(spark: SparkSession, action: str) -> None:
    stream = spark.readStream.format("rate").load().select("value")
    with pytest.raises(AnalysisException, match=r"writeStream\.start\(\)"):
        getattr(stream, action)()
    assert not spark.streams.active


def test_a_view_of_a_batch_query_cannot_be_read_as_a_stream(spark: SparkSession) -> None:
    """`dlt.read_stream("v")` of a pipeline view whose query is batch: the flow never starts
    (extract/pipeline_datasets.py `_refused`)."""
    spark.range(3).createOrReplaceTempView("batch_view_read_as_stream")
    with pytest.raises(AnalysisException, match="not a temp view of streaming logical plan"):
        spark.readStream.table("batch_view_read_as_stream")
    spark.readStream.format("rate").load().createOrReplaceTempView("stream_view")
    assert spark.readStream.table("stream_view").isStreaming


def test_a_file_source_reads_a_declared_not_null_field_as_nullable(
        spark: SparkSession, tmp_path) -> None:
    stream = spark.readStream.schema("id STRING NOT NULL, n INT NOT NULL").csv(str(tmp_path))
    assert [field.nullable for field in stream.schema.fields] == [True, True]


def test_a_dataframe_writer_in_a_row_wise_foreach_never_writes(
        spark: SparkSession, tmp_path) -> None:
    """`foreach` calls its function with a Row: `row.write...` fails (no such attribute), so
    the writes diff/sinks.py reads from a foreach function's DataFrame writers are none;
    the same function under foreachBatch gets a DataFrame and writes."""
    from pyspark.errors import StreamingQueryException

    source, out = tmp_path / "in", tmp_path / "out"
    source.mkdir()
    (source / "a.json").write_text('{"id": 1}\n')
    stream = spark.readStream.schema("id INT").json(str(source))

    def write(frame) -> None:  # noqa: ANN001 - a Row under foreach, a DataFrame under foreachBatch
        frame.write.mode("append").parquet(str(out))

    query = (stream.writeStream.foreach(write).trigger(availableNow=True)
             .option("checkpointLocation", str(tmp_path / "c1")).start())
    with pytest.raises(StreamingQueryException, match="write"):
        query.awaitTermination()
    assert not out.exists()
    query = (stream.writeStream.foreachBatch(lambda batch, _: write(batch))
             .trigger(availableNow=True).option("checkpointLocation", str(tmp_path / "c2"))
             .start())
    query.awaitTermination()
    assert spark.read.parquet(str(out)).count() == 1


def _root(query) -> str:  # noqa: ANN001 - a pyspark StreamingQuery
    """The checkpoint folder Spark resolved for a started query."""
    return query._jsq.streamingQuery().resolvedCheckpointRoot()


@pytest.mark.parametrize("sink", ["console", "memory", "noop"])
def test_a_sink_that_keeps_no_output_runs_on_a_temporary_checkpoint(
        spark: SparkSession, sink: str) -> None:
    """QY27/QY28 (diff/compare.py `_pinning`): without checkpointLocation and without
    spark.sql.streaming.checkpointLocation, these sinks start on a temporary folder that is
    deleted when the query stops: no progress outlives the run."""
    assert spark.conf.get("spark.sql.streaming.checkpointLocation", None) is None
    writer = spark.readStream.format("rate").load().writeStream.format(sink)
    query = (writer.queryName("temp_ckpt") if sink == "memory" else writer).start()
    try:
        query.processAllAvailable()
        folder = _root(query).removeprefix("file:")
        assert os.path.isdir(folder)
    finally:
        query.stop()
    assert not os.path.exists(folder)


def test_a_sink_that_keeps_its_output_needs_a_checkpoint(spark: SparkSession, tmp_path) -> None:
    """QY01 for a dropped checkpointLocation of an unnamed query writing files: Spark refuses it."""
    stream = spark.readStream.format("rate").load()
    with pytest.raises(AnalysisException, match="checkpointLocation must be specified"):
        stream.writeStream.format("parquet").option("path", str(tmp_path / "out")).start()


def test_the_session_checkpoint_root_joins_the_query_name(spark: SparkSession, tmp_path) -> None:
    """Under spark.sql.streaming.checkpointLocation a query without checkpointLocation checkpoints
    in <root>/<queryName>, and in a new random folder on every start when it has no name
    (QY27: the old checkpoint under a root the code sets is never the new directory)."""
    root = tmp_path / "root"
    spark.conf.set("spark.sql.streaming.checkpointLocation", str(root))
    try:
        starts = []
        for name in (None, None, "orders"):
            writer = (spark.readStream.format("rate").load().writeStream.format("parquet")
                      .option("path", str(tmp_path / "out")))
            query = (writer.queryName(name) if name else writer).start()
            query.processAllAvailable()
            starts.append(_root(query).removeprefix("file:"))
            query.stop()
    finally:
        spark.conf.unset("spark.sql.streaming.checkpointLocation")
    assert starts[2] == str(root / "orders")
    assert starts[0] != starts[1]
    assert {os.path.dirname(s) for s in starts[:2]} == {str(root)}


def test_a_query_without_checkpoint_or_name_starts_anew_after_a_change(
        spark: SparkSession, tmp_path) -> None:
    """QY30 (diff/unkept.py): an unnamed foreachBatch query without checkpointLocation runs on
    a temporary checkpoint, so its next start, with sum swapped for max, begins at batch 0,
    reads every file again and keeps no state of the last run (from its checkpoint it would
    resume at batch 1, read only the new file, and fold it into the old state)."""
    assert spark.conf.get("spark.sql.streaming.checkpointLocation", None) is None
    source = tmp_path / "in"
    source.mkdir()
    (source / "a.json").write_text('{"k": "x", "v": 1}\n{"k": "x", "v": 5}\n')
    seen: list[tuple[int, list[tuple]]] = []

    def run(aggregate) -> str:
        stream = spark.readStream.schema("k string, v long").json(str(source))
        query = (stream.groupBy("k").agg(aggregate("v").alias("v")).writeStream
                 .outputMode("update")
                 .foreachBatch(lambda batch, n: seen.append(
                     (n, sorted(tuple(r) for r in batch.collect())))).start())
        try:
            query.processAllAvailable()
            return _root(query)
        finally:
            query.stop()

    first = run(F.sum)
    (source / "b.json").write_text('{"k": "x", "v": 2}\n')
    second = run(F.max)
    assert first != second
    assert seen == [(0, [("x", 6)]), (0, [("x", 5)])]
