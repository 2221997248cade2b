"""The Spark SQL front end: the dialect, SQL expressions as model trees, SQL statements as
the operators DataFrame code gives, temp-view chains, `%sql` cells, SQL it cannot read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.extract.sql import expressions
from streamlint.extract.sql.dialect import parse_statements
from streamlint.extract.sql.parse import parse_expression
from streamlint.extract.sql.simple import parse_simple
from streamlint.model.expr import (
    Alias,
    Binary,
    Call,
    Case,
    Cast,
    Column,
    Field,
    Interval,
    Literal,
    Star,
    Unary,
    Unresolved,
    call,
    render,
)
from streamlint.model.records import replace
from streamlint.rulebook.book import load_rules

ROOT = Path(__file__).resolve().parent.parent
MINUTES_5 = Interval(300_000_000)

HEAD = """\
from pyspark.sql import SparkSession, functions as F
spark = SparkSession.builder.getOrCreate()
orders = (spark.readStream.format("kafka").option("subscribe", "orders").load()
          .withWatermark("ts", "10 minutes"))
"""
SINK = """
out.writeStream.format("delta").option("checkpointLocation", "/chk/q").start("/out")
"""


def job(body: str, path: str = "job.py") -> Any:
    return extract_text(HEAD + body + SINK, path)


def shape(body: str) -> list[Any]:
    """The query's operators with their locations dropped (two spellings sit on other lines)."""
    (query,) = job(body).queries
    return [replace(op, loc=None) for op in query.operators]


def verdict(old: str, new: str) -> tuple[str, list[str]]:
    report = diff_jobs(job(old), job(new))
    return report.verdict, [f.code for f in report.findings]


def code(name: str) -> str:
    return next(r.code for r in load_rules() if r.name == name)


# -- the dialect ------------------------------------------------------------------------------


@pytest.mark.parametrize(("sql", "count"), [
    ("SELECT k, count(*) FROM t GROUP BY window(ts, '5 minutes'), k", 2),
    ("SELECT count(*) FROM t GROUP BY window(ts, '5 minutes')", 1),
    ("SELECT k, count(*) FROM t GROUP BY k, window(ts, '5 minutes', '1 minute')", 2),
    ("SELECT k, count(*) FROM t GROUP BY session_window(ts, '5 minutes'), k", 2),
])
def test_window_in_group_by_is_the_window_function(sql: str, count: int) -> None:
    (select,) = parse_statements(sql)
    keys = select.args["group"].expressions
    assert any(str(k.this).lower() in ("window", "session_window") for k in keys)
    assert len(keys) == count


def test_a_named_window_clause_still_parses() -> None:
    (select,) = parse_statements("SELECT a FROM t GROUP BY a WINDOW w AS (PARTITION BY a)")
    assert select.args["windows"]


def test_stream_reads_in_from() -> None:
    for sql in ("SELECT * FROM STREAM(events)", "SELECT * FROM STREAM events",
                "SELECT * FROM STREAM events AS e"):
        (query,) = job(f"out = spark.sql({sql!r})").queries
        (source,) = query.sources
        assert (source.format, source.identity, source.streaming) == (
            "table", (("table", "events"),), True)


def test_identified_by_names_the_source() -> None:
    """Spark 4.2+'s `STREAM t IDENTIFIED BY name` is `.name(name)` on the reader (Spark 4.3
    reads it so: the plan's StreamingRelation says `name="src_a"`; an alias may follow, not
    precede it)."""
    for sql in ("SELECT * FROM STREAM(events) IDENTIFIED BY src_a",
                "SELECT * FROM STREAM events IDENTIFIED BY src_a",
                "SELECT * FROM STREAM(events) IDENTIFIED BY `src_a` AS e WHERE id > 1"):
        (query,) = job(f"out = spark.sql({sql!r})").queries
        (source,) = query.sources
        assert (source.identity, source.name) == ((("table", "events"),), "src_a"), sql
    (query,) = job('out = spark.sql("SELECT * FROM STREAM(events) identified")').queries
    assert query.sources[0].name is None  # an alias named `identified`


def test_a_table_named_stream_is_a_table() -> None:
    (select,) = parse_statements("SELECT * FROM stream")
    assert select.args["from_"].this.name == "stream"


