"""Customer profile feed: every projection PySpark offers, then a stateless sink.

Reads a Delta table of raw profile changes and shapes them for a search index.
"""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

SOURCE_TABLE = "crm.bronze.profile_changes"
TARGET = "/mnt/silver/profiles"

spark = SparkSession.builder.getOrCreate()

profiles = spark.readStream.format("delta").table(SOURCE_TABLE)
profiles = profiles.where("country IN ('DE', 'FR')")
profiles = profiles.select("customer_id", "email", "country", "updated_at", "raw_phone")
profiles = profiles.withColumn("email", F.lower("email"))
profiles = profiles.withColumns({
    "email_domain": F.split("email", "@").getItem(1),
    "is_eu": F.lit(True),
})
profiles = profiles.withColumnRenamed("updated_at", "changed_at")
profiles = profiles.drop("raw_phone")
profiles = profiles.selectExpr("*", "upper(country) AS country_code")

(
    profiles.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", "/mnt/chk/profiles")
    .option("mergeSchema", "true")
    .partitionBy("country_code")
    .trigger(processingTime="5 minutes")
    .start(TARGET)
)

# A second feed: email changes only, published for the notification service.
email_changes = (
    spark.readStream.format("delta")
    .option("readChangeFeed", "true")
    .option("startingVersion", 120)
    .table(SOURCE_TABLE)
    .where(F.col("_change_type") == "update_postimage")
    .selectExpr("CAST(customer_id AS STRING) AS key", "to_json(struct(email, country)) AS value")
)
(
    email_changes.writeStream.format("kafka")
    .option("kafka.bootstrap.servers", "notify-kafka:9092")
    .option("topic", "crm.email_changes")
    .option("checkpointLocation", "/mnt/chk/email_changes")
    .start()
)
