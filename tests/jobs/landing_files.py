"""Landing-zone ingestion: file feeds in five formats, unioned where they share a shape.

Five queries in one file, each with its own sink: parquet, a table, console, memory, noop.
"""
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, current_timestamp, input_file_name
from pyspark.sql.types import (
    DoubleType,
    IntegerType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

LANDING = "/mnt/landing"
BRONZE = "/mnt/bronze"
CHECKPOINTS = "/mnt/checkpoints/ingest"

# The same sensor record, once as a StructType and once as DDL.
SENSOR_STRUCT = StructType([
    StructField("sensor_id", StringType(), nullable=False),
    StructField("reading", DoubleType()),
    StructField("firmware", IntegerType()),
    StructField("read_at", TimestampType()),
])
SENSOR_DDL = "sensor_id STRING NOT NULL, reading DOUBLE, firmware INT, read_at TIMESTAMP"

spark = SparkSession.builder.appName("landing-ingest").getOrCreate()
spark.conf.set("spark.sql.shuffle.partitions", 8)

# Two sites deliver the sensor feed, one as JSON and one as CSV.
north = spark.readStream.schema(SENSOR_STRUCT).option("maxFilesPerTrigger", 20).json(
    f"{LANDING}/north")
south = (
    spark.readStream.schema(SENSOR_DDL)
    .option("header", True)
    .option("maxFilesPerTrigger", 20)
    .csv(f"{LANDING}/south")
)
sensors = north.unionByName(south).withColumn("ingested_at", current_timestamp())
(
    sensors.writeStream.format("parquet")
    .option("checkpointLocation", f"{CHECKPOINTS}/sensors")
    .partitionBy("firmware")
    .trigger(once=True)
    .start(f"{BRONZE}/sensors")
)

# Legacy exports: parquet and orc with the same schema, appended to one table.
legacy_parquet = spark.readStream.schema(SENSOR_DDL).parquet(f"{LANDING}/legacy/parquet")
legacy_orc = spark.readStream.schema(SENSOR_DDL).orc(f"{LANDING}/legacy/orc")
legacy = legacy_parquet.union(legacy_orc).where("reading is not null")
(
    legacy.writeStream.option("checkpointLocation", f"{CHECKPOINTS}/legacy")
    .queryName("legacy_sensors")
    .toTable("bronze.legacy_sensors")
)

# Operator notes arrive as plain text; keep the file name for lineage.
notes = spark.readStream.text(f"{LANDING}/notes").select(
    col("value").alias("note"), input_file_name().alias("file")
)
notes.writeStream.format("console").option("truncate", False).trigger(continuous="1 second").start()
notes.writeStream.format("memory").queryName("notes_preview").start()
notes.writeStream.format("noop").trigger(processingTime="30 seconds").start()
