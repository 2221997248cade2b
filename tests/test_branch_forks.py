"""A branch streamlint does not read that writes the very DataFrame of the branch it reads,
with other settings (format, options, partition columns): a change to the DataFrame, or to a
setting both branches share, is the same change on both and is judged on the branch read, so
it is no UN01. A change to the other branch's own settings, or one that may act differently
under them (judged by the sink's kind when the formats differ, a checkpoint moved), still is.
"""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text

WRITER_FORK = """
import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
out = df.selectExpr("CAST(value AS STRING) AS v")
writer = out.writeStream.option("checkpointLocation", "/chk/e")
if sys.argv[1] == "csv":
    writer = writer.format("csv").option("header", "true")
else:
    writer = writer.format("parquet")
writer.trigger(availableNow=True).start("/t/e")
"""

STARTED_IN_BRANCHES = """
import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
out = df.selectExpr("CAST(value AS STRING) AS v", "CAST(key AS STRING) AS k")
if len(sys.argv) < 2:
    out.writeStream.format("delta").option("checkpointLocation", "/chk/e").toTable("t")
else:
    (out.writeStream.format("delta").option("checkpointLocation", "/chk/e")
        .partitionBy("k").toTable("t"))
"""

# An if/elif with no else: the elif's own choice is nested in the other branch.
NESTED = """
import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
out = df.selectExpr("CAST(value AS STRING) AS v")
writer = out.writeStream.option("checkpointLocation", "/chk/e").option("path", "/t/e")
fmt = sys.argv[1]
if fmt == "csv":
    writer.format("csv").option("header", "true")
elif fmt == "json":
    writer.format("json")
writer.start()
"""


def codes(old: str, new: str) -> list[str]:
    assert old != new
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return sorted(f.code for f in report.findings)


def rate_limited(job: str) -> str:
    return job.replace('.option("subscribe", "events")',
                       '.option("subscribe", "events").option("maxOffsetsPerTrigger", 1000)')


def test_the_note_names_the_settings_the_other_branch_sets_differently() -> None:
    (query,) = extract_text(WRITER_FORK, "job.py").queries
    (note,) = [text for text, _ in query.unresolved]
    assert "the other writes the same DataFrame differently, in format; option `header`: #" in note


def test_a_rate_limit_added_upstream_of_a_writer_fork_is_judged_on_the_branch_read() -> None:
    assert codes(WRITER_FORK, rate_limited(WRITER_FORK)) == ["SO05"]


def test_a_trigger_both_branches_share_is_judged_on_the_branch_read() -> None:
    new = WRITER_FORK.replace("trigger(availableNow=True)", "trigger(once=True)")
    assert codes(WRITER_FORK, new) == ["QY05"]


def test_the_other_branchs_own_setting_changed_is_still_asked() -> None:
    new = WRITER_FORK.replace('writer.format("parquet")', 'writer.format("json")')
    # The other branch's settings are data (model.BranchWriter): its own sink is compared
    # with its old self, and the change is named.
    report = diff_jobs(extract_text(WRITER_FORK, "old.py"), extract_text(new, "new.py"))
    assert [f.code for f in report.findings] == ["SK04"]
    assert report.verdict != "compatible"
    assert "'parquet' to 'json'" in report.findings[0].message


def test_a_change_judged_by_the_sink_kind_is_asked_when_the_formats_differ() -> None:
    new = WRITER_FORK.replace('start("/t/e")', 'start("/t/f")')
    found = codes(WRITER_FORK, new)
    assert found == ["SK05", "UN01"]


def test_a_checkpoint_moved_is_asked_for_the_other_branch_too() -> None:
    new = WRITER_FORK.replace('"/chk/e"', '"/chk/f"')
    assert "UN01" in codes(WRITER_FORK, new)


def test_queries_started_in_branches_share_the_dataframe_change() -> None:
    assert codes(STARTED_IN_BRANCHES, rate_limited(STARTED_IN_BRANCHES)) == ["SO05"]


def test_queries_started_in_branches_other_partitioning_changed_is_asked() -> None:
    new = STARTED_IN_BRANCHES.replace('partitionBy("k")', 'partitionBy("v")')
    assert "UN01" in codes(STARTED_IN_BRANCHES, new)


