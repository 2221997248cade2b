"""Which retyped output column is narrowed (PL10): Databricks widens a streaming table's column
in place (ALTER COLUMN ... TYPE with type widening) and needs a full refresh for the rest."""

from __future__ import annotations

import pytest

from streamlint.diff.types import narrowed


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
