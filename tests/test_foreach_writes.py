"""A foreachBatch function is compared by what it writes (issue 26, item 6): its writes are
read as data (`BatchWrite`: kind, target, mode, condition, columns) from DataFrameWriter chains,
Delta merges, SQL text and clients' write calls, in its own code and in the helpers it reaches.
A change of them is SK12 (review); an edit that leaves them as they were is SK07 (compatible).
Its fingerprint covers the helpers and constants it reaches, so an edit there is compared too.
"""

from __future__ import annotations

from pathlib import Path

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.model import BatchWrite
from streamlint.workflow.files import diff_files

SQL_MERGE = '''
TARGET = "gold.accounts"

def upsert(batch_df, batch_id):
    batch_df.createOrReplaceTempView("updates")
    batch_df.sparkSession.sql(f"""
        MERGE INTO {TARGET} t
        USING (SELECT * FROM updates WHERE id IS NOT NULL) s
        ON t.id = s.id AND t.current
        WHEN MATCHED THEN UPDATE SET t.current = false, t.end = s.start
        WHEN NOT MATCHED THEN INSERT (id, current, start) VALUES (s.id, true, s.start)
    """)

df = spark.readStream.format("kafka").option("subscribe", "in").load()
df.writeStream.foreachBatch(upsert).option("checkpointLocation", "/chk/q").start()
'''

DELTA_MERGE = '''
from delta.tables import DeltaTable

def upsert(batch_df, batch_id):
    target = DeltaTable.forName(batch_df.sparkSession, "silver.users")
    (target.alias("t").merge(batch_df.alias("s"), "t.id = s.id")
        .whenMatchedUpdate(set={"name": "s.name", "email": "s.email"})
        .whenNotMatchedInsertAll()
        .execute())

df = spark.readStream.format("kafka").option("subscribe", "in").load()
df.writeStream.foreachBatch(upsert).option("checkpointLocation", "/chk/q").start()
'''

WRITER = '''
import logging

log = logging.getLogger(__name__)
OUT = "/data/events"

def save(batch_df, batch_id):
    batch_df.write.format("delta").mode("append").partitionBy("day").save(OUT)

df = spark.readStream.format("kafka").option("subscribe", "in").load()
df.writeStream.foreachBatch(save).option("checkpointLocation", "/chk/q").start()
'''


def findings(old: str, new: str) -> list[tuple[str, str]]:
    assert old != new
    report = diff_jobs(extract_text(old, "job.py"), extract_text(new, "job.py"))
    return [(f.code, f.verdict) for f in report.findings]


def writes(text: str) -> tuple[BatchWrite, ...] | None:
    (query,) = extract_text(text, "job.py").queries
    assert query.sink.foreach is not None
    return query.sink.foreach.writes


def test_writes_are_read_as_data() -> None:
    assert writes(SQL_MERGE) == (BatchWrite(
        "merge", "gold.accounts", None, "t.id = s.id AND t.current",
        ("WHEN MATCHED THEN UPDATE SET t.current, t.end",
         "WHEN NOT MATCHED THEN INSERT (id, current, start)")),)
    assert writes(DELTA_MERGE) == (BatchWrite(
        "merge", "silver.users", None, "t.id = s.id",
        ("whenMatchedUpdate (name, email)", "whenNotMatchedInsertAll")),)
    assert writes(WRITER) == (BatchWrite("delta", "/data/events", "append", None,
                                         ("partitionBy(day)",)),)


def test_a_changed_merge_condition_target_or_columns_is_review() -> None:
    for old, new in (
            ("AND t.current", "AND t.current AND t.end IS NULL"),
            ("INSERT (id, current, start)", "INSERT (id, current)"),
            ('TARGET = "gold.accounts"', 'TARGET = "gold.accounts_v2"')):
        changed = SQL_MERGE.replace(old, new)
        if old.startswith("INSERT"):
            changed = changed.replace("VALUES (s.id, true, s.start)", "VALUES (s.id, true)")
        assert findings(SQL_MERGE, changed) == [("SK12", "review")], (old, new)