# -- expressions --------------------------------------------------------------------------------


@pytest.mark.parametrize(("sql", "expected"), [
    ("SUM(amount) AS total", Alias(call("sum", Column("amount")), "total")),
    ("sum(amount) total", Alias(call("sum", Column("amount")), "total")),
    ("count(1)", Call("count", (Star(),))),
    ("COUNT(*)", Call("count", (Star(),))),
    ("count(DISTINCT user)", Call("count", (Column("user"),), distinct=True)),
    ("mean(x)", Call("avg", (Column("x"),))),
    ("x IS NULL", Call("isnull", (Column("x"),))),
    ("x IS NOT NULL", Call("isnotnull", (Column("x"),))),
    ("a = b AND c", Binary("and", Binary("=", Column("a"), Column("b")), Column("c"))),
    ("NOT a OR b <> 1", Binary("or", Unary("not", Column("a")),
                               Binary("!=", Column("b"), Literal(1)))),
    ("x IN ('a', 'b')", Call("in", (Column("x"), Literal("a"), Literal("b")))),
    ("x LIKE 'a%'", Call("like", (Column("x"), Literal("a%")))),
    ("x BETWEEN 1 AND 2", Binary("and", Binary(">=", Column("x"), Literal(1)),
                                 Binary("<=", Column("x"), Literal(2)))),
    ("window(ts, '5 minutes')", Call("window", (Column("ts"), MINUTES_5))),
    ("window(ts, INTERVAL 5 MINUTES)", Call("window", (Column("ts"), MINUTES_5))),
    ("window(ts, '300 seconds', '5 minutes')", Call("window", (Column("ts"), MINUTES_5))),
    ("INTERVAL 10 MINUTES", Interval(600_000_000)),
    ("INTERVAL '10 minutes'", Interval(600_000_000)),
    ("INTERVAL 1 HOUR 30 MINUTES", Interval(5_400_000_000)),
    ("cast(x AS INT)", Cast(Column("x"), "int")),
    ("CAST(x AS long)", Cast(Column("x"), "bigint")),
    ("cast(x as decimal(10, 2))", Cast(Column("x"), "decimal(10,2)")),
    ("cast(x AS STRING) s", Alias(Cast(Column("x"), "string"), "s")),
    ("o.id", Column("id", "o")),
    ("o.*", Star("o")),
    ("payload['k']", Field(Column("payload"), "k")),
    ("CASE WHEN a > 1 THEN 'x' ELSE 'y' END",
     Case(((Binary(">", Column("a"), Literal(1)), Literal("x")),), Literal("y"))),
    ("upper(name) = 'X'", Binary("=", Call("upper", (Column("name"),)), Literal("X"))),
    ("TRUE", Literal(True)),
    ("NULL", Literal(None)),
    ("-5", Literal(-5)),
])
def test_sql_expressions_lower_to_the_canonical_trees(sql: str, expected: Any) -> None:
    assert parse_expression(sql) == expected


@pytest.mark.parametrize("sql", ["select", "a +", "sum(", "x FROM t", "a; b", ""])
def test_sql_it_cannot_read_is_unresolved_never_an_error(sql: str) -> None:
    assert isinstance(parse_expression(sql), Unresolved)


