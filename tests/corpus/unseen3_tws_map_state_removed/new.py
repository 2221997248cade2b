import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.streaming import StatefulProcessor, StatefulProcessorHandle

spark = SparkSession.builder.appName("tws").getOrCreate()

class Proc(StatefulProcessor):
    def init(self, handle: StatefulProcessorHandle) -> None:
        self.count = handle.getValueState("count", "n LONG")
        self.seen = handle.getListState("seen", "item STRING")

    def handleInputRows(self, key, rows, timerValues):
        yield pd.DataFrame({"id": [key[0]], "n": [1]})

    def close(self) -> None:
        pass

src = spark.readStream.format("delta").table("bronze.t")
out = src.groupBy("id").transformWithStateInPandas(
    statefulProcessor=Proc(), outputStructType="id STRING, n LONG", outputMode="Update", timeMode="None")
(out.writeStream.format("delta").outputMode("update")
    .option("checkpointLocation", "/chk/tws").toTable("gold.tws"))