def test_the_feeding_query_comments_and_logging_are_not_writes() -> None:
    for old, new in (
            ("WHERE id IS NOT NULL", "WHERE id IS NOT NULL AND id > 0"),
            ("SELECT * FROM updates", "SELECT /*+ BROADCAST(updates) */ * FROM updates"),
):
        assert findings(SQL_MERGE, SQL_MERGE.replace(old, new)) == [("SK07", "compatible")]
    # A print or a log line is not even a code change to note (extract/code_facts.py _essential).
    printed = SQL_MERGE.replace('    batch_df.createOrReplaceTempView("updates")\n',
                                '    print("batch", batch_id)\n'
                                '    batch_df.createOrReplaceTempView("updates")\n')
    assert findings(SQL_MERGE, printed) == []


def test_delta_merge_changes() -> None:
    assert findings(DELTA_MERGE, DELTA_MERGE.replace('"t.id = s.id"', '"t.id = s.id AND s.ok"')
                    ) == [("SK12", "review")]
    assert findings(DELTA_MERGE, DELTA_MERGE.replace(', "email": "s.email"', "")
                    ) == [("SK12", "review")]
    renamed = DELTA_MERGE.replace("target =", "table =").replace("(target.", "(table.")
    assert findings(DELTA_MERGE, renamed) == [("SK07", "compatible")]


def test_writer_mode_target_and_extra_outputs() -> None:
    assert findings(WRITER, WRITER.replace('mode("append")', 'mode("overwrite")')
                    ) == [("SK12", "review")]
    assert findings(WRITER, WRITER.replace('OUT = "/data/events"', 'OUT = "/data/events2"')
                    ) == [("SK12", "review")]
    extra = WRITER.replace(
        '.save(OUT)\n',
        '.save(OUT)\n    batch_df.write.format("kafka").option("topic", "audit").save()\n')
    assert findings(WRITER, extra) == [("SK12", "review")]
    client = WRITER.replace('.save(OUT)\n', '.save(OUT)\n    producer.send("audit", b"x")\n')
    assert findings(WRITER, client) == [("SK12", "review")]
    logged = WRITER.replace('.save(OUT)\n', '.save(OUT)\n    log.info("saved %s", batch_id)\n')
    assert findings(WRITER, logged) == []  # a log line is no change of the function's code
    filtered = WRITER.replace("batch_df.write", 'batch_df.filter("ok").write')
    assert findings(WRITER, filtered) == [("SK07", "compatible")]


def test_a_helper_the_function_calls_is_part_of_it() -> None:
    helper = '''
def write_out(df, topic):
    return df.write.format("kafka").option("topic", topic)

def save(batch_df, batch_id):
    write_out(batch_df, "risk")

df = spark.readStream.format("kafka").option("subscribe", "in").load()
df.writeStream.foreachBatch(save).option("checkpointLocation", "/chk/q").start()
'''
    saved = helper.replace('option("topic", topic)', 'option("topic", topic).save()')
    assert writes(helper) == ()
    # A value known only at run time is shown as its code, as an f-string's hole is.
    assert writes(saved) == (BatchWrite("kafka", "{topic}", None, None),)
    assert findings(helper, saved) == [("SK12", "review")]
    # An edit of the helper that writes the same is still the function's code (a print is
    # not: it is left out of what can reach the writes).
    commented = helper.replace("def write_out(df, topic):\n",
                               "def write_out(df, topic):\n    topic = topic.strip()\n")
    assert findings(helper, commented) == [("SK07", "compatible")]
    printed = helper.replace("def write_out(df, topic):\n",
                             "def write_out(df, topic):\n    print(topic)\n")
    assert findings(helper, printed) == []
    # An edit of code the function does not reach is nothing.
    other = helper + "\ndef unrelated():\n    return 1\n"
    assert findings(helper, other) == []