def test_a_nested_choice_in_the_other_branch_counts_as_its_settings() -> None:
    assert codes(NESTED, rate_limited(NESTED)) == ["SO05"]
    new = NESTED.replace('writer.format("json")', 'writer.format("avro")')
    assert "UN01" in codes(NESTED, new)


def test_a_change_by_sink_kind_is_asked_through_a_nested_choice() -> None:
    new = NESTED.replace('"/t/e"', '"/t/f"')
    assert "UN01" in codes(NESTED, new)


def test_a_dataframe_chosen_at_run_time_is_compared_on_each_branch() -> None:
    # Not a writer of the same DataFrame: the branch not read is compared with its old self.
    # A rate limit upstream is compatible on both branches; a new deduplication key on the
    # branch not read is that branch's DD01.
    job = """
import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
if sys.argv[1] == "all":
    out = df.selectExpr("CAST(value AS STRING) AS v")
else:
    out = df.selectExpr("CAST(value AS STRING) AS v", "key").dropDuplicates(["v"])
out.writeStream.format("delta").option("checkpointLocation", "/chk/e").start("/t/e")
"""
    assert codes(job, rate_limited(job)) == ["SO05"]
    assert codes(job, job.replace('dropDuplicates(["v"])', 'dropDuplicates(["v", "key"])')) \
        == ["DD01"]


PLAIN = """
import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
out = df.selectExpr("CAST(value AS STRING) AS v")
out.writeStream.format("console").option("checkpointLocation", "/chk/e").start()
"""


def test_a_new_fork_whose_branches_differ_only_in_a_projection_is_no_question() -> None:
    # Either branch continues the old query with a stateless step: no UN01.
    forked = PLAIN.replace('out = df.selectExpr("CAST(value AS STRING) AS v")\n',
                           'out = df.selectExpr("CAST(value AS STRING) AS v")\n'
                           'if "--upper" in sys.argv:\n'
                           '    out = out.selectExpr("upper(v) AS v")\n')
    report = diff_jobs(extract_text(PLAIN, "old.py"), extract_text(forked, "new.py"))
    assert report.verdict == "compatible"
    assert [f.code for f in report.findings] == ["PR02"]  # the branch read: a note


def test_a_new_fork_whose_other_branch_keeps_state_is_named() -> None:
    # The old deployment keeps to the branch without `--count`, the old query again: the new
    # way, which adds state, is named (UN09) rather than judged as the query's change.
    forked = PLAIN.replace('out = df.selectExpr("CAST(value AS STRING) AS v")\n',
                           'out = df.selectExpr("CAST(value AS STRING) AS v")\n'
                           'if "--count" in sys.argv:\n'
                           '    out = out.groupBy("v").count()\n')
    report = diff_jobs(extract_text(PLAIN, "old.py"), extract_text(forked, "new.py"))
    assert [f.code for f in report.findings] == ["UN09"]
    assert "a stateful operator is added" in report.findings[0].message
    # Where the state is the only path, it is the query's change.
    counted = PLAIN.replace('out = df.selectExpr("CAST(value AS STRING) AS v")\n',
                            'out = df.selectExpr("CAST(value AS STRING) AS v")\n'
                            'out = out.groupBy("v").count()\n')
    assert "UN09" not in codes(PLAIN, counted) and codes(PLAIN, counted)


def test_a_stateless_query_with_forks_read_as_data_is_stateless() -> None:
    # The forks hide no state: a shuffle-partition change is judged as on a stateless query
    # (CF07 on Spark 4.1+), not as on one that may keep state (CF01).
    job = PLAIN.replace('out = df.selectExpr("CAST(value AS STRING) AS v")\n',
                        'out = df.selectExpr("CAST(value AS STRING) AS v")\n'
                        'if "--upper" in sys.argv:\n'
                        '    out = out.selectExpr("upper(v) AS v")\n')
    pinned = job.replace("import sys\n",
                         'import sys\nspark.conf.set("spark.sql.shuffle.partitions", "8")\n')
    repinned = pinned.replace('"8"', '"16"')
    assert codes(pinned, repinned) == ["CF07"]


