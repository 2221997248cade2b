import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

raw = (spark.readStream.format("kafka")
       .option("kafka.bootstrap.servers", BOOTSTRAP)
       .option("subscribe", "orders_v2").load())
parsed = raw.select(F.from_json(F.col("value").cast("string"), SCHEMA).alias("o")).select("o.*")
parsed.withWatermark("event_time", "10 minutes").createOrReplaceTempView("orders_stream")

hourly = spark.sql("""
    SELECT window(event_time, '1 hour') AS w, customer_id, sum(amount) AS revenue
    FROM orders_stream
    GROUP BY window(event_time, '1 hour'), customer_id
""")
(hourly.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/hourly_revenue")
    .toTable("gold.hourly_revenue"))
