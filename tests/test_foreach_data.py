"""What a foreachBatch write writes is compared (issue 26, item 6): the steps from the batch to
the written data are read as `WrittenStep` records on each `BatchWrite` (columns, rows picked
otherwise than by a predicate, the query feeding an INSERT). The same writes with other data
are SK15 (review); a filter of the batch, a hint, caching, logging and renamed variables stay
SK07 (compatible). The shapes come from real commits of the history corpus: a "latest row per
key" window replaced by an arbitrary dropDuplicates before a JDBC append, an INSERT whose join
predicate moved from a WHERE on a run-time date to the ON clause, a Mongo insert whose records
gain a field or a column subset.
"""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.model import WrittenStep

TAIL = '''
df = spark.readStream.format("kafka").option("subscribe", "quotes").load()
df.writeStream.foreachBatch(save).option("checkpointLocation", "/chk/quotes").start()
'''

LATEST_ROW = '''
from pyspark.sql import Window
from pyspark.sql.functions import col, row_number

OPTS = {"url": "jdbc:postgresql://db/prices", "dbtable": "daily"}

def save(df, batch_id):
    try:
        if df.rdd.isEmpty():
            return
        w = Window.partitionBy("symbol", "day").orderBy(col("ingested_at").desc())
        latest = df.withColumn("rn", row_number().over(w)).filter(col("rn") == 1).drop("rn")
        latest.write.format("jdbc").options(**OPTS).mode("append").save()
    except Exception as e:
        print("failed", e)
''' + TAIL


def findings(old: str, new: str) -> list[tuple[str, str]]:
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return sorted((f.code, f.verdict) for f in report.findings)


def test_the_data_a_write_writes_is_a_typed_fact() -> None:
    (query,) = extract_text(LATEST_ROW.replace(
        'latest = df.withColumn("rn", row_number().over(w)).filter(col("rn") == 1).drop("rn")',
        'latest = df.dropDuplicates(["symbol", "day"])'), "job.py").queries
    assert query.sink.foreach is not None and query.sink.foreach.writes is not None
    (write,) = query.sink.foreach.writes
    assert write.data == (WrittenStep("rows", "dropDuplicates", ("['symbol', 'day']",)),)


def test_latest_row_per_key_replaced_by_any_duplicate_is_review() -> None:
    new = LATEST_ROW.replace(
        'latest = df.withColumn("rn", row_number().over(w)).filter(col("rn") == 1).drop("rn")',
        'latest = df.dropDuplicates(["symbol", "day"])')
    assert findings(LATEST_ROW, new) == [("SK15", "review")]


def test_logging_and_a_renamed_variable_leave_the_data_as_it_was() -> None:
    new = LATEST_ROW.replace("latest", "newest").replace(
        'print("failed", e)', 'print("failed", e)\n        raise')
    assert findings(LATEST_ROW, new) == [("SK07", "compatible")]


def test_a_filter_and_caching_of_a_reassigned_batch_stay_compatible() -> None:
    old = '''
def save(batch_df, batch_id):
    out = batch_df.select("id", "amount")
    out.write.format("delta").mode("append").saveAsTable("silver.orders")
''' + TAIL
    new = '''
def save(batch_df, batch_id):
    batch_df = batch_df.cache()
    batch_df = batch_df.filter("amount > 0")
    out = batch_df.select("id", "amount")
    out.write.format("delta").mode("append").saveAsTable("silver.orders")
    batch_df.unpersist()
''' + TAIL
    assert findings(old, new) == [("SK07", "compatible")]
    # The must-fire side: a deduplication of the reassigned batch changes which rows are written.
    deduped = new.replace('batch_df.filter("amount > 0")', 'batch_df.dropDuplicates(["id"])')
    assert findings(old, deduped) == [("SK15", "review")]


def test_a_column_built_by_a_repository_helper_is_part_of_the_function() -> None:
    old = '''
def prepare(df):
    return df.select("id", "amount")

def save(batch_df, batch_id):
    prepare(batch_df).write.format("delta").mode("append").saveAsTable("silver.orders")
''' + TAIL
    new = old.replace('df.select("id", "amount")', 'df.select("id", "amount", "currency")')
    assert findings(old, new) == [("SK15", "review")]


INSERT = '''
batch_date = dbutils.widgets.get("batch_date")

def save(batch_df, batch_id):
    batch_df.createOrReplaceTempView("holdings")
    batch_df.sparkSession.sql(f"""
        INSERT INTO gold.holdings
        SELECT h.trade_id, t.account_id, h.qty
        FROM holdings h
        JOIN gold.trades t
          ON t.trade_id = h.trade_id
        WHERE t.close_day = date_format('{batch_date}', 'yyyyMMdd')
    """)
''' + TAIL


def test_a_join_predicate_moved_into_the_on_clause_is_review() -> None:
    new = INSERT.replace("WHERE t.close_day = date_format('{batch_date}', 'yyyyMMdd')",
                         " AND t.close_day = date_format(h.event_day, 'yyyyMMdd')")
    assert findings(INSERT, new) == [("SK15", "review")]


def test_a_filter_before_the_view_and_a_hint_in_the_insert_stay_compatible() -> None:
    new = INSERT.replace(
        'batch_df.createOrReplaceTempView("holdings")',
        '# skip the seeded rows\n    '
        'batch_df.filter("day >= \'2016-07-06\'").createOrReplaceTempView("holdings")').replace(
        "SELECT h.trade_id", "SELECT /*+ BROADCAST(t) */ h.trade_id").replace(
        "WHERE t.close_day", "WHERE t.qty > 0 AND t.close_day")
    assert findings(INSERT, new) == [("SK07", "compatible")]


MONGO = '''
from datetime import datetime

def save(batch_df, batch_id):
    alerts = batch_df.filter("is_attack")
    records = alerts.toPandas().to_dict("records")
    for record in records:
        record["batch_id"] = batch_id
        record["inserted_at"] = datetime.now()
    if records:
        collection.insert_many(records)
        print(f"inserted {len(records)}")
''' + TAIL


def test_a_field_set_on_each_record_of_a_client_insert_is_review() -> None:
    new = MONGO.replace('record["inserted_at"] = datetime.now()',
                        'record["inserted_at"] = datetime.now()\n'
                        '        record["session_id"] = SESSION')
    assert findings(MONGO, new) == [("SK15", "review")]


def test_a_column_subset_before_a_client_insert_is_review() -> None:
    new = MONGO.replace('records = alerts.toPandas()',
                        'records = alerts.select(["is_attack", "severity"]).toPandas()')
    assert findings(MONGO, new) == [("SK15", "review")]


def test_a_client_insert_with_other_logging_stays_compatible() -> None:
    new = MONGO.replace('print(f"inserted {len(records)}")',
                        'print(f"batch {batch_id}: inserted {len(records)}")')
    assert all(verdict == "compatible" for _, verdict in findings(MONGO, new))
