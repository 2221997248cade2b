"""A job exported from a notebook: parameters come from the environment, argv, widgets
and a shared library, so several values are only known when the job runs."""
import os
import sys

from company.streaming.io import read_events  # a shared helper in another module
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()

TOPIC = os.environ["EVENTS_TOPIC"]
ENV = sys.argv[1]
CHECKPOINT_ROOT = dbutils.widgets.get("checkpoint_root")  # noqa: F821 - a Databricks global
SOURCE = os.environ.get("EVENTS_SOURCE")

# Query 1: values known only at run time.
events = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "events-kafka:9092")
    .option("subscribe", TOPIC)
    .load()
)
(
    events.writeStream.format("delta")
    .option("checkpointLocation", f"{CHECKPOINT_ROOT}/events")
    .start(f"/mnt/{ENV}/events")
)

# Query 2: the DataFrame comes from code in another module.
clicks = read_events(spark, "clicks")
clicks.writeStream.format("delta").option("checkpointLocation", "/mnt/chk/clicks").start(
    "/mnt/gold/clicks")

# Query 3: which source is read is decided by a run-time condition.
if SOURCE == "replay":
    audit = spark.readStream.format("delta").table("audit.events_replay")
else:
    audit = spark.readStream.format("kafka").option("subscribe", "audit").load()
audit = audit.where(F.col("kind") == "login")
audit.writeStream.format("delta").option("checkpointLocation", "/mnt/chk/audit").start(
    "/mnt/gold/audit")
