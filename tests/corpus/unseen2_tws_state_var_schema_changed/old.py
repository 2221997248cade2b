import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.streaming import StatefulProcessor, StatefulProcessorHandle
from pyspark.sql.types import StructType, StructField, LongType, StringType

spark = SparkSession.builder.appName("device-counter").getOrCreate()

COUNT_SCHEMA = StructType([StructField("count", LongType(), True)])
OUT_SCHEMA = StructType([StructField("device_id", StringType(), True), StructField("count", LongType(), True)])


class CountProcessor(StatefulProcessor):
    def init(self, handle: StatefulProcessorHandle) -> None:
        self.count_state = handle.getValueState("count", COUNT_SCHEMA)

    def handleInputRows(self, key, rows, timerValues):
        total = self.count_state.get()[0] if self.count_state.exists() else 0
        for pdf in rows:
            total += len(pdf)
        self.count_state.update((total,))
        yield pd.DataFrame({"device_id": [key[0]], "count": [total]})

    def close(self) -> None:
        pass


readings = spark.readStream.format("delta").table("iot.readings")
counts = readings.groupBy("device_id").transformWithStateInPandas(
    statefulProcessor=CountProcessor(), outputStructType=OUT_SCHEMA, outputMode="Update", timeMode="None")
(counts.writeStream.format("delta").outputMode("update")
    .option("checkpointLocation", "/chk/device_counts").toTable("iot.device_counts"))
