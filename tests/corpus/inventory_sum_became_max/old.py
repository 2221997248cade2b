"""Warehouse stock movements -> stock level per SKU and warehouse (complete mode, small table)."""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType, TimestampType

MOVEMENT = StructType([
    StructField("movement_id", StringType()),
    StructField("sku", StringType()),
    StructField("warehouse", StringType()),
    StructField("delta_units", LongType()),
    StructField("moved_at", TimestampType()),
])


def stock_levels(spark: SparkSession):
    movements = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "kafka.wms:9092")
        .option("subscribe", "wms.stock_movements")
        .option("failOnDataLoss", "false")
        .load()
        .select(F.from_json(F.col("value").cast("string"), MOVEMENT).alias("m"))
        .select("m.*")
    )
    return movements.groupBy("sku", "warehouse").agg(F.sum("delta_units").alias("units"))


if __name__ == "__main__":
    spark = SparkSession.builder.appName("stock-levels").getOrCreate()
    (
        stock_levels(spark)
        .writeStream.format("delta")
        .outputMode("complete")
        .option("checkpointLocation", "s3://wms-lake/_checkpoints/stock_levels")
        .start("s3://wms-lake/gold/stock_levels")
        .awaitTermination()
    )
