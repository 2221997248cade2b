import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

def parse(df):
    out = (df.select(F.from_json(F.col("value").cast("string"), SCHEMA).alias("o"))
             .select("o.*")
             .withWatermark("event_time", "30 minutes"))
    out = out.dropDuplicates(["order_id", "event_time"])
    return out

def kafka(topic):
    return (spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", BOOTSTRAP)
            .option("subscribe", topic).load())

for topic in ["orders", "returns"]:
    (parse(kafka(topic)).writeStream.format("delta")
        .option("checkpointLocation", f"/chk/silver_{topic}")
        .toTable(f"silver.{topic}"))
