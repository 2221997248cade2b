"""Where each card was used last in every 10 minutes, for the fraud team's velocity checks."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

PAYMENT_DDL = ("card_id STRING, merchant STRING, country STRING, amount_cents LONG, "
               "authorized_at TIMESTAMP")

spark = SparkSession.builder.appName("card-velocity").getOrCreate()
payments = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "kafka-payments.unreachable.invalid:9093")
    .option("subscribe", "payments.authorized")
    .option("startingOffsets", "latest")
    .load()
    .select(F.from_json(F.col("value").cast("string"), PAYMENT_DDL).alias("p"))
    .select("p.*")
    .withWatermark("authorized_at", "15 minutes")
)
velocity = payments.groupBy(F.window("authorized_at", "10 minutes"), "card_id").agg(
    F.count("*").alias("payments"),
    F.last("merchant").alias("merchant"),
)
(
    velocity.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", "s3://fraud-lake/_checkpoints/card_velocity")
    .toTable("fraud.gold.card_velocity")
)
