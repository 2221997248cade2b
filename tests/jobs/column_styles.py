"""The same windowed count written five ways: every column spelling PySpark accepts.

Each query groups by a 10-minute window over `ts` and by `user_id`, and counts events.
"""
import pyspark.sql.functions as F
from pyspark.sql import SparkSession
from pyspark.sql import functions as fn
from pyspark.sql.functions import col
from pyspark.sql.functions import window as w

spark = SparkSession.builder.getOrCreate()


def events():
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "k:9092")
        .option("subscribe", "events")
        .load()
        .selectExpr("CAST(key AS STRING) AS user_id", "timestamp AS ts")
        .withWatermark("ts", "5 minutes")
    )


def sink(df, name):
    return (
        df.writeStream.format("delta")
        .outputMode("append")
        .option("checkpointLocation", f"/chk/{name}")
        .start(f"/gold/{name}")
    )


# F.col from `import pyspark.sql.functions as F`
a = events()
sink(a.groupBy(F.window(F.col("ts"), "10 minutes"), F.col("user_id")).agg(
    F.count(F.col("user_id")).alias("n")), "a")

# fn from `from pyspark.sql import functions as fn`
b = events()
sink(b.groupBy(fn.window("ts", "10 minutes"), fn.col("user_id")).agg(
    fn.count("user_id").alias("n")), "b")

# col and w from `from pyspark.sql.functions import col, window as w`
c = events()
sink(c.groupBy(w(col("ts"), "10 minutes"), col("user_id")).agg(
    F.count(col("user_id")).alias("n")), "c")

# attribute access on the DataFrame
d = events()
sink(d.groupBy(F.window(d.ts, "10 minutes"), d.user_id).agg(F.count(d.user_id).alias("n")), "d")

# item access on the DataFrame
e = events()
sink(e.groupBy(F.window(e["ts"], "10 minutes"), e["user_id"]).agg(
    F.count(e["user_id"]).alias("n")), "e")
