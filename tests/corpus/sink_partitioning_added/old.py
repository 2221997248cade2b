# Raw access logs -> Parquet for Athena. Stateless, micro-batch every 2 minutes.
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, from_json, to_date

ACCESS_DDL = "request_id STRING, host STRING, path STRING, status INT, bytes LONG, latency_ms DOUBLE, ts TIMESTAMP"

spark = (
    SparkSession.builder.appName("access-logs-parquet")
    .config("spark.sql.parquet.compression.codec", "zstd")
    .config("spark.sql.files.maxRecordsPerFile", 5000000)
    .getOrCreate()
)

logs = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "logs-kafka:9092")
    .option("subscribe", "edge.access_logs")
    .option("maxOffsetsPerTrigger", 2000000)
    .load()
    .select(from_json(col("value").cast("string"), ACCESS_DDL).alias("l"))
    .select("l.*")
    .withColumn("dt", to_date("ts"))
)

(
    logs.writeStream.format("parquet")
    .option("path", "s3://edge-logs/access/")
    .option("checkpointLocation", "s3://edge-logs/_checkpoints/access/")
    .trigger(processingTime="2 minutes")
    .start()
)
spark.streams.awaitAnyTermination()
