"""`--confirm` answers where it used to have none, found on the real-world corpus
(bench/realworld_confirm.py): a query moved to another checkpoint, a file with no streaming
query, the static side of a stream-static join without a schema.

Expected outcomes follow from what Spark does with a checkpoint (a new path is an empty
checkpoint), never from streamlint's output.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from streamlint.extract import extract_text
from streamlint.spark.confirm import confirm_files
from streamlint.spark.inferred_schemas import inferred_schemas
from streamlint.spark.report import NO_QUERY, as_result, final_verdict
from streamlint.workflow.files import diff_files

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_MOVED = '''from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
orders = (spark.readStream.format("kafka").option("subscribe", "orders").load()
          .select(F.col("value").cast("string").alias("order")))
orders.writeStream.format("parquet").option("path", "/out/orders") \\
    .option("checkpointLocation", "{checkpoint}").start()
'''


def _pair(tmp_path: Path, old: str, new: str) -> tuple[Path, Path]:
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    paths = tmp_path / "old" / "job.py", tmp_path / "new" / "job.py"
    paths[0].write_text(old)
    paths[1].write_text(new)
    return paths


@pytest.mark.spark
def test_a_query_moved_to_another_checkpoint_starts_over(spark: SparkSession,
                                                         tmp_path: Path) -> None:
    """The new code's query has a new checkpoint: Spark does not restart it but runs it from
    an empty one, so after the restart it writes batch 1's rows again beside batch 2's, which
    a run continuing from the old checkpoint does not."""
    old, new = _pair(tmp_path, _MOVED.format(checkpoint="/chk/orders"),
                     _MOVED.format(checkpoint="/chk/orders-v2"))
    confirmation = confirm_files(old, new, spark)
    assert confirmation.problem is None
    (moved,) = confirmation.queries  # one query, not "removed" and "added"
    assert moved.outcome == "starts-over" and moved.verdict == "incompatible"
    assert moved.message == "the old code's query was checkpoint:/chk/orders"
    assert moved.restarted_rows > moved.fresh_rows > 0


@pytest.mark.spark
def test_the_same_checkpoint_is_no_move(spark: SparkSession, tmp_path: Path) -> None:
    """Must not fire: the same code on the same checkpoint restarts and continues."""
    job = _MOVED.format(checkpoint="/chk/orders")
    old, new = _pair(tmp_path, job, job.replace("F.col(\"value\")", "F.col('value')"))
    (query,) = confirm_files(old, new, spark).queries
    assert query.outcome == "same-results"


_BATCH_ONLY = '''from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
people = spark.createDataFrame([("Bilbo", 50), ("Gandalf", 1000)], ["name", "age"])
people.selectExpr("CAST(name AS STRING) AS key", "CAST(age AS STRING) AS value") \\
    .write.format("kafka").option("topic", "{topic}").save()
'''


@pytest.mark.spark
def test_a_job_without_streaming_queries_is_sparks_answer_too(spark: SparkSession,
                                                               tmp_path: Path) -> None:
    """OpenLineage's spark_kafka.py (tests/realworld) writes Kafka in batch: no streaming
    query in either version, statically or on Spark, so there is no checkpoint to restart
    from; that is an answer, not "cannot confirm"."""
    old, new = _pair(tmp_path, _BATCH_ONLY.format(topic="topic1"),
                     _BATCH_ONLY.format(topic="topic2"))
    confirmation = confirm_files(old, new, spark)
    assert confirmation.problem is None and confirmation.no_query
    assert confirmation.queries == ()
    report = diff_files(str(old), str(new))
    result = as_result(report, confirmation, ["streamlint"])
    assert ("compatible", NO_QUERY) in result.notes
    assert final_verdict(report, confirmation) == report.verdict == "compatible"


_UNCALLED = '''from pyspark.sql import SparkSession


def run(spark: SparkSession, topic: str) -> None:
    spark.readStream.format("kafka").option("subscribe", topic).load() \\
        .writeStream.format("parquet").option("path", "/out") \\
        .option("checkpointLocation", "{checkpoint}").start()
'''


@pytest.mark.spark
def test_queries_in_functions_nothing_calls_are_still_unconfirmed(spark: SparkSession,
                                                                  tmp_path: Path) -> None:
    """Must not fire: the static reading finds a query that the run never starts (a library
    function): no query on Spark is no answer there."""
    old, new = _pair(tmp_path, _UNCALLED.format(checkpoint="/chk/a"),
                     _UNCALLED.format(checkpoint="/chk/b"))
    confirmation = confirm_files(old, new, spark)
    assert not confirmation.no_query
    assert confirmation.problem is not None and "neither version started" in \
        confirmation.problem


_STATIC_JOIN = '''from pyspark.sql import SparkSession
from pyspark.sql.functions import col, from_json, to_timestamp

spark = SparkSession.builder.getOrCreate()
logins = (spark.readStream.format("kafka").option("subscribe", "logins").load()
          .select(from_json(col("value").cast("string"),
                            "created_time STRING, login_id STRING").alias("value"))
          .select("value.*")
          .withColumn("created_time", to_timestamp(col("created_time"), "yyyy-MM-dd HH:mm:ss")))
users = spark.read.format("org.apache.spark.sql.cassandra").option("keyspace", "db") \\
    .option("table", "users").load()
joined = logins.join(users, logins.login_id == users.login_id, "{how}").drop(logins.login_id)
out = joined.select(col("login_id"), col("user_name"), col("created_time").alias("last_login"))
out.writeStream.format("parquet").option("path", "/out").option("checkpointLocation", "/chk") \\
    .start()
'''


def test_a_static_sides_schema_is_what_the_stream_side_does_not_have() -> None:
    """LearningJournal's StreamTableJoinDemo (tests/realworld): the Cassandra table `users`
    has no schema in the job. The stream side has created_time and login_id; the join names
    login_id on both sides and the select reads user_name: those are the table's."""
    job = extract_text(_STATIC_JOIN.format(how="inner"), "job.py")
    (guess,) = inferred_schemas(job.queries, {})
    assert (guess.name, guess.ddl) == ("users", "login_id STRING, user_name STRING")
    assert inferred_schemas(job.queries, {"users": "x STRING"}) == []  # config wins