SIMPLE = [
    "amount", "o.id", "a.b.c", "o.*", "*", "`odd name`", "amount * 1.0", "-5", "-x", "1.5",
    "'it'", "TRUE", "null", "count(*)", "count(1) AS n", "COUNT(DISTINCT u) u",
    "sum(amount) total", "avg(x) AS `avg x`", "a = b", "a == b", "a <> b", "a != b",
    "a <=> b", "a < b AND c >= d OR NOT e", "NOT a = b", "NOT x IS NULL", "x IS NOT NULL",
    "x IN ('a', 'b')", "x NOT IN (1, 2)", "x BETWEEN 1 AND 2", "x NOT LIKE 'a%'",
    "x rlike '^a'", "a + b * c - d / e % f", "(a + b) * c",
    "payment_id = payment_ref AND settled_at BETWEEN event_time AND event_time + "
    "interval 3 days", "ts + INTERVAL 1 HOUR 30 MINUTES", "INTERVAL '10 minutes'",
    "window(ts, '5 minutes')", "window(ts, '10 minutes', '5 minutes') w",
    "session_window(ts, '5 minutes')", "cast(x AS int)", "CAST(x AS long) AS y",
    "cast(x as decimal(10, 2))", "cast(x as timestamp)", "current_timestamp()",
    "date_format(ts, 'yyyy-MM-dd') AS day", "upper(name) = 'X'", "coalesce(a, 0)",
    "to_timestamp(s)", "struct(a, b) AS s", "concat(a, b)", "lower(trim_me)",
    "from_json(value, 'a INT')", "approx_count_distinct(u, 0.05)", "first(x)",
    "max(a) - min(b)", "count(*) > 3", "a AND b AND c", "x IS NULL OR y IS NULL",
]
NOT_SIMPLE = ["x['k']", "CASE WHEN a THEN 1 END", "if(a, 1, 2)", "substring(s, 1, 2)",
              'a = "b"', "1e5", "current_timestamp", "max_by(a, b)", "a || b", "x::int",
              "transform(xs, x -> x + 1)", "sum(a) OVER (PARTITION BY b)"]


@pytest.mark.parametrize("sql", SIMPLE)
def test_the_reader_without_sqlglot_agrees_with_sqlglot(sql: str) -> None:
    simple = parse_simple(sql)
    assert simple is not None
    assert simple == expressions.parse_expression(sql)


@pytest.mark.parametrize("sql", NOT_SIMPLE)
def test_what_the_simple_reader_leaves_to_sqlglot(sql: str) -> None:
    assert parse_simple(sql) is None


# -- DataFrame and SQL spellings of one query give the same operators -----------------------

EQUIVALENT = [
    ('out = orders.groupBy(F.window("ts", "5 minutes"), "k")'
     '.agg(F.sum("amount").alias("total"), F.count("*").alias("n"))',
     'orders.createOrReplaceTempView("o")\n'
     'out = spark.sql("SELECT window(ts, \'5 minutes\') AS window, k, SUM(amount) AS total, '
     'count(1) AS n FROM o GROUP BY 1, k")'),
    ('out = orders.groupBy("k").agg(F.max("amount").alias("m"))',
     'out = orders.groupBy("k").agg(F.expr("MAX(amount) AS m"))'),
    ('out = orders.filter((F.col("amount") > 10) & F.col("k").isNotNull())',
     'out = orders.where("amount > 10 AND k IS NOT NULL")'),
    ('out = orders.select("k", F.col("amount").cast("int").alias("a"))',
     'out = orders.select("k", F.expr("CAST(amount AS INT) AS a"))'),
    ('out = orders.filter(F.col("amount") > 10).select("k", "amount")',
     'orders.createOrReplaceTempView("o")\n'
     'out = spark.sql("SELECT k, amount FROM o WHERE amount > 10")'),
    ('out = orders.groupBy("k").agg(F.count("*").alias("n")).filter(F.col("n") > 3)',
     'orders.createOrReplaceTempView("o")\n'
     'out = spark.sql("SELECT k, count(*) AS n FROM o GROUP BY k HAVING count(*) > 3")'),
    ('out = orders.groupBy("k").agg(F.countDistinct("user").alias("u"))',
     'orders.createOrReplaceTempView("o")\n'
     'out = spark.sql("SELECT k, count(DISTINCT user) AS u FROM o GROUP BY k")'),
]


@pytest.mark.parametrize(("dataframe", "sql"), EQUIVALENT)
def test_a_dataframe_to_sql_rewrite_gives_the_same_operators(dataframe: str, sql: str) -> None:
    assert shape(dataframe) == shape(sql)
    assert verdict(dataframe, sql)[0] == "compatible"


