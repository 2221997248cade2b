"""`diff --checkpoint PATH NEW` against the real checkpoints, with each fixture's own job.

The unchanged job (query.py as a standalone file) must restart cleanly from the checkpoint it
wrote; each edit below is a change Spark refuses or silently mishandles, and must be caught.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from checkpoint_fixtures import FIXTURES as SHARED
from checkpoint_fixtures import fixture_dirs, fixture_id
from checkpoint_jobs import standalone_job, write_job
from test_checkpoint_cli import kafka_checkpoint

from streamlint.checkpoint import read_checkpoint
from streamlint.cli import main
from streamlint.extract import extract_file
from streamlint.model.expr import WINDOW_FUNCTIONS, Call

FIXTURES = fixture_dirs()


def by_name(name: str) -> list[Path]:
    found = [f for f in FIXTURES if f.name == name]
    assert found, f"no fixture {name}"
    return found


def diff(capsys: pytest.CaptureFixture[str], checkpoint: Path, job: Path,
         *extra: str) -> tuple[int, dict]:
    code = main(["diff", "--checkpoint", str(checkpoint), str(job), "--format", "json",
                 *extra])
    out, err = capsys.readouterr()
    assert err == ""
    return code, json.loads(out)


def codes(report: dict) -> list[str]:
    return [f["code"] for f in report["findings"]]


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_the_job_that_wrote_the_checkpoint_restarts(fixture: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    job = write_job(tmp_path, fixture)
    # The comparison has something to compare: the job's sources and stateful operators
    # are those the checkpoint recorded (else "compatible" below would prove nothing).
    query = extract_file(str(job)).queries[0]
    checkpoint = read_checkpoint(str(fixture / "checkpoint"))
    assert len(query.sources) == len(checkpoint.last_committed.sources)
    assert len(query.stateful) == len(checkpoint.operators)
    # With the old code (here the same job) nothing is left that the checkpoint cannot show.
    code, report = diff(capsys, fixture / "checkpoint", job, "--old", str(job))
    assert (code, report["verdict"], report["findings"]) == (0, "compatible", [])
    # Alone, the checkpoint cannot show a window's size: that is a question, never an
    # all-clear (a window changed from 10 to 5 minutes restarts with wrong results).
    code, report = diff(capsys, fixture / "checkpoint", job)
    windowed = any(isinstance(key, Call) and key.function in WINDOW_FUNCTIONS
                   for op in query.stateful if op.kind == "aggregation" for key in op.keys)
    assert set(codes(report)) == ({"CK06"} if windowed else set()), report["findings"]
    assert (code, report["verdict"]) == (0, "review" if windowed else "compatible")


def edited(tmp_path: Path, fixture: Path, old: str, new: str) -> Path:
    text = standalone_job(fixture)
    assert old in text, f"{old!r} not in the job of {fixture_id(fixture)}"
    return write_job(tmp_path, fixture, text.replace(old, new))


EDITS = [
    # (fixture, old text, new text, expected rule code)
    ("agg_hdfs", 'groupBy("key")', 'groupBy("key", "id")', "AG01"),
    ("agg_rocksdb", 'groupBy("key")', 'groupBy("id")', "AG01"),
    ("window_agg", 'groupBy(F.window("ts", "10 seconds"), "key")',
     'groupBy(F.window("ts", "10 seconds"))', "AG01"),
    ("agg_hdfs", "agg = df.groupBy",
     "df = df.unionByName(spark.readStream.schema(EVENT_SCHEMA).json('/landing/more'))\n"
     "agg = df.groupBy", "SO01"),
    ("union_rate_file", "rate.unionByName(files)", "files", "SO02"),
    ("union_rate_file", "rate.unionByName(files)", "files.unionByName(rate)", "SO03"),
    ("agg_hdfs", "/agg_hdfs/input'", "/agg_hdfs/input-v2'", "SO04"),
    ("dedup", 'dropDuplicates(["id", "ts"])', 'dropDuplicates(["id"])', "DD01"),
    ("window_agg", 'df.withWatermark("ts", "10 seconds")',
     'df.withWatermark("ts", "10 seconds").dropDuplicates(["id", "ts"])', "ST01"),
    ("dedup", '.dropDuplicates(["id", "ts"])', "", "ST02"),
    ("dedup_within_watermark", "dropDuplicatesWithinWatermark([\"id\"])",
     'groupBy("id").count()', "ST03"),
    # Two stateful operators: Spark numbers them from the sink (state/0 is the aggregation,
    # state/1 the deduplication before it, as Spark's state-metadata reader reports).
    ("dedup_then_agg", '.dropDuplicates(["id"])', "", "ST02"),
    ("dedup_then_agg", 'dropDuplicates(["id"])', 'dropDuplicates(["id", "key"])', "DD01"),
    ("dedup_then_agg", 'groupBy("key")', 'groupBy("id")', "AG01"),
    # Spark's schema check passes (both buffers are one bigint); the stored buffer's field
    # names (count, sum) still say sum wrote it.
    ("agg_hdfs", 'F.sum("value")', 'F.max("value")', "AG03"),
    ("window_agg", 'F.sum("value")', 'F.min("value")', "AG03"),
    ("agg_rocksdb", 'F.count("*").alias("cnt"), F.sum("value")',
     'F.sum("value").alias("cnt"), F.count("*")', "AG03"),
]


@pytest.mark.parametrize(("name", "old", "new", "code"), EDITS,
                         ids=[f"{e[0]}-{e[3]}" for e in EDITS])
def test_a_stateful_or_source_change_is_caught(name: str, old: str, new: str, code: str,
                                               tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    for fixture in by_name(name):
        job = edited(tmp_path, fixture, old, new)
        exit_code, report = diff(capsys, fixture / "checkpoint", job)
        assert code in codes(report), (fixture_id(fixture), report["findings"])
        assert (exit_code, report["verdict"]) == (1, "incompatible")
        # Every incompatible finding ends with the command to run next.
        for finding in report["findings"]:
            if finding["verdict"] == "incompatible":
                assert finding["next"].startswith("next: streamlint checkpoint offsets"), finding


def test_a_pinned_setting_changed_in_code_is_kept_from_the_checkpoint(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for fixture in by_name("agg_hdfs"):
        pinned = dict(read_checkpoint(str(fixture / "checkpoint")).last_committed.conf)
        partitions = int(pinned["spark.sql.shuffle.partitions"])
        job = edited(tmp_path, fixture, "spark = SparkSession.builder.getOrCreate()",
                     "spark = SparkSession.builder.config('spark.sql.shuffle.partitions', "
                     f"'{partitions * 4}').getOrCreate()")
        code, report = diff(capsys, fixture / "checkpoint", job)
        assert (code, report["verdict"], codes(report)) == (0, "review", ["CF01"])
        assert f"from '{partitions}' to '{partitions * 4}'" in report["findings"][0]["message"]
        assert main(["diff", "--checkpoint", str(fixture / "checkpoint"), str(job),
                     "--strict"]) == 1
        capsys.readouterr()
        same = edited(tmp_path, fixture, "spark = SparkSession.builder.getOrCreate()",
                      "spark = SparkSession.builder.config('spark.sql.shuffle.partitions', "
                      f"'{partitions}').getOrCreate()")
        assert diff(capsys, fixture / "checkpoint", same)[1]["findings"] == []


def test_a_pinned_setting_without_its_own_rule(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    fixture = next(f for f in by_name("agg_hdfs") if f.parent.name == "spark-4.3.0")
    key = "spark.sql.streaming.statefulOperator.alwaysNullableOutput.enabled"
    pinned = dict(read_checkpoint(str(fixture / "checkpoint")).last_committed.conf)[key]
    flipped = "false" if pinned == "true" else "true"
    job = edited(tmp_path, fixture, "spark = SparkSession.builder.getOrCreate()",
                 f"spark = SparkSession.builder.getOrCreate()\nspark.conf.set({key!r}, "
                 f"{flipped!r})")
    code, report = diff(capsys, fixture / "checkpoint", job)
    assert (code, report["verdict"], codes(report)) == (0, "review", ["CK01"])
    assert f"pinned {pinned!r}" in report["findings"][0]["message"]


KAFKA_JOB = """\
from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
orders = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", "k:9092")
          .option("subscribe", {topics!r}).load())
