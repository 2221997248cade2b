from pyspark.sql import SparkSession, functions as F
from pyspark.sql.types import *

spark = SparkSession.builder.appName("job").getOrCreate()
DDL = "user_id STRING, account STRING, merchant STRING, region STRING, amount DOUBLE, qty LONG, ts TIMESTAMP"
events = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", "k:9092")
          .option("subscribe", "events").load()
          .select(F.from_json(F.col("value").cast("string"), DDL).alias("e")).select("e.*")
          .withWatermark("ts", "10 minutes"))
imps = (spark.readStream.format("delta").table("bronze.imps").withWatermark("imp_time", "1 hour"))
clicks = (spark.readStream.format("delta").table("bronze.clicks").withWatermark("click_time", "2 hours"))
out = imps.alias("i").join(clicks.alias("c"), (F.col("i.imp_ad") == F.col("c.click_ad")) & F.expr("c.click_time BETWEEN i.imp_time AND i.imp_time + interval 1 hour"))

(out.writeStream.format("delta").outputMode("append")
    .option("checkpointLocation", "/chk/job").toTable("gold.out"))
