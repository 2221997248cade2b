"""Evidence for the version-dependent rules of issue 30, each on a real restart.

Each test runs an old query for a batch on a checkpoint in a temporary folder, then the new
query on the same checkpoint (the helpers of `test_spark_context`), and asserts both what
Spark did and what the static diff says for the installed version (CI runs the newest
pyspark, 4.3.0; the versions lane, bench/versions.py, each older one from 3.5 on) and records
the row of the lane's table. Where an outcome differs between versions the test says which
does what (on 3.5 transformWithState does not exist: QY29, QY18):

* dropDuplicates keys reordered (DD03): same types restart and emit already-seen rows again;
  other types are refused (the state's key schema);
* transformWithState state variables added or removed (AS15), TTL added under Avro encoding
  (AS16), time mode changed (AS03), output mode changed (AS14), an Avro int field widened to
  long (AS12).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from test_spark_context import (
    ROCKSDB,
    _conf,
    _has_api,
    _land,
    _record,
    _run,
    _schema_error,
    _static,
    _tws_cannot_start,
    _tws_verdicts,
    _version,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

pytestmark = [pytest.mark.spark, pytest.mark.versions]


# -- dropDuplicates: keys reordered ---------------------------------------------------------

DEDUP_JOB = '''
df = spark.readStream.schema("a STRING, b STRING, n LONG").json("/in")
df.dropDuplicates([{keys}]).writeStream.foreachBatch(save).option("checkpointLocation", "/c").start()
'''  # noqa: E501


def _dedup(spark: SparkSession, root: Path, keys: list[str]) -> Callable[[], DataFrame]:
    def build() -> DataFrame:
        return spark.readStream.schema("a STRING, b STRING, n LONG").json(
            str(root / "in")).dropDuplicates(keys)
    return build


def _dedup_restart(spark: SparkSession, root: Path, old: list[str], new: list[str]
                   ) -> tuple[list[Any], str | None]:
    """Batch 1 deduplicated by `old`; batch 2, the same event again, by `new`."""
    event = {"a": "x", "b": "y", "n": 1}
    _land(root / "in", 1, [event, event])
    rows, error = _run(spark, _dedup(spark, root, old), root / "chk")
    assert error is None, error
    assert [(r.a, r.b) for r in rows] == [("x", "y")]
    _land(root / "in", 2, [event])
    return _run(spark, _dedup(spark, root, new), root / "chk")


def test_dedup_keys_of_one_type_reordered_emit_seen_events_again(spark: SparkSession,
                                                                 tmp_path: Path) -> None:
    old, new = DEDUP_JOB.format(keys='"a", "b"'), DEDUP_JOB.format(keys='"b", "a"')
    found = _static(old, new, _version())
    assert found == {"DD03": "incompatible"}, found
    rows, error = _dedup_restart(spark, tmp_path, ["a", "b"], ["b", "a"])
    assert error is None, error  # no error: the key schema is (string, string) both times
    # The event batch 1 already wrote is written again: the state holds (a, b) = (x, y), the
    # new query looks up (b, a) = (y, x).
    assert [(r.a, r.b) for r in rows] == [("x", "y")]
    # Unchanged keys drop it, as a deduplication should.
    rows, error = _dedup_restart(spark, tmp_path / "same", ["a", "b"], ["a", "b"])
    assert error is None and rows == [], (error, rows)
    _record("DD03 dedup keys of one type reordered", "restarts, a seen event emitted again",
            found)


def test_dedup_keys_of_other_types_reordered_are_refused(spark: SparkSession,
                                                         tmp_path: Path) -> None:
    old, new = DEDUP_JOB.format(keys='"a", "n"'), DEDUP_JOB.format(keys='"n", "a"')
    found = _static(old, new, _version())
    assert found == {"DD03": "incompatible"}, found
    _, error = _dedup_restart(spark, tmp_path, ["a", "n"], ["n", "a"])
    refusal = _schema_error("STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE")
    assert error is not None and refusal in error, error
    _record("DD03 dedup keys of other types reordered", f"refused: {refusal}", found)


# -- transformWithState ----------------------------------------------------------------------

TWS_JOB = '''
from pyspark.sql.streaming import StatefulProcessor
spark.conf.set("spark.sql.streaming.stateStore.providerClass", "{rocksdb}")
{avro}
class Counter(StatefulProcessor):
    def init(self, handle):
{variables}

df = spark.readStream.schema("user STRING").json("/in")
out = df.groupBy("user").transformWithStateInPandas(Counter(), "user STRING, n LONG", "{output}", "{mode}")
out.writeStream.foreachBatch(save).outputMode("update").option("checkpointLocation", "/c").start()
'''  # noqa: E501
AVRO = 'spark.conf.set("spark.sql.streaming.stateStore.encodingFormat", "avro")\n'
# name -> (getter, schema, TTL in ms or None)
Variables = dict[str, tuple[str, str, int | None]]
COUNT: Variables = {"count": ("getValueState", "n LONG", None)}


def _job(variables: Variables, mode: str = "None", output: str = "Update",
         avro: bool = False) -> str:
    lines = [f'        self.{name} = handle.{getter}("{name}", "{schema}"'
             + (f", {ttl})" if ttl else ")") for name, (getter, schema, ttl) in variables.items()]
    return TWS_JOB.format(rocksdb=ROCKSDB, avro=AVRO if avro else "", variables="\n".join(lines),
                          output=output, mode=mode)


def _processor(variables: Variables, count_type: str = "n LONG") -> type:
    """Counts rows per user in the value state `count` (declared `count_type`); every other
    variable gets the batch's size appended (a list) or written (a value)."""
    import pandas as pd
    from pyspark.sql.streaming import StatefulProcessor

    class Counter(StatefulProcessor):
        def init(self, handle: Any) -> None:
            self.states = {}
            for name, (getter, schema, ttl) in variables.items():
                schema = count_type if name == "count" else schema
                self.states[name] = (getter, getattr(handle, getter)(name, schema, ttl))

        def handleInputRows(self, key: Any, rows: Any, timerValues: Any) -> Any:
            count = self.states["count"][1]
            size = sum(len(pdf) for pdf in rows)
            n = int(count.get()[0]) + size if count.exists() else size
            count.update((n,))
            for name, (getter, state) in self.states.items():
                if name != "count":
                    state.appendValue((size,)) if getter == "getListState" else \
                        state.update((size,))
            yield pd.DataFrame({"user": [key[0]], "n": [n]})

        def close(self) -> None:
            pass

    return Counter


