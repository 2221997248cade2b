"""Which retyped output column is narrowed (PL10): Databricks widens a streaming table's column
in place (ALTER COLUMN ... TYPE with type widening) and needs a full refresh for the rest."""

from __future__ import annotations

import pytest

from streamlint.diff.types import narrowed, widened


@pytest.mark.parametrize(("old", "new"), [
    ("bigint", "int"), ("int", "smallint"), ("smallint", "tinyint"), ("double", "float"),
    ("timestamp", "date"), ("decimal(10,2)", "decimal(8,2)"), ("decimal(10,4)", "decimal(12,2)"),
    ("double", "bigint"), ("decimal(10,2)", "int"), ("DECIMAL(10, 2)", "decimal(9,2)"),
])
def test_narrowed(old: str, new: str) -> None:
    assert narrowed(old, new)


@pytest.mark.parametrize(("old", "new"), [
    ("int", "bigint"), ("float", "double"), ("date", "timestamp"),
    ("decimal(8,2)", "decimal(10,2)"), ("decimal", "decimal(12,2)"), ("int", "double"),
    ("decimal(10,0)", "bigint"),
    ("string", "int"), ("int", "string"),
])
def test_not_narrowed(old: str, new: str) -> None:
    assert not narrowed(old, new)


# Databricks, "Type widening" (supported type changes): what Delta changes in place.
@pytest.mark.parametrize(("old", "new"), [
    ("tinyint", "smallint"), ("byte", "bigint"), ("short", "int"), ("int", "bigint"),
    ("int", "double"), ("int", "decimal(10,0)"), ("bigint", "decimal(20,0)"),
    ("float", "double"), ("date", "timestamp_ntz"), ("decimal(10,1)", "decimal(12,3)"),
    ("decimal(10,2)", "decimal(12,2)"), ("long", "bigint"),
])
def test_widened(old: str, new: str) -> None:
    assert widened(old, new)


@pytest.mark.parametrize(("old", "new"), [
    ("bigint", "int"), ("string", "int"), ("int", "string"), ("date", "timestamp"),
    ("bigint", "double"), ("bigint", "decimal(18,0)"), ("int", "decimal(9,0)"),
    ("decimal(10,1)", "decimal(11,3)"), ("double", "decimal(20,2)"), ("timestamp", "date"),
])
def test_not_widened(old: str, new: str) -> None:
    assert not widened(old, new)
