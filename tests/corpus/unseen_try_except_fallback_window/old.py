import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

try:
    from job_settings import WINDOW
except ImportError:
    WINDOW = "5 minutes"

src = spark.readStream.format("delta").load("/lake/silver/orders").withWatermark("event_time", "10 minutes")
agg = src.groupBy(F.window("event_time", WINDOW)).agg(F.count("*").alias("n"))
(agg.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/counts")
    .start("/lake/gold/counts"))