def _tws(spark: SparkSession, root: Path, processor: type, mode: str, output: str
         ) -> Callable[[], DataFrame]:
    def build() -> DataFrame:
        df = spark.readStream.schema("user STRING").json(str(root / "in"))
        return df.groupBy("user").transformWithStateInPandas(
            processor(), "user STRING, n LONG", output, mode)
    return build


def _tws_restart(spark: SparkSession, root: Path, old: type, new: type,
                 modes: tuple[str, str] = ("None", "None"),
                 outputs: tuple[str, str] = ("Update", "Update"), avro: bool = False
                 ) -> tuple[list[Any], str | None]:
    """User a counted twice in batch 1 by `old`, once more in batch 2 by `new` on the same
    checkpoint: a restart that keeps the state answers ("a", 3)."""
    settings = {"spark__sql__streaming__stateStore__providerClass": ROCKSDB}
    if avro:
        settings["spark__sql__streaming__stateStore__encodingFormat"] = "avro"
    with _conf(spark, **settings):
        _land(root / "in", 1, [{"user": "a"}, {"user": "a"}])
        rows, error = _run(spark, _tws(spark, root, old, modes[0], outputs[0]), root / "chk",
                           "update", once=True)
        assert error is None, error
        assert [(r.user, r.n) for r in rows] == [("a", 2)]
        _land(root / "in", 2, [{"user": "a"}])
        return _run(spark, _tws(spark, root, new, modes[1], outputs[1]), root / "chk",
                    "update", once=True)


@pytest.mark.parametrize("getter", ["getValueState", "getListState"])
@pytest.mark.parametrize("avro", [False, True], ids=["unsaferow", "avro"])
def test_tws_state_variable_added_keeps_the_state(spark: SparkSession, tmp_path: Path,
                                                  getter: str, avro: bool) -> None:
    more: Variables = {**COUNT, "seen": (getter, "size LONG", None)}
    found = _tws_verdicts(_job(COUNT, avro=avro), _job(more, avro=avro), {"AS15": "compatible"})
    pair = f"AS15 tws {getter} variable added ({'Avro' if avro else 'UnsafeRow'})"
    if not _has_api():
        return _record(pair, _tws_cannot_start(spark, tmp_path), found)
    rows, error = _tws_restart(spark, tmp_path, _processor(COUNT), _processor(more),
                               avro=avro)
    assert error is None, error
    assert [(r.user, r.n) for r in rows] == [("a", 3)], "the count continues from the state"
    _record(pair, "restarts, state kept", found)


