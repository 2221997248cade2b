"""Output columns streamlint cannot list: a changed projection is PR03 ("the output columns
changed") only when something may name a column differently, not when both versions name
every column by the same steps (PR02). And the columns a join with a static DataFrame made by
`spark.createDataFrame(rows, names)` gives are known.
"""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text

# `load_events` is code streamlint cannot follow: the DataFrame's columns are not known.
UNKNOWN = """
from events import load_events
from pyspark.sql import functions as F
df = load_events(spark)
out = df.withColumn("status", F.lit("new")).withColumn("retry_limit", F.lit(3))
out.writeStream.format("delta").option("checkpointLocation", "/chk/e").start("/t/e")
"""


def findings(old: str, new: str) -> list[tuple[str, str]]:
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return [(f.code, f.verdict) for f in report.findings]


def test_the_columns_are_unknown_here() -> None:
    (query,) = extract_text(UNKNOWN, "job.py").queries
    assert query.output_columns is None


def test_a_literal_changed_under_the_same_name_is_pr02() -> None:
    new = UNKNOWN.replace('F.lit(3)', 'F.lit(5)')
    assert findings(UNKNOWN, new) == [("PR02", "compatible")]


def test_a_column_renamed_is_still_pr03() -> None:
    new = UNKNOWN.replace('"retry_limit"', '"retry_attempt_limit"')
    assert findings(UNKNOWN, new) == [("PR03", "review")]


def test_a_column_added_is_still_pr03() -> None:
    new = UNKNOWN.replace('.withColumn("retry_limit", F.lit(3))',
                          '.withColumn("retry_limit", F.lit(3)).withColumn("x", F.lit(1))')
    assert findings(UNKNOWN, new) == [("PR03", "review")]


def test_an_unaliased_select_changed_is_still_pr03() -> None:
    old = UNKNOWN.replace('out.writeStream', 'out = out.select("status", F.upper("a"))\n'
                          'out.writeStream')
    new = old.replace('F.upper("a")', 'F.upper("b")')
    assert findings(old, new) == [("PR03", "review")]


def test_a_struct_flattened_after_its_schema_changed_is_still_pr03() -> None:
    """`select("o.*")` names the struct's fields: a changed schema under the same alias
    renames the columns, though every step's alias is the same."""
    old = UNKNOWN.replace('out.writeStream', 'out = out.withColumn("o", F.from_json('
                          '"value", "a INT, b STRING")).select("o.*")\nout.writeStream')
    new = old.replace('"a INT, b STRING"', '"a INT, c STRING"')
    assert ("PR03", "review") in findings(old, new)
    assert ("PR02", "compatible") not in findings(old, new)


def test_a_source_reading_other_columns_is_still_pr03() -> None:
    old = UNKNOWN.replace("df = load_events(spark)", 'df = spark.readStream.format("kafka")'
                          '.option("subscribe", "t").load().mapInPandas(parse, schema)')
    assert extract_text(old, "job.py").queries[0].output_columns is None
    new = old.replace('.load()', '.option("includeHeaders", "true").load()').replace(
        'F.lit(3)', 'F.lit(5)')
    assert ("PR03", "review") in findings(old, new)


def test_an_unresolved_step_left_as_it_was_does_not_make_the_change_unresolved() -> None:
    old = UNKNOWN.replace('F.lit("new")', 'F.lit(config["status"])')
    new = old.replace('F.lit(3)', 'F.lit(5)')
    assert findings(old, new) == [("PR02", "compatible")]


def test_a_changed_step_that_becomes_unresolved_keeps_its_columns() -> None:
    """A projection's values never decide the verdict (PR02 is value_free, issue 26): a
    column computed from a run-time value under the same name is still the same columns."""
    new = UNKNOWN.replace('F.lit(3)', 'F.lit(config["limit"])')
    assert findings(UNKNOWN, new) == [("PR02", "compatible")]


# -- joins with a static DataFrame -----------------------------------------------------------

STATIC = """
from pyspark.sql import functions as F
orders = (spark.readStream.format("kafka").option("subscribe", "orders").load()
          .select(F.col("key").alias("product_id"), F.col("value").alias("quantity")))
products = spark.createDataFrame([(1, "Laptop", 9.5), (2, "Mouse", 1.5)],
                                 ["product_id", "name", "price"])
joined = (orders.join(products, orders.product_id == products.product_id, "inner")
          .drop(products.product_id))
(joined.withColumn("amount", orders.quantity * products.price)
 .writeStream.format("delta").option("checkpointLocation", "/chk/j").start("/t/j"))
"""

def test_a_join_with_created_rows_knows_its_columns() -> None:
    (query,) = extract_text(STATIC, "job.py").queries
    assert query.output_columns == ("quantity", "product_id", "name", "price", "amount")
    assert query.unresolved == ()
    assert [op.kind for op in query.operators][-3:] == ["static_join", "projection",
                                                        "projection"]