def test_select_distinct_is_an_aggregation_not_a_deduplication() -> None:
    """Spark plans SQL's DISTINCT as an Aggregate keyed by the selected columns (the optimizer's
    ReplaceDistinctWithAggregate), while `dropDuplicates()` is a Deduplicate: a restart from
    one to the other is refused (tests/spark_cases/sql_dropduplicates_to_select_distinct)."""
    sql = ('orders.createOrReplaceTempView("o")\n'
           'out = spark.sql("SELECT DISTINCT k, ts FROM o")')
    (op,) = [o for o in shape(sql) if o.kind == "aggregation"]
    assert (op.keys, op.aggregates) == ((Column("k"), Column("ts")), ())
    dataframe = 'out = orders.select("k", "ts").dropDuplicates()'
    assert verdict(dataframe, sql)[0] == "incompatible"


STREAMS = """\
clicks = (spark.readStream.format("kafka").option("subscribe", "clicks").load()
          .withWatermark("ct", "10 minutes"))
orders.createOrReplaceTempView("orders_v")
clicks.createOrReplaceTempView("clicks_v")
"""


def test_a_stream_stream_join_in_sql_is_the_dataframe_join() -> None:
    dataframe = STREAMS + ('out = orders.join(clicks, F.col("id") == F.col("oid"), '
                           '"left_outer")')
    sql = STREAMS + 'out = spark.sql("SELECT * FROM orders_v LEFT JOIN clicks_v ON id = oid")'
    assert shape(dataframe) == shape(sql)
    # The sides of `=` written the other way round: the same equi-join key for the diff.
    swapped = STREAMS + 'out = spark.sql("SELECT * FROM orders_v LEFT JOIN clicks_v ON oid = id")'
    assert verdict(dataframe, swapped)[0] == "compatible"
    using = STREAMS + 'out = spark.sql("SELECT * FROM orders_v JOIN clicks_v USING (id)")'
    assert shape(using) == shape(STREAMS + 'out = orders.join(clicks, "id")')


# -- SQL changes are judged like DataFrame changes -------------------------------------------

GROUPED = ('orders.createOrReplaceTempView("o")\n'
           'out = spark.sql("SELECT k, {fn}(amount) AS total FROM o GROUP BY {keys}")')


def test_sql_changes_are_judged_like_dataframe_changes() -> None:
    base = GROUPED.format(fn="SUM", keys="k")
    assert verdict(base, GROUPED.format(fn="sum", keys="1"))[0] == "compatible"
    state, codes = verdict(base, GROUPED.format(fn="SUM", keys="k, region"))
    assert state == "incompatible" and code("grouping-keys-changed") in codes
    assert verdict(base, GROUPED.format(fn="MAX", keys="k"))[0] == "incompatible"
    dataframe = 'out = orders.groupBy("k").agg(F.sum("amount").alias("total"))'
    assert verdict(dataframe, base)[0] == "compatible"


def test_a_window_size_changed_in_sql() -> None:
    sql = ('orders.createOrReplaceTempView("o")\n'
           'out = spark.sql("SELECT k, count(*) AS n FROM o GROUP BY window(ts, {}), k")')
    assert verdict(sql.format("'5 minutes'"), sql.format("INTERVAL 300 SECONDS"))[0] == (
        "compatible")
    assert verdict(sql.format("'5 minutes'"), sql.format("'10 minutes'"))[0] == "incompatible"


def test_a_join_type_changed_in_sql() -> None:
    sql = STREAMS + 'out = spark.sql("SELECT * FROM orders_v {} JOIN clicks_v ON oid = id")'
    assert verdict(sql.format("INNER"), sql.format(""))[0] == "compatible"
    assert verdict(sql.format("INNER"), sql.format("LEFT OUTER"))[0] != "compatible"


# -- statements and views -----------------------------------------------------------------------


def test_temp_view_chains_through_sql_and_python() -> None:
    body = ('orders.createOrReplaceTempView("raw")\n'
            'spark.sql("CREATE OR REPLACE TEMP VIEW big AS SELECT * FROM raw WHERE amount > 9")\n'
            'spark.sql("""CREATE OR REPLACE TEMPORARY VIEW per_k AS\n'
            '  WITH b AS (SELECT k, amount FROM big)\n'
            '  SELECT k, sum(amount) AS total FROM (SELECT * FROM b) GROUP BY k""")\n'
            'out = spark.table("per_k")\n')
    (query,) = job(body).queries
    assert [op.kind for op in query.operators] == ["watermark", "filter", "projection",
                                                   "aggregation"]
    assert query.operators[-1].keys == (Column("k"),)


