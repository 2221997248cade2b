"""What Spark does with a batch action on a streaming DataFrame: it refuses it, so such code
starts no query (extract/pyspark_api/dataframe.py consumes the stream there)."""

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
