"""Findings at the change through function calls (issue 31): a query built in a function from
its parameters (`def read(topic): ... .option("subscribe", topic)`) changes where a caller
passes another value, so the finding points at the changed argument of that call and keeps
the usage in the function as a related location; where two callers' arguments changed,
which one did is not told and the finding stays at the usage. The shapes are the ones of
real jobs: a module function per source, a class whose method writes each output, a helper
module the job calls. Expected lines are found in the inputs' text by a marker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamlint.cli import main
from streamlint.rulebook.book import load_rules

CODES = {rule.name: rule.code for rule in load_rules()}
SOURCE = CODES["source-identity-changed"]
CHECKPOINT = CODES["checkpoint-location-changed"]

FUNCTIONS = '''def read_topic(spark, topic):
    return (spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", "broker:9092")
            .option("subscribe", topic)
            .load())


def write(df, name):
    return (df.writeStream.format("delta")
            .option("checkpointLocation", f"/chk/{{name}}")
            .start(f"/out/{{name}}"))


orders = read_topic(spark, "{orders}")
write(orders, "orders")
payments = read_topic(spark, "{payments}")
write(payments, "payments")
'''

METHODS = '''class Pipeline:
    def __init__(self, spark):
        self.spark = spark

    def sink(self, df, checkpoint):
        path = f"/chk/{{checkpoint}}"
        return (df.writeStream.format("delta")
                .option("checkpointLocation", path)
                .start("/out/" + checkpoint))

    def run(self):
        clicks = self.spark.readStream.format("kafka").option("subscribe", "clicks").load()
        self.sink(clicks, "{clicks}")
        views = self.spark.readStream.format("kafka").option("subscribe", "views").load()
        self.sink(views, "{views}")


Pipeline(spark).run()
'''


def line_of(text: str, marker: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if marker in line)


def diff(tmp_path: Path, capsys: pytest.CaptureFixture[str], old: str, new: str) -> dict:
    (tmp_path / "old.py").write_text(old)
    (tmp_path / "new.py").write_text(new)
    main(["diff", str(tmp_path / "old.py"), str(tmp_path / "new.py"), "--format", "json",
          "--exit-zero"])
    return json.loads(capsys.readouterr().out)


def test_a_changed_argument_is_where_the_finding_points(tmp_path: Path, capsys) -> None:
    old = FUNCTIONS.format(orders="orders", payments="payments")
    new = FUNCTIONS.format(orders="orders", payments="payments_v2")
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == SOURCE]
    assert finding["new"]["line"] == line_of(new, '"payments_v2")')
    assert finding["old"]["line"] == line_of(old, 'read_topic(spark, "payments")')
    [related] = finding["related"]
    assert line_of(new, "def read_topic") < related["line"] < line_of(new, "def write")


def test_two_changed_arguments_leave_the_finding_at_the_usage(tmp_path: Path, capsys) -> None:
    # Both callers pass another topic: which call is this query's is not told.
    old = FUNCTIONS.format(orders="orders", payments="payments")
    new = FUNCTIONS.format(orders="orders_v2", payments="payments_v2")
    data = diff(tmp_path, capsys, old, new)
    findings = [f for f in data["findings"] if f["code"] == SOURCE]
    assert len(findings) == 2
    for finding in findings:
        assert line_of(new, "def read_topic") < finding["new"]["line"] < line_of(new, "def write")
        assert finding["related"] == []


def test_a_method_argument_is_where_the_checkpoint_finding_points(tmp_path: Path,
                                                                  capsys) -> None:
    old = METHODS.format(clicks="clicks", views="views")
    new = METHODS.format(clicks="clicks", views="views_v2")
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == CHECKPOINT]
    assert finding["new"]["line"] == line_of(new, '"views_v2")')
    assert finding["old"]["line"] == line_of(old, 'self.sink(views, "views")')
    assert [r["line"] for r in finding["related"]] == [line_of(new, '"checkpointLocation"')]


def test_an_unchanged_argument_moves_nothing(tmp_path: Path, capsys) -> None:
    # The checkpoint changed inside the method itself: the finding is at that changed line,
    # not at a caller.
    old = METHODS.format(clicks="clicks", views="views")
    new = old.replace('f"/chk/{checkpoint}"', 'f"/chk2/{checkpoint}"')
    data = diff(tmp_path, capsys, old, new)
    findings = [f for f in data["findings"] if f["code"] == CHECKPOINT]
    assert len(findings) == 2
    assert {f["new"]["line"] for f in findings} == {line_of(new, "/chk2/")}


def test_the_call_that_starts_another_query_is_where_the_finding_points(tmp_path: Path,
                                                                        capsys) -> None:
    # One function per topic, the last line picks which one runs (on one checkpoint).
    job = '''def stream(topic):
    return (spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", "broker:9092")
            .option("subscribe", topic).load()
            .writeStream.format("delta")
            .option("checkpointLocation", "/chk/counts").start("/out/counts"))


def clicks():
    return stream("clicks")


def bookmarks():
    return stream("bookmarks")


{clicks}clicks().awaitTermination()
{bookmarks}bookmarks().awaitTermination()
'''
    old, new = job.format(clicks="", bookmarks="# "), job.format(clicks="# ", bookmarks="")
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"]
                 if f["code"] == SOURCE and f["new_value"] == "'bookmarks'"]
    assert finding["new"]["line"] == new.splitlines().index("bookmarks().awaitTermination()") + 1
    assert finding["old"]["line"] == old.splitlines().index("clicks().awaitTermination()") + 1


FIELDS = '''class OrdersJob:
    def __init__(self, spark):
        self.spark = spark
        self.app_name = "{app}"
        self.topic = "{topic}"
        self.checkpoint = "/chk/orders"

    def run(self):
        orders = (self.spark.readStream.format("kafka")
                  .option("subscribe", self.topic).load())
        return (orders.writeStream.format("delta")
                .option("checkpointLocation", self.checkpoint).start("/out/orders"))


OrdersJob(spark).run()
'''


def test_a_changed_field_set_in_init_is_where_the_finding_points(tmp_path: Path,
                                                                 capsys) -> None:
    # Two fields changed; the query reads one of them.
    old = FIELDS.format(app="orders", topic="orders")
    new = FIELDS.format(app="orders-v2", topic="orders_v2")
    data = diff(tmp_path, capsys, old, new)
    [finding] = [f for f in data["findings"] if f["code"] == SOURCE]
    assert finding["new"]["line"] == line_of(new, "self.topic =")
    assert finding["old"]["line"] == line_of(old, "self.topic =")
    assert finding["related"][0]["line"] in range(line_of(new, "orders = ("),
                                                  line_of(new, "self.topic)") + 1)


@pytest.mark.parametrize(("at", "accepted"), [('"payments_v2")', True),
                                              ('.option("subscribe", topic)', True),
                                              ('"orders")', False)])
def test_a_comment_at_the_argument_or_the_usage_accepts_the_finding(
        tmp_path: Path, capsys, at: str, accepted: bool) -> None:
    # The other caller's line is neither place: a comment there accepts nothing.
    old = FUNCTIONS.format(orders="orders", payments="payments")
    new = FUNCTIONS.format(orders="orders", payments="payments_v2")
    new = new.replace(at, f"{at}  # streamlint: ignore[{SOURCE}] OPS-7 new topic", 1)
    data = diff(tmp_path, capsys, old, new)
    assert (SOURCE not in {f["code"] for f in data["findings"]}) == accepted


STREAMS = '''def read_topic(spark, topic):
    return (spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", "broker:9092")
            .option("subscribe", topic)
            .load())
'''

CALLER = '''from lib.streams import read_topic

orders = read_topic(spark, "{topic}")
orders.writeStream.format("delta") \\
    .option("checkpointLocation", "/chk/orders").start("/out/orders")
'''


def repository(folder: Path, job: str) -> Path:
    (folder / "lib").mkdir(parents=True)
    (folder / "jobs").mkdir()
    (folder / "pyproject.toml").write_text('[project]\nname = "orders"\n')
    (folder / "lib" / "__init__.py").write_text("")
    (folder / "lib" / "streams.py").write_text(STREAMS)
    (folder / "jobs" / "orders.py").write_text(job)
    return folder / "jobs" / "orders.py"


def test_an_argument_changed_in_the_job_for_a_helper_module_function(tmp_path: Path,
                                                                     capsys) -> None:
    old = repository(tmp_path / "old", CALLER.format(topic="orders"))
    new = repository(tmp_path / "new", CALLER.format(topic="orders_v2"))
    main(["diff", str(old), str(new), "--format", "json", "--exit-zero"])
    data = json.loads(capsys.readouterr().out)
    [finding] = [f for f in data["findings"] if f["code"] == SOURCE]
    job = CALLER.format(topic="orders_v2")
    assert (finding["new"]["path"], finding["new"]["line"]) == (str(new), line_of(job, "_v2"))
    assert [r["path"] for r in finding["related"]] == [str(tmp_path / "new" / "lib" /
                                                        "streams.py")]