def test_a_static_table_joined_to_a_stream() -> None:
    body = ('orders.createOrReplaceTempView("o")\n'
            'out = spark.sql("SELECT o.*, c.tier FROM o JOIN crm.customers c '
            'ON o.cid = c.id")')
    (query,) = job(body).queries
    (join,) = [op for op in query.operators if op.kind == "static_join"]
    assert any("crm.customers" in render(e) for e in join.on) and join.how == "inner"
    assert [s.streaming for s in query.sources] == [True]


def test_merge_and_insert_in_foreach_batch_stay_sink_logic() -> None:
    text = HEAD + '''
def upsert(batch, epoch):
    batch.createOrReplaceTempView("updates")
    batch.sparkSession.sql("MERGE INTO t USING updates u ON t.id = u.id "
                           "WHEN MATCHED THEN UPDATE SET *")
    spark.sql("INSERT INTO audit SELECT * FROM updates")

orders.writeStream.foreachBatch(upsert).option("checkpointLocation", "/c").start()
'''
    (query,) = extract_text(text, "job.py").queries
    assert query.unresolved == ()
    assert [op.kind for op in query.operators] == ["watermark"]


# -- what is not read is a review naming the line ---------------------------------------------


def test_sql_that_cannot_be_parsed_is_a_review_naming_its_line() -> None:
    good = 'orders.createOrReplaceTempView("o")\nout = spark.sql("SELECT k FROM o")'
    bad = 'orders.createOrReplaceTempView("o")\nout = spark.sql("SELECT k FROM o WHERE (")'
    (query,) = job(bad).queries
    ((note, loc),) = query.unresolved
    assert "could not be parsed" in note and loc.line == HEAD.count("\n") + 2
    report = diff_jobs(job(good), job(bad))
    assert report.verdict == "review"
    assert any(f.new is not None and f.new.line == loc.line for f in report.findings)
    assert all("Unresolved" not in f.message and "Col(" not in f.message
               for f in report.findings)


def test_a_construct_not_lowered_is_a_review() -> None:
    base = 'orders.createOrReplaceTempView("o")\nout = spark.sql("SELECT k FROM o")'
    lateral = ('orders.createOrReplaceTempView("o")\n'
               'out = spark.sql("SELECT k, x FROM o LATERAL VIEW explode(xs) t AS x")')
    assert verdict(base, lateral)[0] == "review"
    tvf = 'out = spark.sql("SELECT * FROM read_files(\'/landing\')").union(orders)'
    assert verdict('out = orders', tvf)[0] != "compatible"


# -- %sql cells ---------------------------------------------------------------------------------


def _ipynb(cells: list[str]) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [],
                                  "execution_count": None, "source": c} for c in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


NOTEBOOK = [
    HEAD + 'orders.createOrReplaceTempView("o")',
    "%sql\nCREATE OR REPLACE TEMP VIEW per_k AS\nSELECT k, {fn}(amount) AS total\n"
    "FROM o GROUP BY k",
    'spark.table("per_k").writeStream.outputMode("update")'
    '.option("checkpointLocation", "/chk/k").toTable("per_k_out")',
]


def test_sql_cells_shape_the_notebook_queries() -> None:
    old = extract_text(_ipynb([c.format(fn="SUM") for c in NOTEBOOK]), "nb.ipynb")
    (query,) = old.queries
    assert [op.kind for op in query.operators] == ["watermark", "aggregation"]
    assert old.unseen == ()
    new = extract_text(_ipynb([c.format(fn="MAX") for c in NOTEBOOK]), "nb.ipynb")
    assert diff_jobs(old, new).verdict == "incompatible"
    databricks = ("# Databricks notebook source\n" + NOTEBOOK[0] + "\n\n# COMMAND ----------\n\n"
                  + "".join(f"# MAGIC {line}\n" for line in NOTEBOOK[1].format(fn="SUM")
                            .splitlines()) + "\n# COMMAND ----------\n\n" + NOTEBOOK[2] + "\n")
    (same,) = extract_text(databricks, "nb.py").queries
    assert [replace(op, loc=None) for op in same.operators] == [
        replace(op, loc=None) for op in query.operators]


