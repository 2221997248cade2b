from delta.tables import DeltaTable
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.getOrCreate()
TARGET = "main.silver.customers"


def upsert(micro_batch, batch_id):
    latest = micro_batch.dropDuplicates(["customer_id"])
    (DeltaTable.forName(spark, TARGET).alias("t")
        .merge(latest.alias("s"), "t.customer_id = s.customer_id")
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute())


cdc = (spark.readStream.format("delta").option("readChangeFeed", "true")
       .table("main.bronze.customers_cdc")
       .where(F.col("_change_type") != "update_preimage"))

(cdc.writeStream.foreachBatch(upsert)
    .option("checkpointLocation", "/chk/customers_upsert")
    .trigger(processingTime="1 minute")
    .start())
