import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, DoubleType, TimestampType, LongType

spark = SparkSession.builder.appName("job").getOrCreate()
BOOTSTRAP = os.environ.get("KAFKA_BOOTSTRAP", "broker-1:9092,broker-2:9092")
SCHEMA = "order_id STRING, customer_id STRING, amount DOUBLE, event_time TIMESTAMP"

from delta.tables import DeltaTable

TARGET = "gold.customers"

def upsert(batch_df, batch_id):
    target = DeltaTable.forName(batch_df.sparkSession, TARGET)
    (target.alias("t").merge(batch_df.alias("s"), "t.customer_id = s.customer_id AND t.region = s.region")
        .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute())

src = spark.readStream.format("delta").load("/lake/silver/customers")
(src.writeStream.foreachBatch(upsert)
    .option("checkpointLocation", "/chk/customers_upsert")
    .start())
