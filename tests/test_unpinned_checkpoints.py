"""A checkpointLocation set in only one version (shapes from real commits of the history
corpus): the other version's checkpoint was temporary or chosen by the deployment, so the move
is a question (QY27, QY28); where it is certain, QY01 still says the query starts from scratch.
What Spark does without checkpointLocation is measured in tests/test_spark_stream_facts.py."""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text

READ = """
from pyspark.sql import SparkSession
spark = SparkSession.builder.appName("cashback").getOrCreate()
{conf}df = spark.readStream.format("kafka").option("subscribe", "payments").load()
eligible = df.selectExpr("CAST(value AS STRING) AS value").filter("value IS NOT NULL")
"""


def job(write: str, conf: str = "") -> str:
    return READ.format(conf=conf) + write + "\n"


def judged(old: str, new: str) -> tuple[str, list[str]]:
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return report.verdict, sorted(f.code for f in report.findings)


CONSOLE = 'eligible.writeStream.format("console").outputMode("append").start().awaitTermination()'
KAFKA_PINNED = ('eligible.writeStream.format("kafka").option("topic", "eligible")'
                '.option("checkpointLocation", "./kafka_checkpoints").start().awaitTermination()')
KAFKA_BARE = 'eligible.writeStream.format("kafka").option("topic", "eligible").start()'
FILES_PINNED = ('eligible.writeStream.format("json").option("path", "/tmp/views")'
                '.option("checkpointLocation", "/tmp/views_chk").start().awaitTermination()')


def test_a_console_job_moved_to_kafka_with_its_first_checkpoint_is_a_review() -> None:
    verdict, found = judged(job(CONSOLE), job(KAFKA_PINNED))
    assert verdict == "review"
    assert "QY27" in found and "QY01" not in found


def test_a_sketch_without_a_checkpoint_that_gets_one_is_a_review() -> None:
    verdict, found = judged(job(KAFKA_BARE), job(KAFKA_PINNED))
    assert (verdict, found) == ("review", ["QY27"])


def test_a_file_sink_replaced_by_a_console_without_a_checkpoint_is_a_review() -> None:
    verdict, found = judged(job(FILES_PINNED), job(CONSOLE))
    assert verdict == "review"
    assert "QY28" in found and "QY01" not in found


def test_a_named_query_left_to_the_deployments_root_is_a_review() -> None:
    named = KAFKA_PINNED.replace('.option("checkpointLocation", "./kafka_checkpoints")',
                                 '.queryName("eligible")')
    old = KAFKA_PINNED.replace('writeStream', 'writeStream.queryName("eligible")')
    assert judged(job(old), job(named)) == ("review", ["QY28"])


def test_a_kept_output_whose_unnamed_query_loses_its_checkpoint_is_incompatible() -> None:
    """Spark refuses the new query, or starts it on a new checkpoint every time."""
    assert judged(job(KAFKA_PINNED), job(KAFKA_BARE)) == ("incompatible", ["QY01"])


def test_a_foreach_batch_writer_that_loses_its_checkpoint_is_incompatible() -> None:
    """foreachBatch may run on a temporary checkpoint, but its writes are kept: every start
    would read from startingOffsets again."""
    write = ('eligible.writeStream.foreachBatch(lambda b, i: b.write.mode("append")'
             '.saveAsTable("t")){chk}.start()')
    pinned = write.format(chk='.option("checkpointLocation", "/chk/t")')
    verdict, found = judged(job(pinned), job(write.format(chk="")))
    assert verdict == "incompatible" and "QY01" in found


def test_an_old_checkpoint_under_a_root_the_code_sets_moved_for_certain() -> None:
    conf = 'spark.conf.set("spark.sql.streaming.checkpointLocation", "hdfs://nn/chk/weather")\n'
    pinned = CONSOLE.replace('.start()', '.option("checkpointLocation", "./chk/w").start()')
    verdict, found = judged(job(CONSOLE, conf), job(pinned, conf))
    assert verdict == "incompatible" and "QY01" in found


def test_two_pinned_directories_stay_a_move() -> None:
    moved = KAFKA_PINNED.replace("./kafka_checkpoints", "./kafka_checkpoints_v2")
    assert judged(job(KAFKA_PINNED), job(moved)) == ("incompatible", ["QY01"])
