"""Evidence for query evolution (Spark 4.2+) and Real-Time Mode restarts, each on a real restart.

Each test runs an old query on a checkpoint in a temporary folder, then the new query on the
same checkpoint, and asserts both what Spark did and what the static diff says for the
installed version (pyspark 4.3.0):

* named sources (`DataStreamReader.name()`, source evolution): a named source added restarts
  (SO10) and is read from its start; a source left unnamed beside named ones is refused at
  start (QY19); names added to a checkpoint of unnamed sources (SO21) or removed from one of
  named sources (SO22) are refused; a renamed source starts over (SO10 + SO11);
* sink evolution: PySpark's writer cannot name a sink, so the setting refuses every query (QY20);
* a file sink partitioned by a column of a collated string type, refused on 4.3 (QY23);
* a query switched to Real-Time Mode on a checkpoint of state store checkpoint format 1 (QY22).
  Real-Time Mode on 4.3 reads neither file nor rate sources and there is no Kafka here: the
  source is Spark's own LowLatencyMemoryStream (in spark-sql's main jar, the source Spark's
  Real-Time Mode suites use), reached through py4j, and the sink the console.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from test_spark_context import _conf, _land, _run, _static

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

pytestmark = pytest.mark.spark

SOURCE_EVOLUTION = "spark__sql__streaming__queryEvolution__enableSourceEvolution"
SINK_EVOLUTION = "spark__sql__streaming__queryEvolution__enableSinkEvolution"
ON = {SOURCE_EVOLUTION: "true"}

# A source per line: (name or None, input folder).
Sources = tuple[tuple[str | None, str], ...]


def _code(sources: Sources, settings: str = "") -> str:
    """The job as streamlint reads it."""
    lines = [settings] if settings else []
    for i, (name, folder) in enumerate(sources):
        named = f'.name("{name}")' if name else ""
        lines.append(f's{i} = spark.readStream.schema("id LONG"){named}.json("/in/{folder}")')
    union = "s0" + "".join(f".union(s{i})" for i in range(1, len(sources)))
    lines.append(f'{union}.writeStream.foreachBatch(save).option("checkpointLocation", "/c")'
                 '.start()')
    return "\n".join(lines) + "\n"


def _build(spark: SparkSession, root: Path, sources: Sources) -> Callable[[], DataFrame]:
    def build() -> DataFrame:
        frames = []
        for name, folder in sources:
            reader = spark.readStream.schema("id LONG")
            frames.append((reader.name(name) if name else reader).json(str(root / folder)))
        out = frames[0]
        for frame in frames[1:]:
            out = out.union(frame)
        return out
    return build


def _restart(spark: SparkSession, root: Path, old: Sources, new: Sources,
             old_conf: dict[str, str], new_conf: dict[str, str]
             ) -> tuple[list[int], str | None]:
    """Batch 1 (ids 1 in `a`, 2 in `b`) by `old`; batch 2 (3 in `a`, 4 in `b`) by `new` on the
    same checkpoint: the ids the restart wrote, or Spark's error (raised at start or when the
    query ran)."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    _land(root / "a", 1, [{"id": 1}])
    _land(root / "b", 1, [{"id": 2}])
    with _conf(spark, **old_conf):
        rows, error = _run(spark, _build(spark, root, old), root / "chk")
    assert error is None, error
    _land(root / "a", 2, [{"id": 3}])
    _land(root / "b", 2, [{"id": 4}])
    with _conf(spark, **new_conf):
        try:
            rows, error = _run(spark, _build(spark, root, new), root / "chk")
        except (PySparkException, Py4JJavaError) as err:  # refused by start()
            return [], str(err).split("\nJVM stacktrace:", 1)[0]
    return sorted(r.id for r in rows), error


# -- named sources -----------------------------------------------------------------------------

def test_a_named_source_added_restarts_and_reads_its_input_from_the_start(
        spark: SparkSession, tmp_path: Path) -> None:
    old, new = (("a", "a"),), (("a", "a"), ("b", "b"))
    assert _static(_code(old), _code(new), "4.3") == {"SO10": "review"}
    ids, error = _restart(spark, tmp_path, old, new, ON, ON)
    assert error is None, error
    # `a` continues where it stopped (3); `b` is new and reads both of its files (2, 4).
    assert ids == [2, 3, 4]


