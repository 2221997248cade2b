"""CDC upsert of customer addresses into the silver Delta table (foreachBatch + MERGE)."""
from delta.tables import DeltaTable
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

TARGET = "crm.silver.customer_addresses"
CDC_DDL = "customer_id STRING, address_id STRING, line1 STRING, city STRING, zip STRING, op STRING, lsn LONG"


def upsert_addresses(micro_batch: DataFrame, batch_id: int) -> None:
    target = DeltaTable.forName(micro_batch.sparkSession, TARGET)
    (
        target.alias("t")
        .merge(micro_batch.alias("s"), "t.address_id = s.address_id")
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute()
    )


def main() -> None:
    spark = SparkSession.builder.appName("customer-addresses-upsert").getOrCreate()
    cdc = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "debezium-kafka:9092")
        .option("subscribe", "crm.public.addresses")
        .load()
        .select(F.from_json(F.col("value").cast("string"), CDC_DDL).alias("c"))
        .select("c.*")
    )
    (
        cdc.writeStream.foreachBatch(upsert_addresses)
        .option("checkpointLocation", "/chk/crm/customer_addresses")
        .start()
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