# A file sink as the old query, and a new `--sink` that may write it in a batch function
# instead: the branch a deployment configured as before takes writes the old sink again.
FILE_SINK = """
import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
out = df.selectExpr("CAST(value AS STRING) AS v")
writer = (out.writeStream.outputMode("append").format("parquet").option("path", "/t/e")
          .option("checkpointLocation", "/chk/e"))
writer.start()
"""

SINK_CHOSEN = """
import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
out = df.selectExpr("CAST(value AS STRING) AS v")

def upsert(batch, epoch):
    batch.write.mode("append").saveAsTable("events")

writer = out.writeStream.outputMode("append").option("checkpointLocation", "/chk/e")
if sys.argv[1] == "table":
    writer = writer.foreachBatch(upsert)
else:
    writer = writer.format("parquet").option("path", "/t/e")
writer.start()
"""


def test_a_new_sink_beside_the_old_one_is_a_new_way_not_the_querys_change() -> None:
    report = diff_jobs(extract_text(FILE_SINK, "old.py"), extract_text(SINK_CHOSEN, "new.py"))
    assert [f.code for f in report.findings] == ["UN09"]
    assert "the sink changed from 'parquet' to 'foreachBatch'" in report.findings[0].message


def test_a_new_sink_beside_one_that_moved_the_path_is_still_judged() -> None:
    # The other branch writes elsewhere: no branch continues the old query.
    moved = SINK_CHOSEN.replace('.option("path", "/t/e")', '.option("path", "/t/e2")')
    found = codes(FILE_SINK, moved)
    assert "UN09" not in found and "SK04" in found


def test_a_new_sink_beside_one_on_another_checkpoint_is_still_judged() -> None:
    # Only the other branch moves the checkpoint: it is no continuation of the old query.
    moved = SINK_CHOSEN.replace(
        'writer.format("parquet").option("path", "/t/e")',
        'writer.format("parquet").option("path", "/t/e").option("checkpointLocation", "/c2")')
    found = codes(FILE_SINK, moved)
    assert "UN09" not in found and "SK04" in found


# A helper that sets the format, checkpoint and path per format, in an if/elif with no
# else: for any other format it sets nothing, and Spark refuses that writer at start (a file
# sink with no path). Moving a setting both branches share into the branches is no change.
HELPER = """
import sys

def persist(writer, fmt, checkpoint, path):
    if fmt == "csv":
        writer.format(fmt).option("header", "true").option("checkpointLocation", checkpoint)\\
            .option("path", path){MODE}
    elif fmt in ("json", "parquet"):
        writer.format(fmt).option("checkpointLocation", checkpoint).option("path", path){MODE}
    return writer

df = spark.readStream.format("kafka").option("subscribe", "events").load()
out = df.selectExpr("CAST(value AS STRING) AS v")
writer = out.writeStream{SHARED}
persist(writer, sys.argv[1], sys.argv[2], sys.argv[3]).start()
"""


def test_a_setting_moved_into_every_branch_of_a_helper_is_no_question() -> None:
    old = HELPER.replace("{MODE}", "").replace("{SHARED}", '.outputMode("append")')
    new = HELPER.replace("{MODE}", '.outputMode("append")').replace("{SHARED}", "")
    assert codes(old, new) == []


def test_a_path_moved_in_the_other_branch_of_a_helper_is_still_asked() -> None:
    old = HELPER.replace("{MODE}", "").replace("{SHARED}", '.outputMode("append")')
    new = HELPER.replace('.option("path", path){MODE}\n    return',
                         '.option("path", path + "/v2").outputMode("append")\n    return')
    new = new.replace("{MODE}", '.outputMode("append")').replace("{SHARED}", "")
    assert codes(old, new)


def test_a_checkpoint_moved_in_the_other_branch_of_a_helper_is_still_asked() -> None:
    old = HELPER.replace("{MODE}", "").replace("{SHARED}", '.outputMode("append")')
    new = old.replace('writer.format(fmt).option("checkpointLocation", checkpoint)'
                      '.option("path", path)',
                      'writer.format(fmt).option("checkpointLocation", checkpoint + "/v2")'
                      '.option("path", path)')
    assert codes(old, new)