def test_a_named_source_removed_restarts(spark: SparkSession, tmp_path: Path) -> None:
    old, new = (("a", "a"), ("b", "b")), (("a", "a"),)
    assert _static(_code(old), _code(new), "4.3") == {"SO11": "review"}
    ids, error = _restart(spark, tmp_path, old, new, ON, ON)
    assert error is None, error
    assert ids == [3]


def test_an_unnamed_source_beside_named_ones_is_refused(spark: SparkSession,
                                                        tmp_path: Path) -> None:
    old, new = (("a", "a"),), (("a", "a"), (None, "b"))
    assert _static(_code(old), _code(new), "4.3") == {"SO01": "incompatible",
                                                       "QY19": "incompatible"}
    _, error = _restart(spark, tmp_path, old, new, ON, ON)
    assert error is not None and "UNNAMED_STREAMING_SOURCES_WITH_ENFORCEMENT" in error, error


def test_an_unnamed_source_with_source_evolution_on_is_refused_from_any_checkpoint(
        spark: SparkSession, tmp_path: Path) -> None:
    from pyspark.errors import PySparkException

    setting = ('spark.conf.set("spark.sql.streaming.queryEvolution.enableSourceEvolution", '
               '"true")')
    old = new = ((None, "a"),)
    assert _static(_code(old), _code(new, setting), "4.3") == {"CF05": "compatible",
                                                                "QY19": "incompatible"}
    _land(tmp_path / "a", 1, [{"id": 1}])
    with _conf(spark, **ON), pytest.raises(PySparkException,
                                           match="UNNAMED_STREAMING_SOURCES_WITH_ENFORCEMENT"):
        _run(spark, _build(spark, tmp_path, new), tmp_path / "fresh")


def test_names_added_to_a_checkpoint_of_unnamed_sources_are_refused(
        spark: SparkSession, tmp_path: Path) -> None:
    old, new = ((None, "a"),), (("a", "a"),)
    assert _static(_code(old), _code(new), "4.3") == {"SO21": "incompatible"}
    assert _static(_code(old), _code(new), "4.2") == {"SO13": "review"}  # not measured
    _, error = _restart(spark, tmp_path, old, new, {}, ON)
    assert error is not None and "CANNOT_ENABLE_ON_EXISTING_CHECKPOINT" in error, error


SQL_JOB = '''
df = spark.sql("SELECT id FROM STREAM(events){named}")
df.writeStream.foreachBatch(save).option("checkpointLocation", "/c").start()
'''


def test_sql_identified_by_added_to_a_checkpoint_of_unnamed_sources_is_refused(
        spark: SparkSession, tmp_path: Path) -> None:
    """SQL names a source with `STREAM t IDENTIFIED BY name` (Spark 4.2+): the same refusal."""
    named = " IDENTIFIED BY events_src"
    assert _static(SQL_JOB.format(named=""), SQL_JOB.format(named=named), "4.3") == {
        "SO21": "incompatible"}
    spark.range(3).write.parquet(str(tmp_path / "events"))
    spark.sql(f"CREATE TABLE events USING parquet LOCATION '{tmp_path / 'events'}'")
    try:
        rows, error = _run(spark, lambda: spark.sql("SELECT id FROM STREAM(events)"),
                           tmp_path / "chk")
        assert error is None and len(rows) == 3, error
        with _conf(spark, **ON):
            _, error = _run(spark, lambda: spark.sql(f"SELECT id FROM STREAM(events){named}"),
                            tmp_path / "chk")
    finally:
        spark.sql("DROP TABLE events")
    assert error is not None and "CANNOT_ENABLE_ON_EXISTING_CHECKPOINT" in error, error

@pytest.mark.parametrize("setting", ["on", "off"])
def test_names_removed_from_a_checkpoint_of_named_sources_are_refused(
        spark: SparkSession, tmp_path: Path, setting: str) -> None:
    old, new = (("a", "a"),), ((None, "a"),)
    assert _static(_code(old), _code(new), "4.3") == {"SO22": "incompatible"}
    _, error = _restart(spark, tmp_path, old, new, ON, ON if setting == "on" else {})
    expected = ("UNNAMED_STREAMING_SOURCES_WITH_ENFORCEMENT" if setting == "on"
                else "All sources should be named")
    assert error is not None and expected in error, error


