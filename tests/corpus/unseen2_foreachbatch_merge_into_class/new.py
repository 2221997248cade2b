from delta.tables import DeltaTable
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.getOrCreate()
TARGET = "main.silver.customers"


def _unused_upsert(micro_batch, batch_id):
    latest = micro_batch.dropDuplicates(["customer_id"])
    (DeltaTable.forName(spark, TARGET).alias("t")
        .merge(latest.alias("s"), "t.customer_id = s.customer_id")
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute())


cdc = (spark.readStream.format("delta").option("readChangeFeed", "true")
       .table("main.bronze.customers_cdc")
       .where(F.col("_change_type") != "update_preimage"))


class Upserter:
    def __init__(self, target):
        self.target = target

    def __call__(self, micro_batch, batch_id):
        (DeltaTable.forName(spark, self.target).alias("t")
            .merge(micro_batch.alias("s"), "t.customer_id = s.customer_id AND s._commit_version > t._commit_version")
            .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute())


(cdc.writeStream.foreachBatch(Upserter(TARGET))
    .option("checkpointLocation", "/chk/customers_upsert")
    .start())
