"""Silver web sessions: bronze events enriched with parsed user agent, appended to a UC table."""
from pyspark.sql import SparkSession
import pyspark.sql.functions as f

CATALOG = "web"
SOURCE = f"{CATALOG}.bronze.page_events"
TARGET = f"{CATALOG}.silver.page_events"
CHECKPOINT = "/Volumes/web/silver/checkpoints/page_events"


def transform(df):
    return (
        df.where(f.col("bot_score") < 0.8)
        .withColumn("browser", f.regexp_extract("user_agent", r"(Chrome|Firefox|Safari|Edge)", 1))
        .withColumn("event_date", f.to_date("event_ts"))
        .drop("user_agent")
    )


def main():
    spark = SparkSession.builder.getOrCreate()
    events = spark.readStream.option("skipChangeCommits", "true").table(SOURCE)
    (
        transform(events)
        .writeStream.option("checkpointLocation", CHECKPOINT)
        .trigger(availableNow=True)
        .toTable(TARGET)
        .awaitTermination()
    )


if __name__ == "__main__":
    main()