def test_a_renamed_source_starts_over(spark: SparkSession, tmp_path: Path) -> None:
    old, new = (("a", "a"),), (("a2", "a"),)
    assert _static(_code(old), _code(new), "4.3") == {"SO10": "review", "SO11": "review"}
    ids, error = _restart(spark, tmp_path, old, new, ON, ON)
    assert error is None, error
    assert ids == [1, 3], "the renamed source reads every file again"


# -- sink evolution ----------------------------------------------------------------------------

def test_sink_evolution_refuses_a_pyspark_query(spark: SparkSession, tmp_path: Path) -> None:
    from pyspark.sql.streaming.readwriter import DataStreamWriter

    assert not hasattr(DataStreamWriter, "name"), "PySpark's writer cannot name a sink"
    setting = ('spark.conf.set("spark.sql.streaming.queryEvolution.enableSinkEvolution", '
               '"true")')
    old = new = ((None, "a"),)
    assert _static(_code(old), _code(new, setting), "4.3") == {"CF05": "compatible",
                                                                "QY20": "incompatible"}
    _, error = _restart(spark, tmp_path, old, new, {}, {SINK_EVOLUTION: "true"})
    assert error is not None and "UNNAMED_STREAMING_SINKS_WITH_ENFORCEMENT" in error, error


# -- a file sink's partition column of a collated string type ------------------------------

PARTITIONED_JOB = '''
df = spark.readStream.schema("k STRING, n LONG").json("/in")
df.selectExpr("{k}", "n").writeStream.format("parquet").partitionBy("k").option("checkpointLocation", "/c").start("/o")
'''  # noqa: E501


@pytest.mark.parametrize(("collation", "refused"), [
    ("UTF8_LCASE", True), ("UNICODE", True), ("UTF8_BINARY", False)])
def test_a_partition_column_of_a_collated_string_is_refused(
        spark: SparkSession, tmp_path: Path, collation: str, refused: bool) -> None:
    from pyspark.errors import PySparkException

    new = f"k COLLATE {collation} AS k"
    static = _static(PARTITIONED_JOB.format(k="k"), PARTITIONED_JOB.format(k=new), "4.3")
    assert static.get("QY23") == ("incompatible" if refused else None), static
    _land(tmp_path / "in", 1, [{"k": "A", "n": 1}])
    try:
        query = (spark.readStream.schema("k STRING, n LONG").json(str(tmp_path / "in"))
                 .selectExpr(new, "n").writeStream.format("parquet").partitionBy("k")
                 .option("checkpointLocation", str(tmp_path / "chk"))
                 .trigger(availableNow=True).start(str(tmp_path / "out")))
        query.awaitTermination(120)
        error = None
    except PySparkException as err:
        error = str(err)
    if refused:
        assert error is not None and "INVALID_PARTITION_COLUMN_DATA_TYPE" in error, error
    else:
        assert error is None, error
        assert [r.k for r in spark.read.parquet(str(tmp_path / "out")).collect()] == ["A"]


# -- Real-Time Mode on an existing checkpoint ------------------------------------------------

RTM_JOB = '''
{settings}
df = spark.readStream.format("kafka").option("subscribe", "in").load()
{query}.writeStream.foreach(record).outputMode("update").trigger({trigger}).option("checkpointLocation", "/c").start()
'''  # noqa: E501
ALLOW_V1 = "spark__sql__streaming__realTimeMode__dangerouslyAllowCheckpointV1__enabled"
FORMAT = "spark__sql__streaming__stateStore__checkpointFormatVersion"


def _rtm_code(stateful: bool, real_time: bool, settings: dict[str, str]) -> str:
    lines = "\n".join(f'spark.conf.set("{k.replace("__", ".")}", "{v}")'
                      for k, v in settings.items())
    return RTM_JOB.format(settings=lines,
                          query='df.groupBy("value").count()' if stateful else "df",
                          trigger='realTime="5 seconds"' if real_time
                          else 'processingTime="1 second"')


@pytest.fixture
def one_slot_per_stage(spark: SparkSession) -> Iterator[None]:
    """Real-Time Mode runs a query's stages at once: on local[2] a stateful query fits with
    one source partition and one shuffle partition."""
    with _conf(spark, spark__sql__shuffle__partitions="1"):
        yield