# -- sqlglot only for files with SQL ------------------------------------------------------------


def test_the_benchmark_pair_without_sql_never_imports_sqlglot() -> None:
    script = ("import sys\nfrom streamlint.extract import extract_file\n"
              "for path in sys.argv[1:]:\n    extract_file(path)\n"
              "print('sqlglot' in sys.modules)\n")
    pair = [str(ROOT / "bench" / "jobs" / f"payments_{v}.py") for v in ("old", "new")]
    result = subprocess.run([sys.executable, "-c", script, *pair], capture_output=True,
                            text=True, check=True, env={"PYTHONPATH": str(ROOT / "src")})
    assert result.stdout.strip() == "False"


def test_group_by_all_and_grouping_sets() -> None:
    explicit = ('orders.createOrReplaceTempView("o")\n'
                'out = spark.sql("SELECT k, region, count(*) AS n FROM o GROUP BY k, region")')
    group_all = explicit.replace("GROUP BY k, region", "GROUP BY ALL")
    assert shape(explicit) == shape(group_all)
    rollup = explicit.replace("GROUP BY k, region", "GROUP BY ROLLUP(k, region)")
    assert shape(rollup) == shape('out = orders.rollup("k", "region")'
                                  '.agg(F.count("*").alias("n"))')
    sets = explicit.replace("GROUP BY k, region", "GROUP BY GROUPING SETS ((k), (region))")
    (query,) = job(sets).queries
    assert any("GROUPING SETS" in note for note, _ in query.unresolved)


def test_a_natural_join_is_a_review() -> None:
    sql = STREAMS + 'out = spark.sql("SELECT * FROM orders_v NATURAL JOIN clicks_v")'
    (query,) = job(sql).queries
    assert any("NATURAL" in note for note, _ in query.unresolved)


def test_a_view_sql_cannot_read_is_still_that_view() -> None:
    body = ('orders.createOrReplaceTempView("o")\n'
            'spark.sql("CREATE OR REPLACE TEMP VIEW v AS SELECT k FROM o WHERE (")\n'
            'out = spark.table("v")\n')
    (query,) = job(body).queries
    assert [s.identity for s in query.sources] == [(("subscribe", "orders"),)]
    ((note, _),) = query.unresolved
    assert "could not be parsed" in note


def test_sqlglot_says_nothing_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "job.py"
    path.write_text(HEAD + 'spark.sql("CREATE OR REPLACE AS TEMP VIEW x AS SELECT 1")\n'
                    'out = orders' + SINK)
    result = subprocess.run([sys.executable, "-m", "streamlint", "diff", str(path), str(path)],
                            capture_output=True, text=True, check=False,
                            env={"PYTHONPATH": str(ROOT / "src")})
    assert result.returncode == 0 and result.stderr == ""


def test_set_in_sql_is_a_session_setting() -> None:
    (query,) = job('spark.sql("SET spark.sql.shuffle.partitions = 12")\nout = orders').queries
    assert [(s.key, s.value) for s in query.config] == [("spark.sql.shuffle.partitions", "12")]


def test_a_statement_sqlglot_reads_as_a_command_is_a_review() -> None:
    body = ('orders.createOrReplaceTempView("o")\n'
            'out = spark.sql("CREATE OR REPLACE AS TEMP VIEW x AS SELECT k FROM o")\n'
            'out = orders')
    assert job(body).queries[0].unresolved == ()  # its result is not the query's
    view = ('orders.createOrReplaceTempView("o")\n'
            'spark.sql("CREATE OR REPLACE AS TEMP VIEW x AS SELECT k FROM o")\n'
            'out = spark.table("x")')
    (query,) = job(view).queries
    assert query.sources and all("could not be parsed" in n for n, _ in query.unresolved)


