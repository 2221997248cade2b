# nightly job
import sys
class Dedup:
    def __init__(self, cols):
        self.cols = cols
    def apply(self, df):
        return df.dropDuplicates(self.cols)
dedup = None if "--raw" in sys.argv else Dedup(["event_id"])
df = spark.readStream.format("kafka").option("subscribe", "events").load()
if dedup is not None:
    df = dedup.apply(df)
df.writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/out")
