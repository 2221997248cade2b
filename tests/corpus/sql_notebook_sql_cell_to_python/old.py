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

# MAGIC %sql
# MAGIC CREATE OR REPLACE TEMP VIEW city_hourly AS
# MAGIC SELECT city,
# MAGIC        window(dropoff_ts, '1 hour') AS hour,
# MAGIC        sum(fare_amount + tip_amount) AS revenue,
# MAGIC        count(*) AS rides
# MAGIC FROM rides_stream
# MAGIC WHERE fare_amount > 0
# MAGIC GROUP BY city, window(dropoff_ts, '1 hour')

# COMMAND ----------

(spark.table("city_hourly")
      .writeStream
      .format("delta")
      .outputMode("append")
      .option("checkpointLocation", checkpoint)
      .trigger(availableNow=True)
      .toTable("rides.gold_city_hourly"))

# COMMAND ----------

# MAGIC %sql
# MAGIC SELECT * FROM rides.gold_city_hourly ORDER BY hour DESC LIMIT 20