def test_a_windowed_job_rewritten_from_dataframe_to_sql_is_no_change() -> None:
    dataframe = (
        'parsed = orders.select(F.col("k"), F.col("amount").cast("double").alias("amount"), '
        '"ts")\n'
        'out = (parsed.groupBy(F.window("ts", "5 minutes"), "k")\n'
        '       .agg(F.sum("amount").alias("total"), F.max("amount").alias("top")))\n')
    sql = (
        'parsed = orders.selectExpr("k", "CAST(amount AS DOUBLE) AS amount", "ts")\n'
        'parsed.createOrReplaceTempView("p")\n'
        'out = spark.sql("""\n'
        '    SELECT window(ts, INTERVAL 5 MINUTES) AS window, k,\n'
        '           SUM(amount) AS total, MAX(amount) top\n'
        '    FROM p GROUP BY 1, k""")\n')
    old, new = job(dataframe), job(sql)
    (old_agg,) = [op for op in old.queries[0].operators if op.kind == "aggregation"]
    (new_agg,) = [op for op in new.queries[0].operators if op.kind == "aggregation"]
    assert replace(old_agg, loc=None) == replace(new_agg, loc=None)
    report = diff_jobs(old, new)
    assert report.verdict == "compatible", [(f.code, f.message) for f in report.findings]


def test_between_is_the_pair_of_comparisons_spark_rewrites_it_to() -> None:
    """A stream-stream join's time bound written with BETWEEN or as two comparisons is one
    condition (Spark's analyzer rewrites BETWEEN): JN03 once said the condition changed."""
    from streamlint.diff import diff_jobs
    from streamlint.extract import extract_text

    job = ('from pyspark.sql import functions as F\n'
           'imps = spark.readStream.format("rate").load().withWatermark("ts", "1 hour")\n'
           'clicks = spark.readStream.format("rate").load().withWatermark("cts", "1 hour")\n'
           'imps.join(clicks, F.expr("ad_id = click_ad_id AND {cond}"))'
           '.writeStream.option("checkpointLocation", "/chk/j").format("console").start()\n')
    old = job.format(cond="cts BETWEEN ts AND ts + interval 1 hour")
    for new in (job.format(cond="cts >= ts AND cts <= ts + interval 1 hour"),
                old.replace('F.expr("ad_id = click_ad_id AND cts BETWEEN ts AND ts + interval '
                            '1 hour")', '(F.col("ad_id") == F.col("click_ad_id")) & '
                            'F.col("cts").between(F.col("ts"), F.expr("ts + interval 1 hour"))')):
        report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"), "4.0")
        assert report.findings == (), [f.code for f in report.findings]


def test_a_column_qualified_by_its_tables_alias_is_the_same_column() -> None:
    """`o.amount` over `FROM orders o` is `amount` (issue 26: a reformatted query read as
    AG01); over a join an alias stands for its table's name."""
    from streamlint.diff import diff_jobs
    from streamlint.extract import extract_text

    head = ('spark.readStream.format("kafka").option("subscribe", "orders").load()'
            '.createOrReplaceTempView("orders")\n'
            'spark.read.table("dim.customers").createOrReplaceTempView("customers")\n')
    tail = ('\nagg.writeStream.format("delta").outputMode("complete")'
            '.option("checkpointLocation", "/chk/s").start("/t/s")\n')

    def verdict(old_sql: str, new_sql: str) -> tuple[str, list[str]]:
        report = diff_jobs(extract_text(f"{head}agg = spark.sql({old_sql!r}){tail}", "a.py"),
                           extract_text(f"{head}agg = spark.sql({new_sql!r}){tail}", "b.py"))
        return report.verdict, [f.code for f in report.findings]

    plain = "SELECT customer, sum(amount) AS total FROM orders GROUP BY customer"
    aliased = "SELECT o.customer, sum(o.amount) AS total FROM orders o GROUP BY o.customer"
    assert verdict(plain, aliased) == ("compatible", [])
    assert verdict(plain, plain.replace("customer", "orders.customer", 1).replace(
        "BY customer", "BY orders.customer")) == ("compatible", [])
    other = aliased.replace("o.customer", "o.region")
    assert verdict(plain, other)[0] == "incompatible"
    joined = ("SELECT orders.customer, sum(orders.amount) AS total FROM orders JOIN customers "
              "ON orders.customer = customers.id GROUP BY orders.customer")
    joined_aliased = ("SELECT o.customer, sum(o.amount) AS total FROM orders o JOIN customers c "
                      "ON o.customer = c.id GROUP BY o.customer")
    assert verdict(joined, joined_aliased) == ("compatible", [])
