# Revenue per product line per day, upserted into the finance mart.
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, from_json, sum as sum_, to_date

SALE_DDL = "sale_id STRING, product_line STRING, gross_cents LONG, net_cents LONG, tax_cents LONG, sold_at TIMESTAMP"
MART = "finance.revenue_daily"


def upsert(batch, batch_id):
    batch.createOrReplaceTempView("revenue_updates")
    batch.sparkSession.sql(
        f"""
        MERGE INTO {MART} t
        USING revenue_updates s
        ON t.product_line = s.product_line AND t.day = s.day
        WHEN MATCHED THEN UPDATE SET t.revenue_cents = s.revenue_cents
        WHEN NOT MATCHED THEN INSERT *
        """
    )


spark = SparkSession.builder.appName("revenue-daily").getOrCreate()
sales = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "kafka:9092")
    .option("subscribe", "pos.sales")
    .load()
    .select(from_json(col("value").cast("string"), SALE_DDL).alias("s"))
    .select("s.*")
)
daily = sales.groupBy(to_date("sold_at").alias("day"), "product_line").agg(
    sum_("gross_cents").alias("revenue_cents")
)
daily.writeStream.outputMode("update").foreachBatch(upsert).option(
    "checkpointLocation", "/chk/finance/revenue_daily"
).start().awaitTermination()
