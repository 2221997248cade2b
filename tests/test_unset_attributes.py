"""An attribute of the job's own object that nothing sets (extract/unset.py): Python raises
AttributeError on the read every time, so the query started after it never starts. From a
real commit of the history corpus (a consumer class whose `__init__` read a path attribute it
never assigned, its config lookups fixed in the same commit): the fix is compatible (QY25), the
same read in the new version is a finding (QY26). Beside them, each way the attribute could
still exist or the read could be skipped, where streamlint must not say it fails."""

from __future__ import annotations

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text


def codes(old: str, new: str) -> list[str]:
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return sorted(f.code for f in report.findings)


CONSUMER = """
import json
import os
from pyspark.sql import SparkSession

class EventsConsumer:
    def __init__(self, spark, config_path):
        self.spark = spark
        self.config_path = config_path
        self.config = self._load()
        self.stream = self._stream()

    def _load(self):
        if os.path.isfile(self.{path_attribute}):
            with open(self.config_path) as f:
                return json.load(f)
        raise FileNotFoundError(self.config_path)

    def _stream(self):
        return (self.spark.readStream.format("kafka")
                .option("kafka.bootstrap.servers", self.config[{servers}])
                .option("subscribe", self.config[{topic}]).load())

    def run(self):
        self.stream.writeStream.format("console") \\
            .option("checkpointLocation", "/chk/events").start().awaitTermination()

if __name__ == "__main__":
    spark = SparkSession.builder.getOrCreate()
    EventsConsumer(spark, "config.json").run()
"""
BROKEN = CONSUMER.format(path_attribute="schema_path", servers="'servers'", topic="'topic'")
FIXED = CONSUMER.format(path_attribute="config_path", servers="'kafka_servers'",
                        topic="'kafka_topic'")


def test_the_fix_of_a_read_nothing_sets_is_compatible() -> None:
    report = diff_jobs(extract_text(BROKEN, "old.py"), extract_text(FIXED, "new.py"))
    assert report.verdict == "compatible"
    (finding,) = report.findings
    assert finding.code == "QY25"
    assert "`EventsConsumer` object has no attribute `schema_path`" in finding.message


def test_the_same_read_in_the_new_version_is_a_finding() -> None:
    assert "QY26" in codes(FIXED, BROKEN)


def test_the_same_fix_with_the_attribute_read_fine_is_still_judged() -> None:
    # The config keys change and the old version could start: the lookups stay questions.
    old = CONSUMER.format(path_attribute="config_path", servers="'servers'", topic="'topic'")
    assert codes(old, FIXED).count("UN02") == 2


@pytest.mark.parametrize("where", [
    "consumer_settings.schema_path = 'x'\n",                 # set from outside
    "setattr(object(), 'n', 1)\n",                           # set by a name not written
    "def make(schema_path):\n    return schema_path\n",      # a parameter of that name
])
def test_a_name_something_may_set_is_not_a_failure(where: str) -> None:
    old = BROKEN.replace("if __name__", where + "if __name__")
    assert "QY25" not in codes(old, FIXED)


def test_a_class_with_a_base_or_a_decorator_is_not_a_failure() -> None:
    for cls in ("class EventsConsumer(Base):", "@register\nclass EventsConsumer:"):
        old = "from base import Base, register\n" + BROKEN.replace("class EventsConsumer:", cls)
        assert "QY25" not in codes(old, FIXED)


def test_a_read_that_may_not_run_is_not_a_failure() -> None:
    for guard in ("if os.environ.get('CHECK'):\n            ", "try:\n            "):
        old = BROKEN.replace("self.config = self._load()", guard + "self.config = self._load()")
        if guard.startswith("try"):
            old = old.replace("self.stream = self._stream()",
                              "except AttributeError:\n            self.config = {}\n"
                              "        self.stream = self._stream()")
        assert "QY25" not in codes(old, FIXED)