def test_joins_on_names_and_semi_joins_name_their_columns() -> None:
    on_names = STATIC.replace('orders.product_id == products.product_id, "inner"',
                              '"product_id", "left"').replace('.drop(products.product_id)', '')
    (query,) = extract_text(on_names, "job.py").queries
    assert query.output_columns == ("product_id", "quantity", "name", "price", "amount")
    semi = on_names.replace('"product_id", "left"', '"product_id", "left_semi"').replace(
        'orders.quantity * products.price', 'orders.quantity')
    (query,) = extract_text(semi, "job.py").queries
    assert query.output_columns == ("product_id", "quantity", "amount")


def test_the_amount_computed_another_way_is_pr02() -> None:
    new = STATIC.replace("orders.quantity * products.price",
                         "orders.quantity * products.price * 1.0")
    assert findings(STATIC, new) == [("PR02", "compatible")]


def test_a_static_column_added_is_pr03() -> None:
    new = STATIC.replace('["product_id", "name", "price"]',
                         '["product_id", "name", "price", "stock"]')
    assert ("PR03", "review") in findings(STATIC, new)


def test_rows_not_known_leave_the_columns_unknown() -> None:
    new = STATIC.replace('["product_id", "name", "price"]', 'schema')
    (query,) = extract_text(new, "job.py").queries
    assert query.output_columns is None


# -- found in review: a static side's change reaches the sink's columns -----------------------

_DIM_SELECT = '''from pyspark.sql.functions import col
src = spark.readStream.table("events")
dim = spark.read.table("dim").select("id", "name")
out = src.withColumn("amount", col("price") * 1.0).join(dim, "id")
out.writeStream.format("delta").option("checkpointLocation", "/c").toTable("out")
'''

_CREATED = '''src = spark.readStream.table("events")
dim = spark.createDataFrame([(1, "a")], {schema})
out = src.join(dim, "id")
out.writeStream.format("delta").option("checkpointLocation", "/c").toTable("out")
'''


def _codes(old: str, new: str) -> list[tuple[str, str]]:
    from streamlint.diff import diff_jobs
    from streamlint.extract import extract_text

    report = diff_jobs(extract_text(old, "job.py"), extract_text(new, "job.py"))
    return sorted((f.code, f.verdict) for f in report.findings)


def test_a_column_the_static_side_adds_is_not_named_by_the_same_steps() -> None:
    """The static side is recorded by what it reads: `same_names` did not see its select grow
    a column, and called the stream side's changed step PR02."""
    new = _DIM_SELECT.replace('"name")', '"name", "region")').replace("1.0", "2.0")
    assert ("PR03", "review") in _codes(_DIM_SELECT, new)


def test_a_static_sides_own_steps_changing_alone_is_a_column_question() -> None:
    """Nothing changed on the stream side: the static side's select was invisible (no
    finding at all), though the sink gets a new column."""
    new = _DIM_SELECT.replace('"name")', '"name", "region")')
    assert ("PR03", "review") in _codes(_DIM_SELECT, new)
    assert _codes(_DIM_SELECT, "\n" + _DIM_SELECT) == []  # must not fire: lines moved only


def test_a_created_frames_schema_renaming_a_column_is_a_column_question() -> None:
    """`spark.createDataFrame(rows, schema)`: the schema (DDL, or a list of names) renames the
    static side's columns; only the rows were recorded."""
    for old, new in (('"id INT, name STRING"', '"id INT, label STRING"'),
                     ('["id", "name"]', '["id", "label"]')):
        assert ("PR03", "review") in _codes(_CREATED.format(schema=old),
                                            _CREATED.format(schema=new))
    same = _CREATED.format(schema='["id", "name"]')
    assert _codes(same, same) == []


def test_to_tables_format_keyword_is_no_partition_column() -> None:
    """`toTable("t", format="delta")` stored "delta" as the sink's partition columns, so
    removing the keyword read as a repartitioned sink (found in review)."""
    old = ('spark.readStream.table("e").writeStream.option("checkpointLocation", "/c")'
           '.toTable("t", format="delta")\n')
    assert _codes(old, old.replace(', format="delta"', "")) == []
    assert _codes(old, old.replace('format="delta"', 'partitionBy="day"')) != []


def test_a_schema_taken_from_a_renamed_dataframe_is_the_same_schema() -> None:
    """`from_json(value, bandsDF.schema)` -> `bands_df.schema` (a PEP 8 rename of a real
    job): the schema is named by the DataFrame it describes, not by the variable."""
    job = ('{name} = spark.read.json("/in/bands")\n'
           'df = spark.readStream.format("kafka").option("subscribe", "b").load()\n'
           'df.select(F.from_json(F.col("value").cast("string"), {name}.schema).alias("band"))'
           '.writeStream.format("delta").option("checkpointLocation", "/chk/b").start("/t/b")\n')
    head = "from pyspark.sql import functions as F\n"
    assert findings(head + job.format(name="bandsDF"), head + job.format(name="bands_df")) == []
    other = (head + job.format(name="bands_df")).replace('"/in/bands"', '"/in/other"')
    assert findings(head + job.format(name="bandsDF"), other) != []
