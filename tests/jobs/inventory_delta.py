"""Inventory: Delta streams -> grouped totals, rollups and cubes.

Sinks: an upsert with foreachBatch, a memory table for a dashboard, and a row-wise
foreach writer for alerts.
"""
from delta.tables import DeltaTable
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = (
    SparkSession.builder
    .config("spark.sql.shuffle.partitions", "200")
    .config("spark.sql.streaming.statefulOperator.checkCorrectness.enabled", True)
    .getOrCreate()
)

STOCK_TABLE = "inventory.silver.stock_movements"
WAREHOUSE_PATH = "/mnt/delta/warehouses"


def upsert_levels(batch_df, batch_id):
    # Merge the batch's totals into the gold table.
    target = DeltaTable.forName(batch_df.sparkSession, "inventory.gold.stock_levels")
    (
        target.alias("t")
        .merge(batch_df.alias("s"), "t.sku = s.sku AND t.warehouse = s.warehouse")
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute()
    )


class AlertWriter:
    def open(self, partition_id, epoch_id):
        return True

    def process(self, row):
        print(row)

    def close(self, error):
        pass


movements = (
    spark.readStream.format("delta")
    .option("maxFilesPerTrigger", 100)
    .option("ignoreDeletes", "true")
    .table(STOCK_TABLE)
)
warehouses = spark.readStream.format("delta").option("readChangeFeed", "true").load(WAREHOUSE_PATH)

levels = movements.drop_duplicates(["movement_id"]).groupby("sku", "warehouse").sum("quantity")
(
    levels.writeStream.foreachBatch(upsert_levels)
    .outputMode("update")
    .option("checkpointLocation", "/mnt/chk/levels")
    .start()
)

by_region = movements.rollup("region", "sku").count()
by_region.writeStream.format("memory").outputMode("complete").queryName("region_rollup").start()

capacity = warehouses.dropDuplicates().cube(F.col("region"), F.col("kind")).agg(F.max("capacity"))
(
    capacity.writeStream.foreach(AlertWriter())
    .outputMode("complete")
    .option("checkpointLocation", "/mnt/chk/capacity")
    .start()
)
