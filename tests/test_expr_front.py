"""The DataFrame front end's expression trees: every spelling of one expression is one tree,
and the diff compares those trees (join keys, state keys, the columns a join buffers)."""

from __future__ import annotations

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.model import Filter, Projection, Query, StreamJoin
from streamlint.model.durations import duration_micros, same_duration
from streamlint.model.expr import (
    Binary,
    Call,
    Case,
    Cast,
    Column,
    Field,
    Interval,
    Literal,
    Unary,
    render,
)


def query_of(body: str) -> Query:
    code = f'''
from pyspark.sql import functions as F
df = spark.readStream.format("rate").load()
{body}.writeStream.format("delta").option("checkpointLocation", "/c").start("/t")
'''
    (query,) = extract_text(code, "job.py").queries
    return query


def condition(expr: str) -> object:
    (op,) = [o for o in query_of(f"df.filter({expr})").operators if isinstance(o, Filter)]
    return op.condition


@pytest.mark.parametrize(("written", "tree"), [
    ('F.col("value") == 5', Binary("=", Column("value"), Literal(5))),
    ('(F.col("a") > 1) & (F.col("b") < 2)',
     Binary("and", Binary(">", Column("a"), Literal(1)), Binary("<", Column("b"), Literal(2)))),
    ('(F.col("a") > 1) | ~F.col("b")',
     Binary("or", Binary(">", Column("a"), Literal(1)), Unary("not", Column("b")))),
    ('F.col("a").isNull()', Call("isnull", (Column("a"),))),
    ('F.col("a").isin(["x", "y"])', Call("in", (Column("a"), Literal("x"), Literal("y")))),
    ('F.col("a").isin("x", "y")', Call("in", (Column("a"), Literal("x"), Literal("y")))),
    ('F.col("a").between(1, 5)', Binary("and", Binary(">=", Column("a"), Literal(1)),
                                        Binary("<=", Column("a"), Literal(5)))),
    ('df.a.like("x%")', Call("like", (Column("a"), Literal("x%")))),
    ('df["p"]["k"] == "v"', Binary("=", Field(Column("p"), "k"), Literal("v"))),
    ('F.col("p").getField("k") == "v"', Binary("=", Field(Column("p"), "k"), Literal("v"))),
    ('F.col("a").cast("INT") > 0', Binary(">", Cast(Column("a"), "int"), Literal(0))),
    ('F.col("a").eqNullSafe(F.lit(None))', Binary("<=>", Column("a"), Literal(None))),
    ('"value > 5"', Binary(">", Column("value"), Literal(5))),
])
def test_each_spelling_is_one_tree(written: str, tree: object) -> None:
    assert condition(written) == tree


def test_when_otherwise_is_a_case() -> None:
    (op,) = [o for o in query_of(
        'df.withColumn("size", F.when(F.col("v") > 10, "big").when(F.col("v") > 5, "mid")'
        '.otherwise("small"))').operators if isinstance(o, Projection)]
    (expr,) = op.exprs
    assert render(expr) == ("CASE WHEN (v > 10) THEN 'big' WHEN (v > 5) THEN 'mid' "
                            "ELSE 'small' END AS size")
    assert isinstance(expr.operand, Case)  # type: ignore[union-attr]


def test_a_window_duration_is_an_interval_however_written() -> None:
    def key(window: str) -> object:
        query = query_of(f'df.groupBy({window}).count()')
        return query.stateful[0].keys  # type: ignore[union-attr]

    one_hour = (Call("window", (Column("timestamp"), Interval(3_600_000_000))),)
    assert key('F.window("timestamp", "1 hour")') == one_hour
    assert key('F.window("timestamp", "60 minutes")') == one_hour
    assert key('F.expr("window(timestamp, \'3600 seconds\')")') == one_hour


