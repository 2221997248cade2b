"""Running spend per loyalty member, published to Kafka for the app's points banner.

Receipts come from the POS Kafka topic; the banner service reads member.spend compacted by key.
"""
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

BROKERS = "pos-kafka-1:9092,pos-kafka-2:9092"
CHECKPOINT = "hdfs:///checkpoints/loyalty/member_spend"
RECEIPT_SCHEMA = "receipt_id STRING, member_id STRING, store_id STRING, total DOUBLE, items INT, ts TIMESTAMP"

spark = SparkSession.builder.appName("member-spend").getOrCreate()

receipts = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", BROKERS)
    .option("subscribe", "pos.receipts")
    .load()
    .select(F.from_json(F.col("value").cast("string"), RECEIPT_SCHEMA).alias("r"))
    .select("r.*")
    .where(F.col("member_id").isNotNull())
)
receipts.createOrReplaceTempView("receipts")

spark.sql("""
    CREATE OR REPLACE TEMP VIEW member_spend AS
    SELECT member_id, sum(total) AS spend, sum(items) AS items, count(*) AS visits
    FROM receipts
    GROUP BY member_id
""")

payload = spark.sql("""
    SELECT member_id AS key,
           to_json(named_struct('member_id', member_id, 'spend', spend, 'visits', visits)) AS value
    FROM member_spend
""")

(
    payload.writeStream.format("kafka")
    .option("kafka.bootstrap.servers", BROKERS)
    .option("topic", "member.spend.v2")
    .option("checkpointLocation", CHECKPOINT)
    .outputMode("update")
    .start()
    .awaitTermination()
)
