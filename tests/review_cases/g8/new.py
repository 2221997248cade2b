def setup(state):
    src = spark.readStream.format("kafka").option("subscribe", "events").load()
    state.update({"df": src.dropDuplicates(["key", "value"])})

state = {"df": None}
setup(state)
state["df"].writeStream.format("console").option("checkpointLocation", "/chk/e").start()
