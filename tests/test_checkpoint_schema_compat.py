"""Spark's state schema rule on the schemas real checkpoints hold.

Rule (apache/spark `StateSchemaCompatibilityChecker.schemasCompatible` =
`DataType.equalsIgnoreNameAndCompatibleNullability(new, stored)`): same field count and
types, names ignored; a stored NOT NULL field refuses a nullable new one.
"""

from __future__ import annotations

import pytest
from checkpoint_fixtures import FIXTURES

from streamlint.checkpoint import read_checkpoint
from streamlint.checkpoint.compare import state_schema_findings
from streamlint.checkpoint.model import Field
from streamlint.checkpoint.schema_compat import compatible, schema_problems
from streamlint.checkpoint.state_schema import fields_from_json
from streamlint.model.records import replace


def stored(version: str, query: str) -> tuple[tuple[Field, ...], tuple[Field, ...]]:
    checkpoint = read_checkpoint(str(FIXTURES / version / query / "checkpoint"))
    schema = checkpoint.operators[0].stores[0].schemas[0]
    return schema.key, schema.value


def test_the_same_schema_fits() -> None:
    for version in ("spark-3.5.9", "spark-4.3.0"):
        key, value = stored(version, "window_agg")
        assert compatible(key, key) and compatible(value, value)


def test_names_do_not_matter() -> None:
    key, _ = stored("spark-4.3.0", "agg_hdfs")
    renamed = tuple(replace(f, name=f"{f.name}_renamed") for f in key)
    assert schema_problems(key, renamed) == []


def test_field_count_and_types_do() -> None:
    key, value = stored("spark-4.3.0", "agg_hdfs")
    assert schema_problems(key, key + (Field("id", "long", True),))
    as_int = tuple(replace(f, type="integer") if f.type == "long" else f for f in value)
    problems = schema_problems(value, as_int)
    assert problems and "type bigint is int now" in problems[0]


def test_nested_window_types_count() -> None:
    key, _ = stored("spark-4.3.0", "window_agg")
    window = key[0].type
    ntz = {**window, "fields": [{**f, "type": "timestamp_ntz"} for f in window["fields"]]}
    problems = schema_problems(key, (replace(key[0], type=ntz), *key[1:]))
    assert problems and "timestamp is timestamp_ntz now" in problems[0]


def test_nullability_follows_sparks_direction() -> None:
    # Spark 3.5.9 stored `count` NOT NULL (FORMAT.md §8.3); 4.3.0 stores it nullable.
    _, old_value = stored("spark-3.5.9", "agg_hdfs")
    _, new_value = stored("spark-4.3.0", "agg_hdfs")
    assert [f.nullable for f in old_value] != [f.nullable for f in new_value]
    assert schema_problems(new_value, old_value) == []  # stored nullable accepts NOT NULL
    problems = schema_problems(old_value, new_value)  # stored NOT NULL refuses nullable
    assert problems and "stored NOT NULL and is nullable now" in problems[0]


def test_the_confirm_hand_off_reports_a_mismatch() -> None:
    path = str(FIXTURES / "spark-4.3.0" / "agg_hdfs" / "checkpoint")
    checkpoint = read_checkpoint(path)
    key, value = stored("spark-4.3.0", "agg_hdfs")
    assert state_schema_findings(checkpoint, {(0, "default"): (key, value)}, "q") == []
    wider = key + (Field("id", "long", True),)
    findings = state_schema_findings(checkpoint, {(0, "default"): (wider, None)}, "q")
    assert [(f.code, f.verdict) for f in findings] == [("CK02", "incompatible")]
    assert "key schema of state/0 store default" in findings[0].message
    assert findings[0].old.path.endswith("state/0/0/_metadata/schema")


@pytest.mark.spark
def test_schemas_from_real_spark_compare_by_the_rule() -> None:
    """The hand-off form: `StructType.json()` from pyspark becomes the compared fields."""
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    key, value = stored("spark-4.3.0", "agg_hdfs")
    spark_key = StructType([StructField("customer", StringType(), True)])
    assert schema_problems(key, fields_from_json(spark_key.json())) == []
    spark_value = StructType([StructField("count", LongType(), True),
                              StructField("sum", StringType(), True)])
    problems = schema_problems(value, fields_from_json(spark_value.json()))
    assert problems == ["field 2 (sum): type bigint is string now"]
