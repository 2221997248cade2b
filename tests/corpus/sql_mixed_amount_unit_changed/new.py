"""Hourly settled volume per merchant: parsed with DataFrame code, aggregated in SQL.

Settlement events arrive as JSON files from the acquirer's SFTP drop, copied to the landing zone.
"""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

LANDING = "s3://acquirer-landing/settlements/"
CHECKPOINT = "s3://acquirer-lake/_checkpoints/gold/settled_hourly"
SCHEMA = (
    "settlement_id STRING, merchant_id STRING, terminal_id STRING, amount_cents LONG, "
    "currency STRING, status STRING, settled_at TIMESTAMP"
)

spark = SparkSession.builder.appName("settled-hourly").getOrCreate()

settlements = (
    spark.readStream.schema(SCHEMA)
    .option("maxFilesPerTrigger", 50)
    .json(LANDING)
    .where(F.col("status") == "SETTLED")
    .withColumn("amount", F.col("amount_cents"))
    .withWatermark("settled_at", "30 minutes")
)
settlements.createOrReplaceTempView("settlements")

hourly = spark.sql("""
    SELECT merchant_id,
           window(settled_at, '1 hour') AS hour,
           sum(amount) AS settled_volume,
           count(*) AS settlements
    FROM settlements
    GROUP BY merchant_id, window(settled_at, '1 hour')
""")

(
    hourly.writeStream.format("parquet")
    .outputMode("append")
    .option("checkpointLocation", CHECKPOINT)
    .option("path", "s3://acquirer-lake/gold/settled_hourly/")
    .partitionBy("merchant_id")
    .start()
)
spark.streams.awaitAnyTermination()
