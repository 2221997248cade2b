# Silver customer profile changes, from the CRM CDC topic.
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, from_json, lower, trim

CDC_DDL = """
  customer_id STRING, email STRING, first_name STRING, last_name STRING,
  phone STRING, country STRING, marketing_opt_in BOOLEAN, changed_at TIMESTAMP
"""

spark = SparkSession.builder.appName("silver-customers").getOrCreate()

changes = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "crm-kafka:9092")
    .option("subscribe", "crm.customers.cdc")
    .load()
    .select(from_json(col("value").cast("string"), CDC_DDL).alias("c"))
    .select("c.*")
)

profiles = changes.select(
    "customer_id",
    lower(trim(col("email"))).alias("email"),
    "country",
    "changed_at",
)

(
    profiles.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", "/mnt/crm/_checkpoints/silver_customers")
    .start("/mnt/crm/silver/customers")
    .awaitTermination()
)
