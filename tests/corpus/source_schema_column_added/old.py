"""Landing -> bronze for partner delivery reports (CSV drops, fixed schema)."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

REPORT_SCHEMA = "partner_id STRING, delivery_id STRING, status STRING, delivered_at TIMESTAMP, signed_by STRING"
LANDING = "s3://partners-landing/delivery_reports/"
BRONZE = "s3://partners-lake/bronze/delivery_reports"


def main():
    spark = SparkSession.builder.appName("bronze-delivery-reports").getOrCreate()
    reports = (
        spark.readStream.format("csv")
        .schema(REPORT_SCHEMA)
        .option("header", "true")
        .option("maxFilesPerTrigger", 100)
        .load(LANDING)
        .withColumn("source_file", F.input_file_name())
        .withColumn("ingested_at", F.current_timestamp())
    )
    (
        reports.writeStream.format("delta")
        .option("checkpointLocation", f"{BRONZE}/_checkpoint")
        .option("mergeSchema", "true")
        .start(BRONZE)
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