@pytest.mark.parametrize(("text", "micros"), [
    ("10 minutes", 600_000_000), ("1 hour 30 minutes", 5_400_000_000),
    ("interval 5 seconds", 5_000_000), ("500 milliseconds", 500_000), ("2 days", 172_800_000_000),
    ("1 month", None), ("soon", None), ("", None),
])
def test_durations(text: str, micros: int | None) -> None:
    assert duration_micros(text) == micros


def test_same_duration_is_by_length() -> None:
    assert same_duration("1 hour", "60 minutes")
    assert not same_duration("1 hour", "2 hours")
    assert same_duration(None, None)


JOIN = '''
from pyspark.sql import functions as F
a = spark.readStream.schema("id STRING, x LONG, ts TIMESTAMP").json("/a")
a = a.withWatermark("ts", "1 minute"){extra}
b = spark.readStream.schema("bid STRING, y LONG, bts TIMESTAMP").json("/b")
b = b.withWatermark("bts", "1 minute")
a.join(b, {on}).writeStream.format("delta").option("checkpointLocation", "/c").start("/t")
'''


def codes(old: str, new: str) -> list[str]:
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return [f.code for f in report.findings]


def test_a_join_records_the_columns_each_side_buffers() -> None:
    (query,) = extract_text(JOIN.format(extra="", on='F.col("id") == F.col("bid")'),
                            "j.py").queries
    (join,) = [o for o in query.operators if isinstance(o, StreamJoin)]
    assert join.left_columns == ("id", "x", "ts")
    assert join.right_columns == ("bid", "y", "bts")


def test_a_column_added_to_one_side_of_a_join_is_its_state_schema() -> None:
    on = 'F.col("id") == F.col("bid")'
    old = JOIN.format(extra="", on=on)
    new = JOIN.format(extra='.withColumn("z", F.col("x") * 2)', on=on)
    assert "JN06" in codes(old, new)
    assert "JN06" not in codes(old, JOIN.format(extra='.withColumn("x", F.col("x") + 0)', on=on))


def test_a_wrapped_join_key_is_another_key_and_a_swapped_one_is_not() -> None:
    old = JOIN.format(extra="", on='F.col("id") == F.col("bid")')
    assert codes(old, JOIN.format(extra="", on='F.upper(F.col("id")) == F.col("bid")')) == [
        "JN01"]
    assert codes(old, JOIN.format(extra="", on='F.col("bid") == F.col("id")')) == []
    assert codes(old, JOIN.format(extra="", on='F.expr("id = bid")')) == []


def test_the_non_key_condition_is_compared_apart_from_the_keys() -> None:
    old = JOIN.format(extra="", on='(F.col("id") == F.col("bid")) & (F.col("bts") >= F.col("ts"))')
    new = JOIN.format(extra="", on='(F.col("bts") >= F.col("ts")) & (F.col("bid") == F.col("id"))')
    assert codes(old, new) == []
    wider = JOIN.format(extra="", on='(F.col("id") == F.col("bid")) & (F.col("bts") > F.col("ts"))')
    assert codes(old, wider) == ["JN03"]


@pytest.mark.parametrize(("keywords", "positional"), [
    ('F.col("b").between(lowerBound=F.col("a"), upperBound=5)',
     'F.col("b").between(F.col("a"), 5)'),
    ('F.col("k").cast(dataType="int") > 0', 'F.col("k").cast("int") > 0'),
    ('F.col("k").alias("x", metadata={"m": 1}) > 0', 'F.col("k").alias("x") > 0'),
])
def test_keyword_arguments_of_column_methods_are_their_positions(keywords: str,
                                                                 positional: str) -> None:
    """A change written with keywords (`cast(dataType="int")` -> `"string"`) was dropped
    with the keywords: "compatible, no findings" (found in review)."""
    assert condition(keywords) == condition(positional)


def test_a_keyword_of_a_column_method_not_read_is_its_own_value() -> None:
    from streamlint.model.expr import Unresolved

    value = condition('F.col("k").cast(dataType="int", unknown=1) > 0')
    assert isinstance(value, Binary) and isinstance(value.left, Unresolved)
    assert value != condition('F.col("k").cast(dataType="int", unknown=2) > 0')