def _rtm_restart(spark: SparkSession, root: Path, stateful: bool,
                 old_conf: dict[str, str], new_conf: dict[str, str]
                 ) -> tuple[list[tuple[Any, ...]], str | None]:
    """Values 1, 2 by a micro-batch query, then 1 again by the same query in Real-Time Mode
    on the same checkpoint: the rows the restart wrote, or Spark's error."""
    from pyspark.sql import DataFrame

    jvm = spark._jvm
    assert jvm is not None
    memory = jvm.org.apache.spark.sql.execution.streaming.sources.LowLatencyMemoryStream
    source = memory.singlePartition(spark._jsparkSession, jvm.org.apache.spark.sql.Encoders.INT())

    def add(values: list[int]) -> None:
        source.addData(jvm.org.apache.spark.api.python.PythonUtils.toSeq(values))

    def frame() -> DataFrame:
        df = DataFrame(source.toDF(), spark)
        return df.groupBy("value").count() if stateful else df

    out = root / "rows"
    out.mkdir(parents=True)

    def record(row: Any) -> None:  # runs in a Python worker: one file per row
        import uuid

        (out / uuid.uuid4().hex).write_text(repr(tuple(row)))

    def start(trigger: dict[str, Any]) -> Any:
        return (frame().writeStream.foreach(record).outputMode("update")
                .option("checkpointLocation", str(root / "chk")).trigger(**trigger).start())

    add([1, 2])
    with _conf(spark, **old_conf):
        query = start({"processingTime": "1 second"})
        query.processAllAvailable()
        query.stop()
    for done in out.iterdir():
        done.unlink()
    add([1])
    with _conf(spark, **new_conf):
        query = start({"realTime": "5 seconds"})
        try:
            query.processAllAvailable()
        except Exception as err:  # noqa: BLE001 - Spark's error is the outcome
            return [], str(err).split("\nJVM stacktrace:", 1)[0]
        finally:
            query.stop()
    return sorted(eval(p.read_text()) for p in out.iterdir()), None  # noqa: S307


@pytest.mark.parametrize("stateful", [False, True], ids=["stateless", "stateful"])
def test_real_time_mode_on_a_format_1_checkpoint_is_refused(
        spark: SparkSession, tmp_path: Path, one_slot_per_stage: None, stateful: bool) -> None:
    old, new = _rtm_code(stateful, False, {}), _rtm_code(stateful, True, {})
    assert _static(old, new, "4.3") == {"QY22": "incompatible"}
    _, error = _rtm_restart(spark, tmp_path, stateful, {}, {})
    assert error is not None and "CHECKPOINT_FORMAT_V1_NOT_SUPPORTED" in error, error
    # Format 2 set only by the new version does not help: the checkpoint's is pinned.
    v2 = {FORMAT: "2"}
    assert _static(old, _rtm_code(stateful, True, v2), "4.3") == {
        "QY22": "incompatible", "CF05": "compatible"}
    _, error = _rtm_restart(spark, tmp_path / "v2", stateful, {}, v2)
    assert error is not None and "CHECKPOINT_FORMAT_V1_NOT_SUPPORTED" in error, error


def test_real_time_mode_with_the_escape_hatch_keeps_the_state(
        spark: SparkSession, tmp_path: Path, one_slot_per_stage: None) -> None:
    hatch = {ALLOW_V1: "true"}
    old, new = _rtm_code(True, False, {}), _rtm_code(True, True, hatch)
    assert _static(old, new, "4.3") == {"QY16": "review", "CF05": "compatible"}
    rows, error = _rtm_restart(spark, tmp_path, True, {}, hatch)
    assert error is None, error
    assert rows == [(1, 2)], "value 1 counted once before the switch, once after"


def test_real_time_mode_on_a_format_2_checkpoint_restarts(
        spark: SparkSession, tmp_path: Path, one_slot_per_stage: None) -> None:
    v2 = {FORMAT: "2"}
    old, new = _rtm_code(False, False, v2), _rtm_code(False, True, v2)
    assert _static(old, new, "4.3") == {"QY16": "review"}
    rows, error = _rtm_restart(spark, tmp_path, False, v2, {})
    assert error is None, error
    assert rows == [(1,)]
