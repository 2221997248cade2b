"""Facts about streaming DataFrames that the static reading relies on, measured on pyspark:
a batch action on a stream is refused, so such code starts no query
(extract/pyspark_api/dataframe.py consumes the stream there); a file source reads every
declared field as nullable (extract/schemas.as_read_by_a_file_source)."""

from __future__ import annotations

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("action", ["show", "count", "collect", "toPandas"])
def test_a_batch_action_on_a_stream_is_refused(spark: SparkSession, action: str) -> None:
    stream = spark.readStream.format("rate").load().select("value")
    with pytest.raises(AnalysisException, match=r"writeStream\.start\(\)"):
        getattr(stream, action)()
    assert not spark.streams.active


def test_a_file_source_reads_a_declared_not_null_field_as_nullable(
        spark: SparkSession, tmp_path) -> None:
    stream = spark.readStream.schema("id STRING NOT NULL, n INT NOT NULL").csv(str(tmp_path))
    assert [field.nullable for field in stream.schema.fields] == [True, True]


def test_a_dataframe_writer_in_a_row_wise_foreach_never_writes(
        spark: SparkSession, tmp_path) -> None:
    """`foreach` calls its function with a Row: `row.write...` fails (no such attribute), so
    the writes diff/compare.py reads from a foreach function's DataFrame writers are none;
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
