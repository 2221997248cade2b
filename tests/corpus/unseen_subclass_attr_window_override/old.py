import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

class BaseAgg:
    WATERMARK = "10 minutes"
    WINDOW = "5 minutes"
    CHECKPOINT = "/chk/base"

    def run(self):
        src = (spark.readStream.format("delta").load("/lake/silver/orders")
               .withWatermark("event_time", self.WATERMARK))
        out = src.groupBy(F.window("event_time", self.WINDOW)).agg(F.count("*").alias("n"))
        (out.writeStream.format("delta").outputMode("append")
            .option("checkpointLocation", self.CHECKPOINT)
            .start("/lake/gold/" + type(self).__name__.lower()))

class OrdersAgg(BaseAgg):
    CHECKPOINT = "/chk/orders_agg"
    pass

OrdersAgg().run()