def test_tws_state_variable_removed_keeps_the_state(spark: SparkSession,
                                                    tmp_path: Path) -> None:
    more: Variables = {**COUNT, "seen": ("getListState", "size LONG", None)}
    found = _tws_verdicts(_job(more), _job(COUNT), {"AS15": "compatible"})
    if not _has_api():
        return _record("AS15 tws variable removed", _tws_cannot_start(spark, tmp_path), found)
    rows, error = _tws_restart(spark, tmp_path, _processor(more), _processor(COUNT))
    assert error is None, error
    assert [(r.user, r.n) for r in rows] == [("a", 3)], "the count continues from the state"
    _record("AS15 tws variable removed", "restarts, state kept", found)


def test_tws_ttl_added_under_avro_is_refused(spark: SparkSession, tmp_path: Path) -> None:
    ttl: Variables = {"count": ("getValueState", "n LONG", 3_600_000)}
    old, new = _job(COUNT, "ProcessingTime", avro=True), _job(ttl, "ProcessingTime", avro=True)
    found = _tws_verdicts(old, new, {"AS16": "incompatible"})
    if not _has_api():
        return _record("AS16 tws TTL added (Avro)", _tws_cannot_start(spark, tmp_path), found)
    _, error = _tws_restart(spark, tmp_path, _processor(COUNT), _processor(ttl),
                            modes=("ProcessingTime", "ProcessingTime"), avro=True)
    assert error is not None and "EXPRESSION_DECODING_FAILED" in error, error
    _record("AS16 tws TTL added (Avro)", "refused: EXPRESSION_DECODING_FAILED", found)


def test_tws_time_mode_changed_is_refused(spark: SparkSession, tmp_path: Path) -> None:
    old, new = _job(COUNT, "None"), _job(COUNT, "ProcessingTime")
    found = _tws_verdicts(old, new, {"AS03": "incompatible"})
    if not _has_api():
        return _record("AS03 tws time mode changed", _tws_cannot_start(spark, tmp_path), found)
    _, error = _tws_restart(spark, tmp_path, _processor(COUNT), _processor(COUNT),
                            modes=("None", "ProcessingTime"))
    assert error is not None and "STATE_STORE_INVALID_CONFIG_AFTER_RESTART" in error, error
    _record("AS03 tws time mode changed", "refused: STATE_STORE_INVALID_CONFIG_AFTER_RESTART",
            found)


def test_tws_output_mode_changed_is_refused(spark: SparkSession, tmp_path: Path) -> None:
    old, new = _job(COUNT, output="Update"), _job(COUNT, output="Append")
    found = _tws_verdicts(old, new, {"AS14": "incompatible"})
    if not _has_api():
        return _record("AS14 tws output mode changed", _tws_cannot_start(spark, tmp_path),
                       found)
    _, error = _tws_restart(spark, tmp_path, _processor(COUNT), _processor(COUNT),
                            outputs=("Update", "Append"))
    assert error is not None and "STATE_STORE_INVALID_CONFIG_AFTER_RESTART" in error, error
    _record("AS14 tws output mode changed",
            "refused: STATE_STORE_INVALID_CONFIG_AFTER_RESTART", found)


def test_tws_avro_int_widened_to_long_keeps_the_state(spark: SparkSession,
                                                      tmp_path: Path) -> None:
    narrow: Variables = {"count": ("getValueState", "n INT", None)}
    # Spark 4.0 keeps the state too (measured on 4.0.5 by bench/versions.py), but AS12 speaks
    # from 4.1 on, where Avro value schemas evolve in general: 4.0 is asked about (AS02).
    expected = {"AS12": "compatible"} if _version() != "4.0" else {"AS02": "review"}
    found = _tws_verdicts(_job(narrow, avro=True), _job(COUNT, avro=True), expected)
    if not _has_api():
        return _record("AS12 tws Avro int widened to long", _tws_cannot_start(spark, tmp_path),
                       found)
    rows, error = _tws_restart(spark, tmp_path, _processor(narrow, "n INT"),
                               _processor(COUNT), avro=True)
    assert error is None, error
    assert [(r.user, r.n) for r in rows] == [("a", 3)], "the count continues from the state"
    _record("AS12 tws Avro int widened to long", "restarts, state kept", found)
