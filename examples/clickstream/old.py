"""Clickstream sessionisation: Delta bronze -> sessions per user, upserted with foreachBatch."""
from delta.tables import DeltaTable
from pyspark.sql import SparkSession
import pyspark.sql.functions as f

BRONZE = "main.web.bronze_clicks"
SILVER = "main.web.user_activity"
CHECKPOINT = "/Volumes/main/web/checkpoints/user_activity"


class UserActivityJob:
    WATERMARK = "30 minutes"

    def __init__(self, spark: SparkSession, max_files: int = 500):
        self.spark = spark
        self.max_files = max_files

    def clicks(self):
        return (
            self.spark.readStream.format("delta")
            .option("maxFilesPerTrigger", self.max_files)
            .table(BRONZE)
            .where(f.col("user_id").isNotNull())
        )

    def activity(self, clicks):
        return (
            clicks.withWatermark("event_ts", self.WATERMARK)
            .groupBy("user_id", f.window("event_ts", "1 hour"))
            .agg(f.count("*").alias("clicks"), f.approx_count_distinct("page").alias("pages"))
        )

    def upsert(self, batch_df, batch_id):
        target = DeltaTable.forName(batch_df.sparkSession, SILVER)
        (target.alias("t")
         .merge(batch_df.alias("s"), "t.user_id = s.user_id AND t.window = s.window")
         .whenMatchedUpdateAll()
         .whenNotMatchedInsertAll()
         .execute())

    def run(self):
        query = (
            self.activity(self.clicks())
            .writeStream.foreachBatch(self.upsert)
            .outputMode("update")
            .option("checkpointLocation", CHECKPOINT)
            .trigger(processingTime="5 minutes")
            .start()
        )
        query.awaitTermination()


if __name__ == "__main__":
    UserActivityJob(SparkSession.builder.getOrCreate()).run()
