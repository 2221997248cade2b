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
# MAGIC -- revenue includes tips since the 2024 pricing change
# MAGIC create or replace temp view city_hourly as
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
# MAGIC SELECT city, sum(revenue) FROM rides.gold_city_hourly GROUP BY city
