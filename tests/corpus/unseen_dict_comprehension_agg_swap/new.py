import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

AGGS = {"amount": "sum", "discount": "min"}
FUNCS = {"sum": F.sum, "max": F.max, "min": F.min, "avg": F.avg}

src = (spark.readStream.format("delta").load("/lake/silver/orders")
       .withWatermark("event_time", "10 minutes"))
exprs = [FUNCS[fn](c).alias(f"{fn}_{c}") for c, fn in AGGS.items()]
out = src.groupBy(F.window("event_time", "1 hour"), "customer_id").agg(*exprs)
(out.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/stats_1h")
    .start("/lake/gold/stats_1h"))
