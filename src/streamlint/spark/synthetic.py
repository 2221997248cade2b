"""Synthetic input rows for a schema, so that rows survive a job's parsing, joins and filters.

Every row is deterministic in (batch, row index). In the first half of a batch ("aligned"
rows) all string columns of a row share one value from a small pool (the short literals of the
job files first), so equi-joins between sources match and `status == 'paid'` style filters let
some rows through, and integer columns count rows (unique per row, equal across sources, so
`order_id = paid_order_id` matches). In the second half each column is offset by its position,
so two columns of one type hold different values: grouping by `advertiser_id` instead of
`campaign_id`, or summing `clicks` instead of `views`, changes the results; there the two rows
of a key also differ in their other string columns, so first() and last() of a group differ.
Three unaligned rows leave every third column null (event times excepted; a different third
in each), so count(col) and count(*), or first(col) and first(col, ignorenulls=True), differ.
The last fresh row of a batch carries strings of its source's own (a key no other source has),
so joins have unmatched rows on both sides. Event times of batch 2 are days after batch 1, so
any realistic watermark passes the first batch's windows, except its first CARRY_OVER rows,
which land right after batch 1 (in its windows, sessions and join ranges): the state written
before the restart is read and updated after it. The last row of a batch re-delivers the
first, as a real at-least-once source does.
"""

from __future__ import annotations

import ast
import base64
import datetime as dt
import hashlib
import json
import re
from typing import Any

EPOCH = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
BATCH_STEP = dt.timedelta(days=3)
ROWS_PER_BATCH = 16  # twice the largest pool: every string key gets two rows a batch
CARRY_OVER = 4  # rows of a later batch that continue the previous batch's event time
# Row -> which third of the columns (position % 3) is null there. Odd unaligned rows come
# first in their groups (the even row after them shares their key), so a group opens on a null.
NULL_ROWS = {9: 1, 11: 2, 13: 0}
_WORD = re.compile(r"^[A-Za-z][\w.-]{0,23}$")
_QUOTED = re.compile(r"'([A-Za-z][\w.-]{0,23})'")
_DEFAULT_POOL = ("a", "b", "c")
# Literals that name Spark things, never data values.
_NOT_DATA = {"append", "update", "complete", "kafka", "delta", "json", "parquet", "csv",
             "string", "value", "key", "inner", "left", "leftOuter", "left_outer", "outer",
             "right", "rightOuter", "full", "__main__", "orc", "text", "console", "memory"}


class Pool(tuple):  # type: ignore[type-arg]
    """The words string columns take (a tuple of str), and the time format the job parses
    text times with, if any (`to_timestamp(col, "yyyy-MM-dd HH:mm")`)."""

    time_format: str | None = None
    time_columns: frozenset[str] = frozenset()  # columns the job parses as times


# Java datetime pattern letters -> strftime, for the simple formats jobs parse times with.
_JAVA_TO_STRFTIME = (("yyyy", "%Y"), ("MM", "%m"), ("dd", "%d"), ("HH", "%H"), ("mm", "%M"),
                     ("ss", "%S"))
_TIME_FORMAT = re.compile(
    r"\b(?:to_timestamp|to_date|unix_timestamp|to_unix_timestamp)\s*\((?:[^()]|\([^()]*\))*?,\s*"
    r"(?:\"([^\"]+)\"|'([^']+)')")
# String columns named like a time get the job's time format (or ISO text).
_TIME_NAME = re.compile(r"(?:^|_)(?:at|ts|time|timestamp|date|datetime|dt)$|^(?:ts|time|date)",
                        re.IGNORECASE)
_CAMEL_TIME_NAME = re.compile(r"[a-z0-9](?:At|Ts|Time|Timestamp|Date|DateTime|Datetime|Dt)$")
# The column a job parses as a time: `to_timestamp("CreatedTime", ...)`, `to_date(col("d"))`.
_PARSED_TIME_COLUMN = re.compile(
    r"\b(?:to_timestamp|to_date|unix_timestamp|to_unix_timestamp)\s*\(\s*"
    r"(?:(?:\w+\.)?col(?:umn)?\s*\(\s*)?[\"']([\w.]+)[\"']")


def time_columns(*sources: str) -> frozenset[str]:
    """The columns (last name part) the job files parse as times."""
    return frozenset(name.rsplit(".", 1)[-1] for text in sources
                     for name in _PARSED_TIME_COLUMN.findall(text))


def time_format(*sources: str) -> str | None:
    """The first simple time format the job files parse text with, as a strftime format."""
    for text in sources:
        for double, single in _TIME_FORMAT.findall(text):
            pattern = (double or single).replace("'T'", "T")
            if not re.fullmatch(r"[yMdHmsT:/ .-]+", pattern):
                continue
            for letters, directive in _JAVA_TO_STRFTIME:
                pattern = pattern.replace(letters, directive)
            if not re.search(r"[A-Za-z](?<!%[YmdHMS])", pattern.replace("T", "")):
                return pattern
    return None


def literal_pool(*sources: str, limit: int = 8) -> Pool:
    """Short word-like string literals of the job files (also quoted inside SQL strings)."""
    found: list[str] = []
    for text in sources:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                candidates = [node.value] if _WORD.match(node.value) else []
                candidates += _QUOTED.findall(node.value)
                for word in candidates:
                    if word not in _NOT_DATA and not _looks_like_setting(word) and \
                            word not in found:
                        found.append(word)
    # Literals compared in filters are usually short codes; prefer them over column names.
    found.sort(key=lambda w: (not (w.isupper() or w.islower()) or "_" in w, len(w)))
    pool = Pool([*found[: limit - len(_DEFAULT_POOL)], *_DEFAULT_POOL])
    pool.time_format = time_format(*sources)
    pool.time_columns = time_columns(*sources)
    return pool


