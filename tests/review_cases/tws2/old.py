import sys
from pyspark.sql.streaming import StatefulProcessor

class A(StatefulProcessor):
    def init(self, handle):
        self.s = handle.getValueState("count", "count LONG")
    def handleInputRows(self, key, rows, timer):
        yield from rows

class B(StatefulProcessor):
    def init(self, handle):
        self.s = handle.getValueState("total", "total LONG")
    def handleInputRows(self, key, rows, timer):
        yield from rows

proc = A() if sys.argv[1] == "a" else B()
df = spark.readStream.format("kafka").option("subscribe", "a").load()
out = df.groupBy("key").transformWithStateInPandas(proc, "key STRING, n LONG", "Update", "None")
out.writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/t").start()
