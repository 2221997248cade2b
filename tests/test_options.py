"""Source options as data (rules/options.toml): each known option has a class, each class a
page it was read from and a rule that judges it."""

from __future__ import annotations

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.rulebook.book import load_rules
from streamlint.rulebook.change import OPTION_CLASSES
from streamlint.rulebook.options import knowledge, option_class


@pytest.mark.parametrize(("fmt", "key", "expected"), [
    ("kafka", "kafka.group.id", "consumer-tuning"),
    ("kafka", "groupIdPrefix", "consumer-tuning"),
    ("kafka", "minPartitions", "consumer-tuning"),
    ("kafka", "failOnDataLoss", "failure-policy"),
    ("kafka", "kafka.ssl.endpoint.identification.algorithm", "security-credential"),
    ("kafka", "kafka.sasl.mechanism", "security-credential"),
    ("kafka", "kafka.isolation.level", "what-is-read-review"),
    ("kafka", "subscribe", "what-is-read"),
    ("kafka", "startingOffsets", "start-position"),
    ("kafka", "maxOffsetsPerTrigger", "rate-limit"),
    ("cloudfiles", "cloudFiles.schemaEvolutionMode", "schema-handling"),
    ("cloudfiles", "cloudFiles.includeExistingFiles", "start-position"),
    ("cloudfiles", "cloudFiles.useNotifications", "consumer-tuning"),
    ("delta", "ignoreChanges", "what-is-read-review"),
    ("delta", "maxBytesPerTrigger", "rate-limit"),
    ("csv", "header", "schema-handling"),
    ("json", "latestFirst", "what-is-read-review"),
    ("json", "cleanSource", "consumer-tuning"),
    ("kinesis", "initialPosition", "start-position"),
    ("eventhubs", "eventhubs.consumerGroup", "consumer-tuning"),
    ("pubsub", "privateKey", "security-credential"),
    ("rate", "rowsPerSecond", "rate-limit"),
    ("kafka", "kafka.partition.assignment.strategy", "unknown"),
    ("my.connector", "password", "security-credential"),
])
def test_option_classes(fmt: str, key: str, expected: str) -> None:
    assert option_class(fmt, key) == expected



def test_every_class_has_its_rule() -> None:
    """A class routed to `source.option` is judged by a rule whose `when` names it (SO07
    takes `unknown`); what is read and rate limits have their own change kinds."""
    judged = {value for rule in load_rules() if "source.option" in rule.change
              for key, values in rule.when if key == "option_class" for value in values}
    assert judged | {"what-is-read", "rate-limit", "unknown"} == OPTION_CLASSES


def test_every_class_cites_a_page() -> None:
    for kind, classes in knowledge().kinds.items():
        assert classes, kind
        for entry in classes:
            assert entry.docs.startswith("https://"), (kind, entry.name)


def test_a_finding_cites_the_page_its_option_class_comes_from() -> None:
    old = ('df = spark.readStream.format("cloudFiles").option("cloudFiles.format", "json")'
           '.load("/landing")\n'
           'df.writeStream.format("delta").option("checkpointLocation", "/c").start("/t")\n')
    new = old.replace('.load(', '.option("cloudFiles.useNotifications", "true").load(')
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"), "3.5")
    [finding] = report.findings
    assert finding.code == "SO16"
    assert finding.docs.endswith("auto-loader/file-detection-modes.html")
