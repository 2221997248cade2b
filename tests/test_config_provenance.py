"""A value read from a configuration file is the same value however the code reads it, and a
path that ends in a `raise` gives nothing to what follows (real commits of the history
corpus: a consumer refactored from a class into functions, its keys read with `[]`, then
`.get(key, False)`, then `json.load(f)[key]`, the file shipped beside the job by its Dockerfile).
"""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.diff.__init__ import Report
from streamlint.extract import extract_text
from streamlint.extract.project import MappingFiles, Project

JOB = "src/consumer/stream.py"
CONFIG = "src/config.json"  # the Dockerfile copies it next to the job: `ADD config.json /app/`
SETTINGS = '{"brokers": "kafka:9092", "topic": "events", "group": "g1", "old_topic": "legacy"}'

AS_CLASS = '''\
import json
import os
from pyspark.sql import SparkSession


class Consumer:
    def __init__(self, spark, path):
        self.spark = spark
        self.path = path
        self.config = self.read_config()

    def read_config(self):
        if os.path.isfile(self.path):
            with open(self.path) as f:
                return json.load(f)
        else:
            raise FileNotFoundError(f"no config at {self.path}")

    def run(self):
        df = (self.spark.readStream.format("kafka")
              .option("kafka.bootstrap.servers", self.config["brokers"])
              .option("subscribe", self.config["topic"])
              .load())
        (df.writeStream.foreach(print).option("checkpointLocation", "/chk/consumer")
         .start().awaitTermination())


Consumer(SparkSession.builder.getOrCreate(), "config.json").run()
'''

AS_FUNCTIONS = '''\
import json
import os
from pyspark.sql import SparkSession


def get_config(path):
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no config at {path}")
    with open(path) as f:
        return json.load(f)


if __name__ == "__main__":
    config = get_config("config.json")
    spark = SparkSession.builder.getOrCreate()
    df = (spark.readStream.format("kafka")
          .option("kafka.bootstrap.servers", config.get("brokers", False))
          .option("subscribe", config.get("{key}", False))
          .load())
    (df.writeStream.foreach(print).option("checkpointLocation", "/chk/consumer")
         .start().awaitTermination())
'''


def diff(old: dict[str, str], new: dict[str, str]) -> Report:
    before = extract_text(old[JOB], JOB, Project(MappingFiles(old), JOB))
    after = extract_text(new[JOB], JOB, Project(MappingFiles(new), JOB))
    return diff_jobs(before, after)


def codes(report: Report) -> list[str]:
    return sorted(f.code for f in report.findings)


def test_a_file_beside_an_enclosing_folder_of_the_job_is_read() -> None:
    job = extract_text(AS_CLASS, JOB, Project(MappingFiles({JOB: AS_CLASS, CONFIG: SETTINGS}),
                                               JOB))
    (query,) = job.queries
    assert dict(query.sources[0].identity) == {"subscribe": "events"}


def test_the_same_keys_read_another_way_are_no_change() -> None:
    old = {JOB: AS_CLASS, CONFIG: SETTINGS}
    new = {JOB: AS_FUNCTIONS.replace("{key}", "topic"), CONFIG: SETTINGS}
    report = diff(old, new)
    assert report.verdict == "compatible"
    assert [c for c in codes(report) if c.startswith(("UN", "SO"))] == []


def test_another_key_with_another_value_is_another_topic() -> None:
    old = {JOB: AS_CLASS, CONFIG: SETTINGS}
    new = {JOB: AS_FUNCTIONS.replace("{key}", "old_topic"), CONFIG: SETTINGS}
    report = diff(old, new)
    assert report.verdict != "compatible"
    assert "'events'" in "\n".join(f.message for f in report.findings)


def test_a_value_changed_in_the_file_is_a_changed_topic() -> None:
    old = {JOB: AS_CLASS, CONFIG: SETTINGS}
    new = {JOB: AS_FUNCTIONS.replace("{key}", "topic"),
           CONFIG: SETTINGS.replace('"events"', '"events_v2"')}
    assert diff(old, new).verdict != "compatible"


def test_a_nearer_file_wins_over_one_further_up() -> None:
    files = {JOB: AS_CLASS, CONFIG: SETTINGS,
             "src/consumer/config.json": SETTINGS.replace('"events"', '"near"')}
    job = extract_text(AS_CLASS, JOB, Project(MappingFiles(files), JOB))
    assert dict(job.queries[0].sources[0].identity) == {"subscribe": "near"}


