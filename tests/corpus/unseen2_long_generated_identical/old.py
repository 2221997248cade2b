import os
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.appName("big").getOrCreate()


def helper_0_a(df):
    """Helper 0 a."""
    x = 0
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k0", F.lit(y))


def helper_0_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k0")
            .agg(F.sum("v").alias("s0"), F.count("*").alias("n0")))


src_0 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_0")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_0 = helper_0_b(helper_0_a(src_0))
q_0 = (out_0.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_0")
         .start("/lake/q_0"))


def helper_1_a(df):
    """Helper 1 a."""
    x = 1
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k1", F.lit(y))


def helper_1_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k1")
            .agg(F.sum("v").alias("s1"), F.count("*").alias("n1")))


src_1 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_1")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_1 = helper_1_b(helper_1_a(src_1))
q_1 = (out_1.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_1")
         .start("/lake/q_1"))


def helper_2_a(df):
    """Helper 2 a."""
    x = 2
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k2", F.lit(y))


def helper_2_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k2")
            .agg(F.sum("v").alias("s2"), F.count("*").alias("n2")))


src_2 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_2")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_2 = helper_2_b(helper_2_a(src_2))
q_2 = (out_2.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_2")
         .start("/lake/q_2"))


def helper_3_a(df):
    """Helper 3 a."""
    x = 3
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k3", F.lit(y))


def helper_3_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k3")
            .agg(F.sum("v").alias("s3"), F.count("*").alias("n3")))


src_3 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_3")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_3 = helper_3_b(helper_3_a(src_3))
q_3 = (out_3.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_3")
         .start("/lake/q_3"))


def helper_4_a(df):
    """Helper 4 a."""
    x = 4
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k4", F.lit(y))


def helper_4_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k4")
            .agg(F.sum("v").alias("s4"), F.count("*").alias("n4")))


src_4 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_4")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_4 = helper_4_b(helper_4_a(src_4))
q_4 = (out_4.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_4")
         .start("/lake/q_4"))


def helper_5_a(df):
    """Helper 5 a."""
    x = 5
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k5", F.lit(y))


def helper_5_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k5")
            .agg(F.sum("v").alias("s5"), F.count("*").alias("n5")))


src_5 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_5")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_5 = helper_5_b(helper_5_a(src_5))
q_5 = (out_5.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_5")
         .start("/lake/q_5"))


def helper_6_a(df):
    """Helper 6 a."""
    x = 6
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k6", F.lit(y))


def helper_6_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k6")
            .agg(F.sum("v").alias("s6"), F.count("*").alias("n6")))


src_6 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_6")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_6 = helper_6_b(helper_6_a(src_6))
q_6 = (out_6.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_6")
         .start("/lake/q_6"))


def helper_7_a(df):
    """Helper 7 a."""
    x = 7
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k7", F.lit(y))


def helper_7_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k7")
            .agg(F.sum("v").alias("s7"), F.count("*").alias("n7")))


src_7 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_7")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_7 = helper_7_b(helper_7_a(src_7))
q_7 = (out_7.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_7")
         .start("/lake/q_7"))


def helper_8_a(df):
    """Helper 8 a."""
    x = 8
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k8", F.lit(y))


def helper_8_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k8")
            .agg(F.sum("v").alias("s8"), F.count("*").alias("n8")))


src_8 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_8")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_8 = helper_8_b(helper_8_a(src_8))
q_8 = (out_8.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_8")
         .start("/lake/q_8"))


def helper_9_a(df):
    """Helper 9 a."""
    x = 9
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k9", F.lit(y))


def helper_9_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k9")
            .agg(F.sum("v").alias("s9"), F.count("*").alias("n9")))


src_9 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_9")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_9 = helper_9_b(helper_9_a(src_9))
q_9 = (out_9.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_9")
         .start("/lake/q_9"))


def helper_10_a(df):
    """Helper 10 a."""
    x = 10
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k10", F.lit(y))


def helper_10_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k10")
            .agg(F.sum("v").alias("s10"), F.count("*").alias("n10")))


src_10 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_10")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_10 = helper_10_b(helper_10_a(src_10))
q_10 = (out_10.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_10")
         .start("/lake/q_10"))


def helper_11_a(df):
    """Helper 11 a."""
    x = 11
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k11", F.lit(y))


def helper_11_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k11")
            .agg(F.sum("v").alias("s11"), F.count("*").alias("n11")))


src_11 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_11")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_11 = helper_11_b(helper_11_a(src_11))
q_11 = (out_11.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_11")
         .start("/lake/q_11"))


def helper_12_a(df):
    """Helper 12 a."""
    x = 12
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k12", F.lit(y))


def helper_12_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k12")
            .agg(F.sum("v").alias("s12"), F.count("*").alias("n12")))


src_12 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_12")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_12 = helper_12_b(helper_12_a(src_12))
q_12 = (out_12.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_12")
         .start("/lake/q_12"))


def helper_13_a(df):
    """Helper 13 a."""
    x = 13
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k13", F.lit(y))


def helper_13_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k13")
            .agg(F.sum("v").alias("s13"), F.count("*").alias("n13")))