def test_a_function_streamlint_cannot_read_keeps_its_finding() -> None:
    job = '''
from some_package import sinks

df = spark.readStream.format("kafka").option("subscribe", "in").load()
df.writeStream.foreachBatch(sinks.upsert).option("checkpointLocation", "/chk/q").start()
'''
    assert writes(job) is None
    changed = job.replace("sinks.upsert", "sinks.upsert_v2")
    assert [code for code, _ in findings(job, changed)] != []


def test_sql_that_cannot_be_read_is_compared_as_text() -> None:
    job = '''
def save(batch_df, batch_id):
    batch_df.sparkSession.sql(QUERY)

df = spark.readStream.format("kafka").option("subscribe", "in").load()
df.writeStream.foreachBatch(save).option("checkpointLocation", "/chk/q").start()
'''
    (write,) = writes(job) or ()
    assert write.kind == "sql"
    assert findings(job, job.replace("sql(QUERY)", "sql(OTHER_QUERY)")) == [("SK12", "review")]


def test_a_helper_module_the_function_lives_in(tmp_path: Path) -> None:
    job = '''from jobs.sinks import upsert

df = spark.readStream.format("kafka").option("subscribe", "in").load()
df.writeStream.foreachBatch(upsert).option("checkpointLocation", "/chk/q").start()
'''
    sinks = '''TABLE = "{table}"

def upsert(batch_df, batch_id):
    batch_df.write.mode("append").saveAsTable(TABLE)
'''
    for side, table in (("old", "silver.t"), ("new", "silver.t2")):
        root = tmp_path / side
        (root / "jobs").mkdir(parents=True)
        (root / ".git").mkdir()
        (root / "jobs" / "sinks.py").write_text(sinks.format(table=table))
        (root / "jobs" / "job.py").write_text(job)
    report = diff_files(str(tmp_path / "old" / "jobs" / "job.py"),
                        str(tmp_path / "new" / "jobs" / "job.py"))
    assert [(f.code, f.verdict) for f in report.findings] == [("SK12", "review")]
    assert "silver.t2" in report.findings[0].message


def test_a_replace_where_is_the_writes_condition() -> None:
    job = WRITER.replace('mode("append")', 'mode("overwrite").option("replaceWhere", "day = 1")')
    assert writes(job) == (BatchWrite("delta", "/data/events", "overwrite", "day = 1",
                                      ("partitionBy(day)",)),)
    assert findings(job, job.replace("day = 1", "day >= 1")) == [("SK12", "review")]


def test_a_helper_imported_from_a_repository_module(tmp_path: Path) -> None:
    job = '''from jobs.writers import write_out

def save(batch_df, batch_id):
    write_out(batch_df)

df = spark.readStream.format("kafka").option("subscribe", "in").load()
df.writeStream.foreachBatch(save).option("checkpointLocation", "/chk/q").start()
'''
    writers = '''def write_out(df):
    df.write.mode("{mode}").saveAsTable("silver.t")
'''
    for side, mode in (("old", "append"), ("new", "overwrite")):
        root = tmp_path / side
        (root / "jobs").mkdir(parents=True)
        (root / ".git").mkdir()
        (root / "jobs" / "writers.py").write_text(writers.format(mode=mode))
        (root / "jobs" / "job.py").write_text(job)
    report = diff_files(str(tmp_path / "old" / "jobs" / "job.py"),
                        str(tmp_path / "new" / "jobs" / "job.py"))
    assert [(f.code, f.verdict) for f in report.findings] == [("SK12", "review")]
    assert "mode overwrite" in report.findings[0].message


def test_a_clients_credentials_are_not_shown() -> None:
    job = WRITER.replace('.save(OUT)\n',
                         '.save(OUT)\n    Mongo(password="hunter2").events.insert_one({"a": 1})\n')
    (_, call) = writes(job) or ()
    assert "hunter2" not in str(call)
    assert call.kind == "call"


def test_a_delta_delete_or_update() -> None:
    deleted = '    target.delete("s.op = \'d\'")\n    (target.alias'
    job = DELTA_MERGE.replace("    (target.alias", deleted)
    first, _ = writes(job) or ()
    assert first == BatchWrite("delete", "silver.users", None, "s.op = 'd'")
    assert findings(DELTA_MERGE, job) == [("SK12", "review")]


