"""Revenue per merchant from the payments topic, upserted into the serving table each batch."""
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StringType, StructField, StructType, TimestampType

BROKERS = "kafka-payments-1.prod.internal:9092,kafka-payments-2.prod.internal:9092"
PAYMENT = StructType([
    StructField("payment_id", StringType()),
    StructField("merchant_id", StringType()),
    StructField("status", StringType()),
    StructField("amount", DoubleType()),
    StructField("paid_at", TimestampType()),
])


def upsert(batch: DataFrame, batch_id: int) -> None:
    batch.createOrReplaceTempView("updates")
    batch.sparkSession.sql(
        "MERGE INTO serving.merchant_revenue t USING updates s ON t.merchant_id = s.merchant_id "
        "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )


spark = SparkSession.builder.appName("merchant-revenue").getOrCreate()
payments = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", BROKERS)
    .option("subscribe", "payments.v1")
    .option("startingOffsets", "earliest")
    .load()
    .select(F.from_json(F.col("value").cast("string"), PAYMENT).alias("p"))
    .select("p.*")
    .where(F.col("status") == "settled")
)
revenue = payments.groupBy("merchant_id").agg(
    F.sum("amount").alias("revenue"), F.count("*").alias("payments")
)

(
    revenue.writeStream.foreachBatch(upsert)
    .outputMode("update")
    .option("checkpointLocation", "s3://payments-lake/_checkpoints/merchant_revenue")
    .trigger(processingTime="1 minute")
    .start()
    .awaitTermination()
)
