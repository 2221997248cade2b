# Databricks notebook source
# MAGIC %md
# MAGIC # Gold: hourly ride revenue per city
# MAGIC
# MAGIC Reads the silver rides table as a stream, aggregates it in SQL and writes the gold table
# MAGIC the city dashboards read. Runs as a job task every 10 minutes (availableNow).

# COMMAND ----------

dbutils.widgets.text("extra_filter", "1 = 1", "Extra SQL predicate")
checkpoint = "dbfs:/pipelines/rides/_checkpoints/gold_city_hourly"

(spark.readStream
      .table("rides.silver_completed_rides")
      .withWatermark("dropoff_ts", "20 minutes")
      .createOrReplaceTempView("rides_stream"))

# COMMAND ----------

extra_filter = dbutils.widgets.get("extra_filter")
spark.sql(f"""
    CREATE OR REPLACE TEMP VIEW city_hourly AS
    SELECT city,
           window(dropoff_ts, '1 hour') AS hour,
           sum(fare_amount + tip_amount) AS revenue,
           count(*) AS rides
    FROM rides_stream
    WHERE fare_amount > 0 AND ({extra_filter})
    GROUP BY city, window(dropoff_ts, '1 hour')
""")

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
