"""Support tickets: open ticket counts per queue and priority, pushed to the ops DB."""
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

JDBC_URL = "jdbc:postgresql://ops-db:5432/ops"
TICKET_DDL = "ticket_id STRING, queue STRING, priority STRING, status STRING, updated_at TIMESTAMP"


def write_counts(batch: DataFrame, batch_id: int) -> None:
    (
        batch.withColumn("batch_id", F.lit(batch_id))
        .write.format("jdbc")
        .option("url", JDBC_URL)
        .option("dbtable", "public.ticket_counts_staging")
        .mode("append")
        .save()
    )


def main() -> None:
    spark = SparkSession.builder.appName("ticket-counts").getOrCreate()
    tickets = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "kafka:9092")
        .option("subscribe", "support.tickets")
        .load()
        .select(F.from_json(F.col("value").cast("string"), TICKET_DDL).alias("t"))
        .select("t.*")
        .where(F.col("status") == "open")
    )
    counts = tickets.groupBy("queue", "priority").agg(F.count("*").alias("open_tickets"))
    (
        counts.writeStream.outputMode("complete")
        .foreachBatch(write_counts)
        .option("checkpointLocation", "/chk/support/ticket_counts")
        .trigger(processingTime="1 minute")
        .start()
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
