from pathlib import Path
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("latency").getOrCreate()

TOPICS = ["payments.card", "payments.sepa", "payments.legacy"]
raw = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", "kafka:9092")
       .option("subscribe", ",".join(TOPICS[:2])).load())
raw.writeStream.format("delta").option("checkpointLocation", "/chk/payments_raw").toTable("bronze.payments")
