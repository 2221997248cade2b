"""A `%sql` cell that only creates a table from its declared columns (no query, nothing
streaming) starts no streaming query: written the same in both versions it is no change
(no UN03). Any other SQL streamlint does not read, or such a cell changed, is still asked.
"""

from __future__ import annotations

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.extract.sql.cells import plain_ddl

DDL = ("%%sql\nCREATE OR REPLACE TABLE default.users (\n    id INT,\n    name STRING\n)"
       " USING DELTA LOCATION '/data/users';")
STREAM = ('df = spark.readStream.format("kafka").option("subscribe", "users").load()\n'
          'q = (df.writeStream.format("delta").outputMode("update")'
          '.option("checkpointLocation", "/chk/users").start("/data/users"))')


def _ipynb(sources: list[str]) -> str:
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook(cells=[new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "k", "language": "python", "display_name": "k"}
    return nbformat.writes(nb)


def findings(old: list[str], new: list[str]) -> list[tuple[str, str]]:
    report = diff_jobs(extract_text(_ipynb(old), "old.ipynb"),
                       extract_text(_ipynb(new), "new.ipynb"))
    return [(f.code, f.verdict) for f in report.findings]


@pytest.mark.parametrize(("sql", "plain"), [
    ("CREATE OR REPLACE TABLE t (id INT, name STRING) USING DELTA LOCATION '/x'", True),
    ("CREATE TABLE IF NOT EXISTS t (id INT) PARTITIONED BY (id)", True),
    ("CREATE TABLE t AS SELECT * FROM s", False),
    ("CREATE TABLE t (id INT) AS SELECT 1", False),
    ("CREATE TABLE t LIKE u", False),
    ("CREATE TABLE t SHALLOW CLONE u", False),
    ("CREATE TABLE t USING DELTA LOCATION '/x'", False),  # its columns are elsewhere
    ("CREATE STREAMING TABLE t (id INT)", False),
    ("CREATE LIVE TABLE t (id INT)", False),
    ("CREATE TABLE t (id INT); INSERT INTO t SELECT 1", False),
    ("INSERT INTO t SELECT * FROM s", False),
    ("CREATE TABLE (", False),
])
def test_what_is_plain_ddl(sql: str, plain: bool) -> None:
    assert plain_ddl(sql) is plain


def test_the_same_ddl_cell_is_no_change() -> None:
    old = [DDL, STREAM]
    new = [DDL, STREAM.replace('outputMode("update")', 'outputMode("append")')]
    assert findings(old, new) == [("QY08", "compatible")]
    # It is still reported as SQL streamlint does not read (one version alone).
    assert [u.about for u in extract_text(_ipynb(old), "nb.ipynb").unseen] == ["sql"]


def test_a_changed_ddl_cell_is_still_asked() -> None:
    old = [DDL, STREAM]
    new = [DDL.replace("name STRING", "name STRING,\n    age INT"), STREAM]
    assert ("UN03", "review") in findings(old, new)


def test_other_sql_written_the_same_is_no_change() -> None:
    """SQL that starts no stream, written the same in both versions, does the same: an edit
    elsewhere in the notebook cannot reach it (issue 26: whole-file fingerprints)."""
    insert = "%%sql\nINSERT INTO audit SELECT * FROM users"
    old = [insert, STREAM]
    new = [insert, STREAM.replace('outputMode("update")', 'outputMode("append")')]
    assert ("UN03", "review") not in findings(old, new)
    as_select = "%%sql\nCREATE OR REPLACE TABLE default.users AS SELECT * FROM staging"
    assert ("UN03", "review") not in findings([as_select, STREAM], [as_select, new[1]])
    # ... and moved to another cell (renumbered) it is still the same SQL.
    assert ("UN03", "review") not in findings([insert, STREAM], ["x = 1", insert, new[1]])


def test_sql_that_streams_or_takes_outside_values_written_the_same_is_still_asked() -> None:
    streaming = ("%%sql\nCREATE OR REFRESH STREAMING TABLE s AS "
                 "SELECT * FROM STREAM(users_view)")
    new = STREAM.replace('outputMode("update")', 'outputMode("append")')
    assert ("UN03", "review") in findings([streaming, STREAM], [streaming, new])
    for outside in ("%%sql\nINSERT INTO audit SELECT * FROM ${source}",
                    "%%sql\nINSERT INTO audit SELECT * FROM users WHERE day = :day"):
        assert ("UN03", "review") in findings([outside, STREAM], [outside, new]), outside


def test_sql_changed_is_asked() -> None:
    insert = "%%sql\nINSERT INTO audit SELECT * FROM users"
    assert ("UN03", "review") in findings([insert, STREAM],
                                          [insert.replace("users", "people"), STREAM])