NESTED = '''
def main():
    print("starting")

    def upsert(batch_df, batch_id):
        batch_df.write.mode("append").saveAsTable("silver.t")

    df = spark.readStream.format("kafka").option("subscribe", "in").load()
    df.writeStream.foreachBatch(upsert).option("checkpointLocation", "/chk/q").start()

main()
'''


def test_a_nested_function_is_read_alone() -> None:
    assert findings(NESTED, NESTED.replace('"starting"', '"started"')) == []
    assert findings(NESTED, NESTED.replace('"append"', '"overwrite"')) == [("SK12", "review")]


METHOD = '''
class Job:
    def __init__(self, table):
        self.table = table

    def report(self):
        print("report")

    def upsert(self, batch_df, batch_id):
        batch_df.write.mode("append").saveAsTable("silver.t")

    def run(self):
        df = spark.readStream.format("kafka").option("subscribe", "in").load()
        df.writeStream.foreachBatch(self.upsert).option("checkpointLocation", "/chk/q").start()

Job("t").run()
'''


def test_a_method_is_read_with_what_can_reach_it() -> None:
    assert findings(METHOD, METHOD.replace('print("report")', 'print("done")')) == []
    assert findings(METHOD, METHOD.replace('"append"', '"overwrite"')) == [("SK12", "review")]


BESIDE_THE_LAMBDA = '''
if __name__ == "__main__":
    df = spark.readStream.format("kafka").option("subscribe", "in").load()

    def write_out(batch):
        batch.write.format("org.apache.spark.sql.cassandra").mode("append") \\
            .options(table="user_actions", keyspace="events").save()

    df.writeStream.foreachBatch(lambda batch, _: write_out(batch)).start()
'''

AT_MODULE_LEVEL = '''
def write_out(batch):
    batch.write.format("org.apache.spark.sql.cassandra").mode("append").options(
        table="user_actions", keyspace="events"
    ).save()


if __name__ == "__main__":
    df = spark.readStream.format("kafka").option("subscribe", "in").load()
    df.writeStream.foreachBatch(lambda batch, _: write_out(batch)).start()
'''


def test_a_helper_defined_beside_the_lambda_is_part_of_it() -> None:
    # A real commit moved the helper out of `if __name__ == "__main__":`: the same writes.
    assert writes(BESIDE_THE_LAMBDA) == writes(AT_MODULE_LEVEL) != ()
    assert {c for c, _ in findings(BESIDE_THE_LAMBDA, AT_MODULE_LEVEL)} <= {"SK07"}


def test_a_helper_beside_the_lambda_that_writes_elsewhere_is_review() -> None:
    moved = AT_MODULE_LEVEL.replace('table="user_actions"', 'table="user_events"')
    assert "SK12" in [c for c, _ in findings(BESIDE_THE_LAMBDA, moved)]


def test_a_dataframe_writer_under_row_wise_foreach_fails_instead_of_writing() -> None:
    # foreach(f) hands f a Row: `row.write...save()` fails; under foreachBatch it writes.
    row_wise = BESIDE_THE_LAMBDA.replace("foreachBatch(lambda batch, _: write_out(batch))",
                                         "foreach(write_out)")
    assert ("SK12", "review") in findings(row_wise, BESIDE_THE_LAMBDA)
    client = row_wise.replace('batch.write.format("org.apache.spark.sql.cassandra")',
                              'producer.send("events", batch)\n        batch.write.format("x")')
    # A client's call is a write under foreach too: another topic is review.
    assert ("SK12", "review") in findings(client, client.replace('"events", batch',
                                                                 '"events_v2", batch'))
    printing = row_wise.replace('batch.write.format("org.apache.spark.sql.cassandra")',
                                'print(batch)\n        batch.foo("x")')
    assert ("SK12", "review") in findings(printing, row_wise)  # prints, then fails