src_13 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_13")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_13 = helper_13_b(helper_13_a(src_13))
q_13 = (out_13.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_13")
         .start("/lake/q_13"))


def helper_14_a(df):
    """Helper 14 a."""
    x = 14
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k14", F.lit(y))


def helper_14_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k14")
            .agg(F.sum("v").alias("s14"), F.count("*").alias("n14")))


src_14 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_14")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_14 = helper_14_b(helper_14_a(src_14))
q_14 = (out_14.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_14")
         .start("/lake/q_14"))


def helper_15_a(df):
    """Helper 15 a."""
    x = 15
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k15", F.lit(y))


def helper_15_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k15")
            .agg(F.sum("v").alias("s15"), F.count("*").alias("n15")))


src_15 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_15")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_15 = helper_15_b(helper_15_a(src_15))
q_15 = (out_15.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_15")
         .start("/lake/q_15"))


def helper_16_a(df):
    """Helper 16 a."""
    x = 16
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k16", F.lit(y))


def helper_16_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k16")
            .agg(F.sum("v").alias("s16"), F.count("*").alias("n16")))


src_16 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_16")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_16 = helper_16_b(helper_16_a(src_16))
q_16 = (out_16.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_16")
         .start("/lake/q_16"))


def helper_17_a(df):
    """Helper 17 a."""
    x = 17
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k17", F.lit(y))


def helper_17_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k17")
            .agg(F.sum("v").alias("s17"), F.count("*").alias("n17")))


src_17 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_17")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_17 = helper_17_b(helper_17_a(src_17))
q_17 = (out_17.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_17")
         .start("/lake/q_17"))


def helper_18_a(df):
    """Helper 18 a."""
    x = 18
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k18", F.lit(y))


def helper_18_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k18")
            .agg(F.sum("v").alias("s18"), F.count("*").alias("n18")))


src_18 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_18")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_18 = helper_18_b(helper_18_a(src_18))
q_18 = (out_18.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_18")
         .start("/lake/q_18"))


def helper_19_a(df):
    """Helper 19 a."""
    x = 19
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k19", F.lit(y))


def helper_19_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k19")
            .agg(F.sum("v").alias("s19"), F.count("*").alias("n19")))


src_19 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_19")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_19 = helper_19_b(helper_19_a(src_19))
q_19 = (out_19.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_19")
         .start("/lake/q_19"))


def helper_20_a(df):
    """Helper 20 a."""
    x = 20
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k20", F.lit(y))


def helper_20_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k20")
            .agg(F.sum("v").alias("s20"), F.count("*").alias("n20")))


src_20 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_20")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_20 = helper_20_b(helper_20_a(src_20))
q_20 = (out_20.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_20")
         .start("/lake/q_20"))


def helper_21_a(df):
    """Helper 21 a."""
    x = 21
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k21", F.lit(y))


def helper_21_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k21")
            .agg(F.sum("v").alias("s21"), F.count("*").alias("n21")))


src_21 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_21")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_21 = helper_21_b(helper_21_a(src_21))
q_21 = (out_21.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_21")
         .start("/lake/q_21"))


def helper_22_a(df):
    """Helper 22 a."""
    x = 22
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k22", F.lit(y))


def helper_22_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k22")
            .agg(F.sum("v").alias("s22"), F.count("*").alias("n22")))


src_22 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_22")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_22 = helper_22_b(helper_22_a(src_22))
q_22 = (out_22.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_22")
         .start("/lake/q_22"))


def helper_23_a(df):
    """Helper 23 a."""
    x = 23
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k23", F.lit(y))


def helper_23_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k23")
            .agg(F.sum("v").alias("s23"), F.count("*").alias("n23")))


src_23 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_23")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_23 = helper_23_b(helper_23_a(src_23))
q_23 = (out_23.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_23")
         .start("/lake/q_23"))


def helper_24_a(df):
    """Helper 24 a."""
    x = 24
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k24", F.lit(y))


def helper_24_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k24")
            .agg(F.sum("v").alias("s24"), F.count("*").alias("n24")))


src_24 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_24")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_24 = helper_24_b(helper_24_a(src_24))
q_24 = (out_24.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_24")
         .start("/lake/q_24"))


def helper_25_a(df):
    """Helper 25 a."""
    x = 25
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k25", F.lit(y))


def helper_25_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k25")
            .agg(F.sum("v").alias("s25"), F.count("*").alias("n25")))


src_25 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_25")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_25 = helper_25_b(helper_25_a(src_25))
q_25 = (out_25.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_25")
         .start("/lake/q_25"))


def helper_26_a(df):
    """Helper 26 a."""
    x = 26
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k26", F.lit(y))


def helper_26_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k26")
            .agg(F.sum("v").alias("s26"), F.count("*").alias("n26")))


src_26 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_26")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_26 = helper_26_b(helper_26_a(src_26))
q_26 = (out_26.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_26")
         .start("/lake/q_26"))


def helper_27_a(df):
    """Helper 27 a."""
    x = 27
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k27", F.lit(y))


def helper_27_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k27")
            .agg(F.sum("v").alias("s27"), F.count("*").alias("n27")))