def test_a_file_nowhere_above_the_job_is_still_not_read() -> None:
    files = {JOB: AS_CLASS, "conf/config.json": SETTINGS}
    report = diff(files, {**files, JOB: AS_CLASS + "# edited\n"})
    assert "UN06" in codes(report)


RETURNS_OR_FALLS_BACK = '''\
import json
import os

def get_config(path):
    if os.path.isfile(path):
        with open(path) as f:
            return json.load(f)
    {otherwise}

config = get_config("config.json")
df = spark.readStream.format("kafka").option("subscribe", config["topic"]).load()
df.writeStream.format("delta").option("checkpointLocation", "/chk/e").start("/t/e")
'''


def test_a_branch_that_raises_gives_nothing_to_what_follows() -> None:
    code = RETURNS_OR_FALLS_BACK.replace("{otherwise}", 'raise FileNotFoundError(path)')
    files = {JOB: code, CONFIG: SETTINGS}
    job = extract_text(code, JOB, Project(MappingFiles(files), JOB))
    assert dict(job.queries[0].sources[0].identity) == {"subscribe": "events"}


def test_a_branch_that_returns_another_value_stays_a_choice() -> None:
    code = RETURNS_OR_FALLS_BACK.replace("{otherwise}", 'return {"topic": "fallback"}')
    files = {JOB: code, CONFIG: SETTINGS}
    job = extract_text(code, JOB, Project(MappingFiles(files), JOB))
    assert dict(job.queries[0].sources[0].identity)["subscribe"] != "events"


# -- a value known only at run time is compared by where it comes from ----------------------

UNREAD = '''\
import json
with open("/dbfs/conf/app.json") as f:
    config = json.load(f)
df = spark.readStream.format("kafka").option("subscribe", {topic}).load()
df.writeStream.format("delta").option("checkpointLocation", "/chk/o").start("/t/o")
'''

ENVIRONMENT = '''\
import os
df = spark.readStream.format("kafka").option("subscribe", {topic}).load()
df.writeStream.format("delta").option("checkpointLocation", "/chk/o").start("/t/o")
'''


def single(old: str, new: str) -> list[str]:
    return codes(diff_jobs(extract_text(old, "job.py"), extract_text(new, "job.py")))


def test_a_key_of_a_file_not_read_read_another_way_is_the_same_value() -> None:
    # The file itself may have changed (UN06 asks), but the code reads the same key.
    found = single(UNREAD.format(topic='config["topic"]'),
                   UNREAD.format(topic='config.get("topic", False)'))
    assert "UN02" not in found and "UN06" in found


def test_another_key_of_a_file_not_read_is_a_changed_value() -> None:
    found = single(UNREAD.format(topic='config["topic"]'),
                   UNREAD.format(topic='config["topic_v2"]'))
    assert "UN02" in found


def test_one_environment_variable_read_another_way_is_the_same_value() -> None:
    assert single(ENVIRONMENT.format(topic='os.environ["TOPIC"]'),
                  ENVIRONMENT.format(topic='os.getenv("TOPIC")')) == []


def test_another_environment_variable_is_a_changed_value() -> None:
    assert "UN02" in single(ENVIRONMENT.format(topic='os.environ["TOPIC"]'),
                            ENVIRONMENT.format(topic='os.environ.get("TOPIC_V2")'))


TRIGGER_BY_SETTING = '''\
def add_trigger(writer, kind):
    if kind == "availablenow":
        return writer.trigger(availableNow=True)
    elif kind == "processingtime":
        return writer.trigger(processingTime="1 minute")
    else:
        raise ValueError(kind)


def save(df, batch_id):
    df.write.format("delta").mode("append").saveAsTable("{table}")


df = spark.readStream.format("kafka").option("subscribe", "in").load()
writer = df.writeStream.option("checkpointLocation", "/chk/t")
writer = add_trigger(writer, KIND)
writer.foreachBatch(save).start()
'''


def test_a_sink_function_edited_under_a_trigger_chosen_at_run_time_is_judged_as_it_is() -> None:
    # Every branch of the setter writes the same DataFrame with another trigger (its `else`
    # raises): the function's edit is judged by its code, whatever the trigger.
    old = TRIGGER_BY_SETTING.replace("{table}", "silver.t")
    edited = old.replace('df.write.format', 'df.distinct().write.format')
    assert [c for c in single(old, edited) if c.startswith(("UN", "SK12"))] == []
    moved = old.replace("silver.t", "silver.t2")
    assert "SK12" in single(old, moved)