files = spark.readStream.schema("id LONG").json("/landing/orders")
events = orders.selectExpr("CAST(value AS STRING) AS v")
events.unionByName(files.selectExpr("CAST(id AS STRING) AS v")) \\
    .writeStream.format("delta").option("checkpointLocation", {checkpoint!r}).start("/t/o")
"""


@pytest.mark.parametrize(("topics", "code"), [("orders,payments", None),
                                               ("payments, orders", None),
                                               ("orders", "SO04"),
                                               ("orders,payments,refunds", "SO04")])
def test_kafka_topics_against_the_offsets(topics: str, code: str | None, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    checkpoint = kafka_checkpoint(tmp_path / "chk")
    job = tmp_path / "job.py"
    job.write_text(KAFKA_JOB.format(topics=topics, checkpoint=str(checkpoint)))
    exit_code, report = diff(capsys, checkpoint, job)
    assert codes(report) == ([code] if code else [])
    assert exit_code == (1 if code else 0)


def test_which_query_of_a_job_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixture = SHARED / "spark-4.3.0" / "agg_hdfs"
    other = SHARED / "spark-4.3.0" / "dedup"
    text = standalone_job(fixture) + "\n" + standalone_job(other).split("\n\n", 2)[2]
    job = write_job(tmp_path, fixture, text)
    assert diff(capsys, fixture / "checkpoint", job)[1]["findings"] == []
    code, report = diff(capsys, other / "checkpoint", job)
    assert (code, report["findings"]) == (0, [])
    copy = tmp_path / "copy-of-agg"
    shutil.copytree(fixture / "checkpoint", copy)
    assert main(["diff", "--checkpoint", str(copy), str(job)]) == 2
    assert "none writes to the checkpoint" in capsys.readouterr().err


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixture = by_name("agg_hdfs")[-1]
    job = write_job(tmp_path, fixture)
    assert main(["diff", "--checkpoint", str(fixture / "checkpoint"), str(job), str(job)]) == 2
    assert "takes one job file" in capsys.readouterr().err
    assert main(["diff", str(job)]) == 2
    assert "give OLD and NEW" in capsys.readouterr().err


def test_every_format_reports_a_checkpoint_comparison(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """`diff --checkpoint` renders the one result model in every format (these were refused
    before: a CI step uploading "SARIF" must get SARIF), and each says what JSON says."""
    import jsonschema

    fixture = next(f for f in by_name("agg_hdfs") if f.parent.name == "spark-4.3.0")
    key = "spark.sql.streaming.statefulOperator.alwaysNullableOutput.enabled"
    job = edited(tmp_path, fixture, "spark = SparkSession.builder.getOrCreate()",
                 f"spark = SparkSession.builder.getOrCreate()\nspark.conf.set({key!r}, "
                 "'false')")
    argv = ["diff", "--checkpoint", str(fixture / "checkpoint"), str(job), "--strict"]
    assert main([*argv, "--format", "github"]) == 1
    github = capsys.readouterr().out
    assert f"title=CK01 pinned-setting-ignored::`{key}` is set to 'false'" in github
    assert github.rstrip().splitlines()[-1].startswith(
        "streamlint: review (1 finding in 1 job file); judged for Spark 4.3")
    assert main([*argv, "--format", "sarif"]) == 1
    data = json.loads(capsys.readouterr().out)
    schema = Path(__file__).resolve().parents[1] / "tests" / "data" / "sarif-schema-2.1.0.json"
    jsonschema.validate(data, json.loads(schema.read_text()))
    [result] = data["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("CK01", "warning")
    assert [r["id"] for r in data["runs"][0]["tool"]["driver"]["rules"]] == ["CK01"]
    assert main([*argv, "--format", "markdown"]) == 1
    markdown = capsys.readouterr().out
    assert markdown.startswith("### ⚠️ streamlint: review") and "CK01" in markdown
    assert main([*argv, "--format", "json"]) == 1
    [finding] = json.loads(capsys.readouterr().out)["findings"]
    assert (finding["kind"], finding["old_value"], finding["new_value"]) == (
        "checkpoint.pinned-setting-ignored", "'true'", "'false'")
    assert finding["fix"] == finding["help"] != ""


def test_stored_buffer_names_tell_which_function_wrote_them() -> None:
    from streamlint.checkpoint.buffers import swapped_functions

    assert swapped_functions(["count", "sum"], ["count", "sum"]) == []
    assert swapped_functions(["count", "max"], ["count", "sum"]) == [(1, "sum", "max")]
    assert swapped_functions(["last"], ["first", "valueSet"]) == [(0, "first", "last")]
    assert swapped_functions(["avg"], ["sum", "count"]) == []
    # A decimal sum keeps `isEmpty` too: still a sum.
    assert swapped_functions(["sum"], ["sum", "isEmpty"]) == []
    # A buffer several functions keep is no swap, a buffer that fits no layout no claim.
    assert swapped_functions(["collect_list"], ["buf"]) == []
    assert swapped_functions(["max"], ["MS[0]"]) is None


def test_the_stored_buffer_read_along_the_new_aggregates() -> None:
    from streamlint.checkpoint.buffers import read_buffers

    # sum -> avg: avg keeps sum and count, three fields where two are stored (Spark refuses).
    assert read_buffers(["count", "avg"], ["count", "sum"]).shape == (3, 2)
    assert read_buffers(["count"], ["count", "sum"]).shape == (1, 2)
    assert read_buffers(["count", "sum"], ["count", "sum"]) == read_buffers([], [])
    # Functions that keep the same buffer: the checkpoint cannot tell which one wrote it.
    [(position, function, why)] = read_buffers(["count", "variance"],
                                               ["count", "n", "avg", "m2"]).unclear
    assert (position, function) == (1, "var_samp") and "stddev_samp" in why
    assert read_buffers(["collect_set"], ["buf"]).unclear[0][:2] == (0, "collect_set")
    # A function whose buffer streamlint does not know: a question, never a fit.
    [(_, function, why)] = read_buffers(["count", "round"], ["count", "sum"]).unclear
    assert function == "round" and "does not know" in why
    assert read_buffers(["approx_count_distinct"], [f"MS[{i}]" for i in range(52)]) == \
        read_buffers([], [])
