"""Product catalogue updates from the PIM topic (the ERP export was switched off)."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

PRODUCT_DDL = "sku STRING, title STRING, brand STRING, price DOUBLE, updated_at TIMESTAMP"

spark = (
    SparkSession.builder.appName("catalogue-updates")
    .config("spark.sql.session.timeZone", "UTC")
    .config("spark.databricks.delta.schema.autoMerge.enabled", "true")
    .getOrCreate()
)

pim = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "kafka:9092")
    .option("subscribe", "pim.products")
    .load()
    .select(F.from_json(F.col("value").cast("string"), PRODUCT_DDL).alias("p"))
    .select("p.*")
    .withColumn("origin", F.lit("pim"))
)

query = (
    pim.writeStream.format("delta")
    .option("checkpointLocation", "s3://catalogue/_checkpoints/product_updates")
    .start("s3://catalogue/silver/product_updates")
)
print(f"catalogue updates running as {query.id}")
query.awaitTermination()
