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