def _looks_like_setting(word: str) -> bool:
    return word.startswith(("spark.", "kafka.")) or word.count(".") > 1


def event_time(batch: int, row: int) -> dt.datetime:
    if batch > 1 and row < CARRY_OVER:  # just after the previous batch's last row
        return EPOCH + (batch - 2) * BATCH_STEP + dt.timedelta(seconds=ROWS_PER_BATCH + row)
    return EPOCH + (batch - 1) * BATCH_STEP + dt.timedelta(seconds=row)


def rows(schema: Any, batch: int, pool: tuple[str, ...], source: str = ""
         ) -> list[dict[str, Any]]:
    """ROWS_PER_BATCH rows of `schema` (a pyspark StructType) as JSON-ready dicts, plus a
    re-delivery of the first row. `source` (default: the column names) names the source the
    rows are for, in the values of the row that is its own."""
    own = hashlib.sha1((source or ",".join(schema.fieldNames())).encode()).hexdigest()[:4]
    out = [_struct(schema, batch, j, pool, own) for j in range(ROWS_PER_BATCH)]
    return [*out, dict(out[0])]


def _struct(schema: Any, batch: int, row: int, pool: tuple[str, ...], own: str
            ) -> dict[str, Any]:
    from pyspark.sql import types as T

    aligned = row < ROWS_PER_BATCH // 2
    null_third = NULL_ROWS.get(row)
    return {field.name: None if null_third == i % 3 and field.nullable and not isinstance(
                field.dataType, (T.TimestampType, T.TimestampNTZType, T.DateType))
            else _time_text(batch, row, pool) if _is_time_text(field, pool)
            else _value(field.dataType, batch, row, pool, 0 if aligned else i + 1, own)
            for i, field in enumerate(schema.fields)}


def _is_time_text(field: Any, pool: tuple[str, ...] = ()) -> bool:
    """A string column that holds a time as text: parsed as one by the job, or named so
    (`created_at`, `event_time`, `CreatedTime`)."""
    from pyspark.sql import types as T

    return isinstance(field.dataType, T.StringType) and (
        field.name in getattr(pool, "time_columns", ()) or bool(
            _TIME_NAME.search(field.name) or _CAMEL_TIME_NAME.search(field.name)))


def _time_text(batch: int, row: int, pool: tuple[str, ...]) -> str:
    """A time as text, in the format the job parses it with (else ISO, which Spark's
    to_timestamp without a format reads)."""
    when = event_time(batch, row)
    return when.strftime(getattr(pool, "time_format", None) or "%Y-%m-%d %H:%M:%S")


def _value(dtype: Any, batch: int, row: int, pool: tuple[str, ...], salt: int,
           own: str) -> Any:
    from pyspark.sql import types as T

    if isinstance(dtype, T.StructType):
        return _struct(dtype, batch, row, pool, own)
    if isinstance(dtype, T.ArrayType):
        return [_value(dtype.elementType, batch, row, pool, salt, own)]
    # Strings change every second row: each key gets two rows a batch, so sum and max (or
    # count and sum) of a group differ; unaligned, the second row of a key moves its other
    # columns on by their salt again.
    word = pool[(row // 2 + salt * (1 + row % 2)) % len(pool)]
    if row == ROWS_PER_BATCH - 1:
        word = f"{word}-{own}"
    if isinstance(dtype, T.MapType):
        return {word: _value(dtype.valueType, batch, row, pool, salt, own)}
    if isinstance(dtype, T.StringType):
        return word
    if isinstance(dtype, T.BooleanType):
        return (row + salt) % 2 == 0
    if isinstance(dtype, (T.ByteType, T.ShortType)):
        return (batch * ROWS_PER_BATCH + row + 7 * salt) % 100
    if isinstance(dtype, (T.IntegerType, T.LongType)):
        return batch * ROWS_PER_BATCH + row + 100 * salt
    if isinstance(dtype, (T.FloatType, T.DoubleType, T.DecimalType)):
        return float(batch * ROWS_PER_BATCH + row + 100 * salt) + 0.5
    if isinstance(dtype, (T.TimestampType, T.TimestampNTZType)):
        return event_time(batch, row).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    if isinstance(dtype, T.DateType):
        return event_time(batch, row).date().isoformat()
    if isinstance(dtype, T.BinaryType):
        return base64.b64encode(word.encode()).decode()
    return None


def kafka_rows(topic: str, value_schema: Any, batch: int,
               pool: tuple[str, ...]) -> list[dict[str, Any]]:
    """Kafka records of `topic` whose `value` is the JSON of a row of `value_schema` (the
    fields the job parses with from_json), base64-encoded as the JSON reader wants binary."""
    values = rows(value_schema, batch, pool, source=f"kafka:{topic}")
    out = []
    for j, value in enumerate(values):
        row = j if j < ROWS_PER_BATCH else 0
        text = json.dumps(value)
        out.append({
            "key": base64.b64encode(pool[row % len(pool)].encode()).decode(),
            "value": base64.b64encode(text.encode()).decode(),
            "topic": topic,
            "partition": 0,
            "offset": (batch - 1) * (ROWS_PER_BATCH + 1) + j,
            "timestamp": event_time(batch, row).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            "timestampType": 0,
        })
    return out
