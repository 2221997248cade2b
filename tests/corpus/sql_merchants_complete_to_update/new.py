"""Card volume per merchant category, pushed to the risk service's Postgres after every batch.

Payments stream from the gateway's Delta table; merchants is a static reference table.
"""
from pyspark.sql import DataFrame, SparkSession

CHECKPOINT = "s3://risk-lake/_checkpoints/merchant_category_volume"
JDBC_URL = "jdbc:postgresql://risk-db.internal:5432/risk"


def push_to_risk_db(batch: DataFrame, batch_id: int) -> None:
    (
        batch.write.format("jdbc")
        .option("url", JDBC_URL)
        .option("dbtable", "staging.merchant_category_volume")
        .option("truncate", "true")
        .mode("overwrite")
        .save()
    )


spark = SparkSession.builder.appName("merchant-category-volume").getOrCreate()

spark.readStream.table("gateway.card_payments").createOrReplaceTempView("card_payments")
spark.read.table("ref.merchants").createOrReplaceTempView("merchants")

volume = spark.sql("""
    SELECT m.category,
           p.card_country,
           sum(p.amount) AS volume,
           count(*) AS payments
    FROM card_payments p
    JOIN merchants m ON p.merchant_id = m.merchant_id
    WHERE p.status = 'AUTHORIZED'
    GROUP BY m.category, p.card_country
""")

(
    volume.writeStream.foreachBatch(push_to_risk_db)
    .outputMode("update")
    .option("checkpointLocation", CHECKPOINT)
    .trigger(processingTime="5 minutes")
    .start()
    .awaitTermination()
)
