# Databricks notebook source
# MAGIC %md
# MAGIC # Gold: hourly ride revenue per city
# MAGIC
# MAGIC Reads the silver rides table as a stream, aggregates it in SQL and writes the gold table
# MAGIC the city dashboards read. Runs as a job task every 10 minutes (availableNow).

# COMMAND ----------

checkpoint = "dbfs:/pipelines/rides/_checkpoints/gold_city_hourly"

(spark.readStream
      .table("rides.silver_completed_rides")
      .withWatermark("dropoff_ts", "20 minutes")
      .createOrReplaceTempView("rides_stream"))

# COMMAND ----------

from pyspark.sql import functions as F

city_hourly = (spark.table("rides_stream")
                    .where(F.col("fare_amount") > 0)
                    .groupBy("city", F.window("dropoff_ts", "1 hour").alias("hour"))
                    .agg(F.sum(F.col("fare_amount") + F.col("tip_amount")).alias("revenue"),
                         F.count("*").alias("rides")))

# COMMAND ----------

(city_hourly
      .writeStream
      .format("delta")
      .outputMode("append")
      .option("checkpointLocation", checkpoint)
      .trigger(availableNow=True)
      .toTable("rides.gold_city_hourly"))

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT * FROM rides.gold_city_hourly ORDER BY hour DESC LIMIT 20