def test_a_batch_function_changed_on_the_branch_not_read_is_asked() -> None:
    # The file branch is read; the batch function's code is the other branch's, unread.
    files_first = (SINK_CHOSEN.replace('== "table"', '!= "table"')
                   .replace("writer = writer.foreachBatch(upsert)", "FOREACH")
                   .replace('writer = writer.format("parquet").option("path", "/t/e")',
                            "writer = writer.foreachBatch(upsert)")
                   .replace("FOREACH", 'writer = writer.format("parquet").option("path", "/t/e")'))
    edited = files_first.replace('mode("append")', 'mode("overwrite")')
    assert "UN01" in codes(files_first, edited)


# The old job set the format, checkpoint and path itself; the new one moves them into a helper
# whose if/elif has no else (any other format sets nothing: Spark refuses a file sink with no
# path at its start, so no query runs there and none restarts).
INLINE = """
import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
out = df.selectExpr("CAST(value AS STRING) AS v")
fmt, checkpoint, path = sys.argv[1], sys.argv[2], sys.argv[3]
out.writeStream.outputMode("append").format(fmt).option("checkpointLocation", checkpoint)\\
    .option("path", path).start()
"""
INTO_HELPER = HELPER.replace("{MODE}", "").replace("{SHARED}", '.outputMode("append")')


def test_settings_moved_into_a_helpers_elif_chain_without_else_are_no_question() -> None:
    assert [c for c in codes(INLINE, INTO_HELPER) if c.startswith("UN")] == []


def test_a_path_moved_in_the_elif_of_a_helper_without_else_is_still_found() -> None:
    moved = INTO_HELPER.replace('.option("path", path)\n    return',
                                '.option("path", path + "/v2")\n    return')
    assert moved != INTO_HELPER and codes(INLINE, moved)


# A new opt-in source beside Auto Loader, whose options are built only where the old format
# is asked for (`build(cfg) if cfg["kind"] == "files" else {}`) and handed to the reader
# helper: the old deployment keeps to the branches that read files with those options.
OPT_IN_OLD = """
import sys
import json
cfg = json.loads(sys.argv[1])

def build_options(cfg):
    return {"cloudFiles.format": "json", "cloudFiles.schemaLocation": cfg["root"] + "/schema"}

def build_reader(cfg, options):
    reader = spark.readStream.format("cloudFiles")
    for key, value in options.items():
        reader = reader.option(key, value)
    df = reader.load("/landing/orders")
    return df.withColumn("ingested_at", F.current_timestamp())

options = build_options(cfg)
df = build_reader(cfg, options)
df.writeStream.option("checkpointLocation", "/chk/orders").toTable("bronze.orders")
"""
OPT_IN_NEW = """
import sys
import json
cfg = json.loads(sys.argv[1])

def build_options(cfg):
    return {"cloudFiles.format": "json", "cloudFiles.schemaLocation": cfg["root"] + "/schema"}

def build_reader(cfg, options):
    if cfg["kind"] == "delta":
        df = spark.readStream.format("delta").table(cfg["table"])
    else:
        reader = spark.readStream.format("cloudFiles")
        for key, value in options.items():
            reader = reader.option(key, value)
        df = reader.load("/landing/orders")
    return df.withColumn("ingested_at", F.current_timestamp())

options = build_options(cfg) if cfg["kind"] == "files" else {}
df = build_reader(cfg, options)
df.writeStream.option("checkpointLocation", "/chk/orders").toTable("bronze.orders")
"""


def test_options_chosen_by_a_new_condition_beside_a_new_source_are_compared_each() -> None:
    report = diff_jobs(extract_text(OPT_IN_OLD, "old.py"), extract_text(OPT_IN_NEW, "new.py"))
    assert sorted(f.code for f in report.findings) == ["UN09", "UN09"]
    assert report.verdict == "compatible"


def test_an_option_changed_on_the_branch_the_old_deployment_keeps_is_still_found() -> None:
    changed = OPT_IN_NEW.replace('"cloudFiles.format": "json"', '"cloudFiles.format": "csv"')
    report = diff_jobs(extract_text(OPT_IN_OLD, "old.py"), extract_text(changed, "new.py"))
    assert report.verdict != "compatible"
    assert {"UN09"} != {f.code for f in report.findings}
