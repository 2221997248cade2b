from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("multi").getOrCreate()
spark.conf.set("spark.sql.streaming.checkpointLocation", "/chk/root")
DDL = "id STRING, region STRING, amount DOUBLE, ts TIMESTAMP"
parsed = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", "k:9092").option("subscribe", "orders").load()
          .select(F.from_json(F.col("value").cast("string"), DDL).alias("o")).select("o.*")
          .withColumn("region", F.upper("region"))
          .withWatermark("ts", "10 minutes"))
agg = (parsed.groupBy(F.window("ts", "10 minutes"), "region").agg(F.sum("amount").alias("v"))
       .writeStream.format("delta").queryName("orders_by_region").outputMode("append").toTable("gold.orders_by_region"))
raw = parsed.writeStream.format("delta").queryName("orders_raw").outputMode("append").toTable("silver.orders")
spark.streams.awaitAnyTermination()
