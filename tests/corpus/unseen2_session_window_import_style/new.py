import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders-rollup").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092")
ORDER_DDL = "order_id STRING, customer_id STRING, region STRING, amount DOUBLE, event_time TIMESTAMP"
from pyspark.sql.functions import session_window, col, count, lit

clicks = (spark.readStream.format("delta").table("silver.clicks")
          .withWatermark("event_time", "30 minutes"))
sessions = (clicks.groupBy(session_window(col("event_time"), gapDuration="10 minutes"), col("customer_id"))
            .agg(count(lit(1)).alias("clicks")))
(sessions.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/sessions").toTable("gold.sessions"))
