class App:
    def __init__(self):
        self.topics = []
        self.handlers = []

    def agent(self, topic):
        self.topics.append(topic)
        def deco(fn):
            self.handlers.append(fn)
            return fn
        return deco

app = App()

@app.agent("a")
def handle_a(df):
    return df.groupBy("key").count()

@app.agent("c")
def handle_b(df):
    return df.groupBy("key").count()

for topic, fn in zip(app.topics, app.handlers):
    df = spark.readStream.format("kafka").option("subscribe", topic).load()
    (fn(df).writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/" + fn.__name__).start())
