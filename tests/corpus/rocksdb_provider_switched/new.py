# Distinct listeners per track per hour (streaming dedup + aggregation) for the royalties report.
from pyspark.sql import SparkSession
import pyspark.sql.functions as f

spark = SparkSession.builder.appName("track-listeners").getOrCreate()
spark.conf.set("spark.sql.streaming.stateStore.maintenanceInterval", "60s")
# state outgrew the executors heap: move it to RocksDB
spark.conf.set(
    "spark.sql.streaming.stateStore.providerClass",
    "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
)

PLAY_DDL = "play_id STRING, track_id STRING, listener_id STRING, ms_played LONG, played_at TIMESTAMP"

plays = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "kafka:9092")
    .option("subscribe", "player.plays")
    .load()
    .select(f.from_json(f.col("value").cast("string"), PLAY_DDL).alias("p"))
    .select("p.*")
    .where(f.col("ms_played") >= 30000)
)

listeners = (
    plays.withWatermark("played_at", "1 hour")
    .groupBy(f.window("played_at", "1 hour"), "track_id")
    .agg(f.approx_count_distinct("listener_id").alias("listeners"), f.count("*").alias("plays"))
)

(
    listeners.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", "/mnt/royalties/_chk/track_listeners")
    .start("/mnt/royalties/gold/track_listeners")
)
spark.streams.awaitAnyTermination()
