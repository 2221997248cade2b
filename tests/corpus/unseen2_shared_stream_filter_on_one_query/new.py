import os
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("payments").getOrCreate()
DDL = "payment_id STRING, merchant STRING, amount DOUBLE, status STRING, ts TIMESTAMP"

payments = (spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", "kafka:9092")
            .option("subscribe", "payments")
            .load()
            .select(F.from_json(F.col("value").cast("string"), DDL).alias("p")).select("p.*")
            .withWatermark("ts", "15 minutes"))

raw_sink = (payments.where("status <> 'test'").writeStream.format("delta").outputMode("append")
            .option("checkpointLocation", "/chk/payments_raw").toTable("silver.payments"))

per_merchant = payments.groupBy(F.window("ts", "10 minutes"), "merchant").agg(F.sum("amount").alias("volume"))
agg_sink = (per_merchant.writeStream.format("delta").outputMode("append")
            .option("checkpointLocation", "/chk/payments_by_merchant").toTable("gold.payments_by_merchant"))
spark.streams.awaitAnyTermination()
