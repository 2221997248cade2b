"""Orders per customer and channel; the SQL now lives in the one .sql file next to the job."""
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

ORDER_DDL = "order_id STRING, customer_id STRING, channel STRING, total DOUBLE, created_at TIMESTAMP"
AGGREGATION = next(Path(__file__).parent.glob("*.sql")).read_text()

spark = SparkSession.builder.getOrCreate()
(
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "kafka.unreachable.invalid:9092")
    .option("subscribe", "shop.orders")
    .load()
    .select(F.from_json(F.col("value").cast("string"), ORDER_DDL).alias("o"))
    .select("o.*")
    .createOrReplaceTempView("orders")
)
per_customer = spark.sql(AGGREGATION)
(
    per_customer.writeStream.format("delta")
    .outputMode("complete")
    .option("checkpointLocation", "s3://shop/_chk/orders_per_customer")
    .toTable("gold.orders_per_customer")
    .awaitTermination()
)
