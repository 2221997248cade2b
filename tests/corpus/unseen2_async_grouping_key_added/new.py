import os
import functools
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("orders").getOrCreate()
DDL = "order_id STRING, region STRING, amount DOUBLE, ts TIMESTAMP"
import asyncio


async def build(keys):
    src = (spark.readStream.format("delta").table("silver.orders").withWatermark("ts", "10 minutes"))
    return src.groupBy(*keys).agg(F.sum("amount").alias("total"))


async def main():
    agg = await build(["region", "order_id"])
    q = (agg.writeStream.format("delta").outputMode("update")
         .option("checkpointLocation", "/chk/orders_async").toTable("gold.orders_async"))
    await asyncio.to_thread(q.awaitTermination)


if __name__ == "__main__":
    asyncio.run(main())