def test_no_static_side_guess_where_the_stream_sides_columns_are_unknown() -> None:
    """Must not fire: a stream side read whole (no schema, `select("*")`) could hold any name,
    and a column given to both sides would be ambiguous."""
    job = extract_text('''from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
events = spark.readStream.table("bronze.events").select("*")
users = spark.read.table("users")
events.join(users, "login_id").select("user_name").writeStream \\
    .option("checkpointLocation", "/chk").toTable("silver.events")
''', "job.py")
    assert [g.name for g in inferred_schemas(job.queries, {})] == ["bronze.events"]


@pytest.mark.spark
def test_a_stream_static_join_confirms_without_a_table_schema(spark: SparkSession,
                                                              tmp_path: Path) -> None:
    """Inner to left outer on a stream-static join: no state (the guide's stateful operations
    are stream-stream joins), so Spark restarts and writes what a fresh run writes."""
    old, new = _pair(tmp_path, _STATIC_JOIN.format(how="inner"),
                     _STATIC_JOIN.format(how="left"))
    confirmation = confirm_files(old, new, spark)
    assert confirmation.problem is None
    assert [q.outcome for q in confirmation.queries] == ["same-results"]
    assert any("no schema for users: inferred" in w for w in confirmation.warnings)


@pytest.mark.spark
def test_a_stand_in_missing_only_after_the_plan_runs_is_a_problem_not_a_crash(
        spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DS-2002's ingestion notebook (tests/realworld) reads a folder relative to the run's
    working directory: found when the plan runs, missing when the deployment runs. The
    CannotConfirm escaped confirm_files as an exception; it is the pair's problem now, and
    nothing is left running. The fault is injected where it happened: the stand-in lookup of
    a deployment run."""
    from streamlint.spark.sandbox import CannotConfirm, Sandbox

    original = Sandbox.source_spec

    def missing_after_plan(self: Sandbox, *args: object, **kwargs: object) -> object:
        if not self.plan:
            raise CannotConfirm("no schema for the json source lab_data/tracker")
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Sandbox, "source_spec", missing_after_plan)
    job = _MOVED.format(checkpoint="/chk/orders")
    old, new = _pair(tmp_path, job, job)
    confirmation = confirm_files(old, new, spark)
    assert confirmation.queries == ()
    assert confirmation.problem == (f"{new}: cannot confirm: no schema for the json source "
                                    "lab_data/tracker")
    assert not spark.streams.active


_MEDALLION = '''from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
events = (spark.readStream.format("kafka").option("subscribe", "events").load()
          .select(F.from_json(F.col("value").cast("string"),
                              "user STRING, amount DOUBLE").alias("e")).select("e.*"))
events.writeStream.option("checkpointLocation", "/chk/bronze").toTable("bronze.events")
names = spark.createDataFrame([("u1", "Ann")], "user STRING, name STRING")
silver = (spark.readStream.table("bronze.events").join(names, "user", "left")
          .select("user", "name", "amount"))
silver.writeStream.option("checkpointLocation", "/chk/silver").toTable("silver.events")
'''


def test_a_guess_for_a_table_the_job_writes_itself_names_every_column_read() -> None:
    """The guess alone would be wrong: `name` comes from the batch side of the join, yet the
    static reading gives it to the stream over bronze.events too (DS-2002's medallion
    notebook, tests/realworld: AMBIGUOUS_REFERENCE on Spark)."""
    job = extract_text(_MEDALLION, "job.py")
    (guess,) = inferred_schemas(job.queries, {})
    assert (guess.name, guess.ddl) == ("bronze.events", "amount STRING, name STRING, "
                                                        "user STRING")


@pytest.mark.spark
def test_a_stream_over_a_table_the_job_writes_reads_what_the_job_writes(
        spark: SparkSession, tmp_path: Path) -> None:
    """The next layer of a medallion reads the table the job's first query writes: the sandbox
    gives it that query's output schema, not the guess (which names `name` on both sides of
    the join and fails the silver query)."""
    old, new = _pair(tmp_path, _MEDALLION, _MEDALLION.replace('"left")', '"left_outer")'))
    confirmation = confirm_files(old, new, spark)
    assert confirmation.problem is None
    assert [q.outcome for q in confirmation.queries] == ["same-results", "same-results"]
    assert any("no schema for table bronze.events: the schema of what the job itself writes"
               in w for w in confirmation.warnings)


@pytest.mark.parametrize(("code", "parses"), [
    ('col("mrn").cast(LongType())', True),  # DS-2002's silver layer (CAST_INVALID_INPUT)
    ("F.col('x').cast(T.DoubleType())", True),
    ('col("d").cast(DateType())', True),
    ('col("x").cast("bigint")', True),
    ('col("x").cast(StringType())', False),  # a string is never malformed
    ('col("x").alias("LongType")', False),
])
def test_a_cast_to_a_pyspark_type_object_is_string_parsing(code: str, parses: bool) -> None:
    """ANSI mode is turned off for jobs that parse strings (synthetic words are no numbers);
    a cast written with a type object parses as much as one written with its name."""
    from streamlint.spark.runner import _PARSES_STRINGS

    assert bool(_PARSES_STRINGS.search(code)) is parses


def test_a_path_under_the_runs_shadow_folder_is_the_same_in_every_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """DS-2002's notebooks checkpoint to `os.path.abspath('spark-warehouse')/...`: each run
    has its own shadow working folder, so the same query had another checkpoint key in every
    run (all "removed" and "fails-from-scratch")."""
    import os

    from streamlint.spark.stubs import SHADOW_PREFIX, stable_path

    shadow = tmp_path / f"{SHADOW_PREFIX}abc"
    shadow.mkdir()
    monkeypatch.chdir(shadow)
    here = os.getcwd()
    assert stable_path(os.path.join(here, "spark-warehouse", "chk")) == "./spark-warehouse/chk"
    assert stable_path(f"file:{here}/data") == "./data"
    assert stable_path(here + "-other/chk") == here + "-other/chk"  # only under it
    assert stable_path("/chk/orders") == "/chk/orders"
    monkeypatch.chdir(tmp_path)  # not a run's shadow folder: paths are kept as written
    assert stable_path(os.path.join(here, "chk")) == os.path.join(here, "chk")


@pytest.mark.spark
def test_relative_job_paths_are_confirmed(spark: SparkSession, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """As a user types it, from the job's repository: `streamlint diff old/job.py new/job.py
    --confirm`. The run works in a shadow of the job's folder, and a relative path then named
    no file (a FileNotFoundError traceback)."""
    from streamlint.cli import main

    _pair(tmp_path, _BATCH_ONLY.format(topic="t1"), _BATCH_ONLY.format(topic="t2"))
    monkeypatch.chdir(tmp_path)
    code = main(["diff", "old/job.py", "new/job.py", "--confirm"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert NO_QUERY in out


@pytest.mark.spark
def test_a_fault_in_streamlints_own_run_is_a_problem_not_a_traceback(
        spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever goes wrong inside the confirmation's own machinery (injected here where the
    stand-in input is written) leaves the static verdict in charge with a note, and nothing
    running."""
    from streamlint.spark.deployment import Deployment

    def broken(self: Deployment, batch: int) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(Deployment, "land", broken)
    job = _MOVED.format(checkpoint="/chk/orders")
    old, new = _pair(tmp_path, job, job)
    confirmation = confirm_files(old, new, spark)
    assert confirmation.queries == ()
    assert confirmation.problem is not None
    assert "(RuntimeError: disk full)" in confirmation.problem
    assert "fault in streamlint" in confirmation.problem
    assert not spark.streams.active


_HANDED_OVER = '''from pyspark.sql import SparkSession
from company_lib.sinks import start_sink

spark = SparkSession.builder.getOrCreate()
df = spark.readStream.format("kafka").option("subscribe", "orders").load()
start_sink(df.groupBy("key").count(), "{checkpoint}")
'''


@pytest.mark.spark
def test_streaming_code_the_static_reading_did_not_understand_is_not_no_query(
        spark: SparkSession, tmp_path: Path) -> None:
    """Must not fire: the stream goes to a library this machine lacks (a stand-in, which
    starts nothing). Spark starts no query, but the static reading did not find "none": it
    could not see where the stream goes (UN03), so there is no agreement to claim."""
    old, new = _pair(tmp_path, _HANDED_OVER.format(checkpoint="/chk/a"),
                     _HANDED_OVER.format(checkpoint="/chk/b"))
    report = diff_files(str(old), str(new))
    assert report.new.queries == () and report.new.unseen
    confirmation = confirm_files(old, new, spark, static=(report.old, report.new))
    assert not confirmation.no_query
    assert confirmation.problem is not None and "neither version started" in \
        confirmation.problem


def test_a_static_sides_identity_is_no_column_of_the_stream() -> None:
    """DS-2002's silver layer (tests/realworld) joins a stream over a table with a batch
    table: the join's record names the batch side as `table = 'users'`, and that `table` was
    guessed as a column of the stream's table."""
    job = extract_text('''from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
users = spark.read.table("users")
spark.readStream.table("bronze.logins").join(users, "login_id").select("login_id", "at") \\
    .writeStream.option("checkpointLocation", "/chk").toTable("silver.logins")
''', "job.py")
    guesses = {g.name: g.ddl for g in inferred_schemas(job.queries, {})}
    assert guesses["bronze.logins"] == "at STRING, login_id STRING"