src_27 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_27")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_27 = helper_27_b(helper_27_a(src_27))
q_27 = (out_27.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_27")
         .start("/lake/q_27"))


def helper_28_a(df):
    """Helper 28 a."""
    x = 28
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k28", F.lit(y))


def helper_28_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k28")
            .agg(F.sum("v").alias("s28"), F.count("*").alias("n28")))


src_28 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_28")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_28 = helper_28_b(helper_28_a(src_28))
q_28 = (out_28.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_28")
         .start("/lake/q_28"))


def helper_29_a(df):
    """Helper 29 a."""
    x = 29
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k29", F.lit(y))


def helper_29_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k29")
            .agg(F.sum("v").alias("s29"), F.count("*").alias("n29")))


src_29 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_29")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_29 = helper_29_b(helper_29_a(src_29))
q_29 = (out_29.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_29")
         .start("/lake/q_29"))


def helper_30_a(df):
    """Helper 30 a."""
    x = 30
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k30", F.lit(y))


def helper_30_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k30")
            .agg(F.sum("v").alias("s30"), F.count("*").alias("n30")))


src_30 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_30")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_30 = helper_30_b(helper_30_a(src_30))
q_30 = (out_30.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_30")
         .start("/lake/q_30"))


def helper_31_a(df):
    """Helper 31 a."""
    x = 31
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k31", F.lit(y))


def helper_31_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k31")
            .agg(F.sum("v").alias("s31"), F.count("*").alias("n31")))


src_31 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_31")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_31 = helper_31_b(helper_31_a(src_31))
q_31 = (out_31.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_31")
         .start("/lake/q_31"))


def helper_32_a(df):
    """Helper 32 a."""
    x = 32
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k32", F.lit(y))


def helper_32_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k32")
            .agg(F.sum("v").alias("s32"), F.count("*").alias("n32")))


src_32 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_32")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_32 = helper_32_b(helper_32_a(src_32))
q_32 = (out_32.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_32")
         .start("/lake/q_32"))


def helper_33_a(df):
    """Helper 33 a."""
    x = 33
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k33", F.lit(y))


def helper_33_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k33")
            .agg(F.sum("v").alias("s33"), F.count("*").alias("n33")))


src_33 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_33")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_33 = helper_33_b(helper_33_a(src_33))
q_33 = (out_33.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_33")
         .start("/lake/q_33"))


def helper_34_a(df):
    """Helper 34 a."""
    x = 34
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k34", F.lit(y))


def helper_34_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k34")
            .agg(F.sum("v").alias("s34"), F.count("*").alias("n34")))


src_34 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_34")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_34 = helper_34_b(helper_34_a(src_34))
q_34 = (out_34.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_34")
         .start("/lake/q_34"))


def helper_35_a(df):
    """Helper 35 a."""
    x = 35
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k35", F.lit(y))


def helper_35_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k35")
            .agg(F.sum("v").alias("s35"), F.count("*").alias("n35")))


src_35 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_35")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_35 = helper_35_b(helper_35_a(src_35))
q_35 = (out_35.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_35")
         .start("/lake/q_35"))


def helper_36_a(df):
    """Helper 36 a."""
    x = 36
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k36", F.lit(y))


def helper_36_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k36")
            .agg(F.sum("v").alias("s36"), F.count("*").alias("n36")))


src_36 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_36")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_36 = helper_36_b(helper_36_a(src_36))
q_36 = (out_36.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_36")
         .start("/lake/q_36"))


def helper_37_a(df):
    """Helper 37 a."""
    x = 37
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k37", F.lit(y))


def helper_37_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k37")
            .agg(F.sum("v").alias("s37"), F.count("*").alias("n37")))


src_37 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_37")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_37 = helper_37_b(helper_37_a(src_37))
q_37 = (out_37.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_37")
         .start("/lake/q_37"))


def helper_38_a(df):
    """Helper 38 a."""
    x = 38
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k38", F.lit(y))


def helper_38_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k38")
            .agg(F.sum("v").alias("s38"), F.count("*").alias("n38")))


src_38 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_38")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_38 = helper_38_b(helper_38_a(src_38))
q_38 = (out_38.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_38")
         .start("/lake/q_38"))


def helper_39_a(df):
    """Helper 39 a."""
    x = 39
    y = x * 2
    if y > 1000:
        return df
    return df.withColumn("k39", F.lit(y))


def helper_39_b(df):
    return (df.withWatermark("ts", "10 minutes")
            .groupBy(F.window("ts", "5 minutes"), "k39")
            .agg(F.sum("v").alias("s39"), F.count("*").alias("n39")))


src_39 = (spark.readStream.format("kafka")
           .option("kafka.bootstrap.servers", "kafka:9092")
           .option("subscribe", "topic_39")
           .load()
           .select(F.col("timestamp").alias("ts"), F.length("value").alias("v")))
out_39 = helper_39_b(helper_39_a(src_39))
q_39 = (out_39.writeStream.format("delta").outputMode("append")
         .option("checkpointLocation", "/chk/q_39")
         .start("/lake/q_39"))

spark.streams.awaitAnyTermination()
