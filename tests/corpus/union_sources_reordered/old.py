# Audit trail: user actions from the web app (Kafka) and the admin console (Delta), merged.
from pyspark.sql import SparkSession
from pyspark.sql.functions import col, from_json, lit

ACTION_DDL = "actor STRING, action STRING, target STRING, at TIMESTAMP"


def web_actions(spark):
    return (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", "kafka:9092")
        .option("subscribe", "webapp.audit")
        .load()
        .select(from_json(col("value").cast("string"), ACTION_DDL).alias("a"))
        .select("a.*")
        .withColumn("channel", lit("web"))
    )


def admin_actions(spark):
    return (
        spark.readStream.table("admin.audit_log")
        .select("actor", "action", "target", "at")
        .withColumn("channel", lit("admin"))
    )


if __name__ == "__main__":
    spark = SparkSession.builder.appName("audit-trail").getOrCreate()
    web = web_actions(spark)
    admin = admin_actions(spark)
    trail = web.unionByName(admin)
    (
        trail.writeStream.option("checkpointLocation", "/chk/security/audit_trail")
        .toTable("security.audit_trail")
        .awaitTermination()
    )
