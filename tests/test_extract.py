"""What extraction must say about realistic jobs (tests/jobs/*.py).

Every expected value here was decided by reading the job: what Spark would read, compute and
write when the job runs. Columns are compared in their canonical text (`col(x)`, function
calls with literal arguments as Python reprs), so different spellings of one column compare
equal and only a real change differs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from streamlint.extract import extract_file, extract_text
from streamlint.model import (
    AggCall,
    Aggregation,
    ArbitraryState,
    Deduplication,
    Filter,
    JobFile,
    Loc,
    Origin,
    Projection,
    Query,
    Source,
    StaticJoin,
    StreamJoin,
    Template,
    Union_,
    Unknown,
    Watermark,
    option,
    records,
)
from streamlint.model.expr import (
    Binary,
    Column,
    Definition,
    Literal,
    Star,
    Unresolved,
    render,
)

JOBS = Path(__file__).parent / "jobs"
ALL_JOBS = sorted(p.name for p in JOBS.glob("*.py"))


def job(name: str) -> JobFile:
    return extract_file(str(JOBS / name))


def line_of(name: str, text: str, nth: int = 1) -> int:
    """The line (1-based) of the nth line of a job that contains `text`."""
    seen = 0
    for number, line in enumerate((JOBS / name).read_text().splitlines(), start=1):
        if text in line:
            seen += 1
            if seen == nth:
                return number
    raise AssertionError(f"{text!r} not found {nth} times in {name}")


def only(queries: tuple[Query, ...]) -> Query:
    assert len(queries) == 1, [q.label for q in queries]
    return queries[0]


def by_checkpoint(jobfile: JobFile, checkpoint: str) -> Query:
    found = [q for q in jobfile.queries if q.sink.checkpoint == checkpoint]
    assert len(found) == 1, [q.sink.checkpoint for q in jobfile.queries]
    return found[0]


def ops(query: Query, kind: type) -> list:
    return [op for op in query.operators if isinstance(op, kind)]


def without_locs(items: tuple) -> list:
    """The records with every place they keep cleared (`loc`, `schema_loc`, `option_locs`)."""
    return [records.replace(r, **{name: () if name.endswith("_locs") else None
                                  for name in records.fields(r)
                                  if name == "loc" or name.endswith(("_loc", "_locs"))})
            for r in items]


def snippet(code: str) -> Query:
    return only(extract_text(code, "job.py").queries)


def text(value: object) -> object:
    """Expressions (and `name = expr` definitions) in their canonical spelling."""
    if isinstance(value, tuple):
        return tuple(text(v) for v in value)
    if isinstance(value, Definition):
        return f"{value.name} = {render(value.expr)}"
    return render(value)  # type: ignore[arg-type]


# -- the model is plain data ---------------------------------------------------------------

PLAIN = (str, int, float, bool, type(None), Unknown, Loc)


def _assert_plain(value: object, where: str) -> None:
    if records.is_record(value) and type(value).__module__.startswith("streamlint.model"):
        for name in records.fields(value):
            _assert_plain(getattr(value, name), f"{where}.{name}")
    elif isinstance(value, tuple):
        for i, item in enumerate(value):
            _assert_plain(item, f"{where}[{i}]")
    else:
        assert isinstance(value, PLAIN), f"{where} is a {type(value).__name__}: {value!r}"


@pytest.mark.parametrize("name", ALL_JOBS)
def test_every_job_extracts_to_plain_records(name: str) -> None:
    jobfile = job(name)
    assert jobfile.queries, f"{name} has streaming queries"
    for i, query in enumerate(jobfile.queries):
        _assert_plain(query, f"{name}:query[{i}]")


# -- constants, environment defaults, concatenation, f-strings, **options -------------------


def test_kafka_job_resolves_constants_env_defaults_and_option_dicts() -> None:
    name = "kafka_revenue.py"
    query = only(job(name).queries)
    (source,) = query.sources
    assert source.format == "kafka"
    # BROKERS = os.getenv(..., default); TOPIC = "payments" + "." + ENV, ENV from environ.get
    assert source.identity == (("subscribe", "payments.prod"),)
    # MAX_OFFSETS = 50_000, set with .option(); Spark keeps option values as strings.
    assert source.rate_limits == (("maxOffsetsPerTrigger", "50000"),)
    # From KAFKA_OPTIONS via .options(**KAFKA_OPTIONS); False is stored as "false". The brokers
    # are an option, not the identity: the checkpoint keeps offsets per topic and partition.
    assert source.options == (
        ("failOnDataLoss", "false"),
        ("kafka.bootstrap.servers", "kafka-1:9092,kafka-2:9092"),
        ("startingOffsets", "earliest"),
    )
    assert source.schema is None  # Kafka has a fixed schema; nothing declared
    assert source.streaming is True
    assert source.loc.line == line_of(name, "spark.readStream.format")


def test_kafka_job_operators_in_order_with_split_assignments() -> None:
    name = "kafka_revenue.py"
    query = only(job(name).queries)
    kinds = [op.kind for op in query.operators]
    assert kinds == ["projection", "projection", "filter", "projection", "watermark",
                     "aggregation"]
    parse, flatten, positive, fee, watermark, revenue = query.operators
    # from_json with a StructType: the schema is read field by field, nullability included.
    assert text(parse.exprs) == (
        "from_json(cast(value AS string), 'struct<payment_id:string not null,"
        "merchant_id:string,amount:decimal(18,2),fee_cents:bigint,paid_at:timestamp>') AS p",
    )
    assert flatten.columns == ("payment_id", "merchant_id", "amount", "fee_cents", "paid_at")
    assert text(positive.condition) == "(amount > 0)"
    assert fee.method == "withColumn" and text(fee.exprs) == ("(fee_cents / 100) AS fee",)
    assert (watermark.column, watermark.delay) == ("paid_at", "15 minutes")
    assert isinstance(revenue, Aggregation)
    assert revenue.method == "groupBy"
    assert text(revenue.keys) == ("window(paid_at, INTERVAL 10 minutes)", "merchant_id")
    assert revenue.aggregates == (
        AggCall("sum", (Column("amount"),), "gross"),
        AggCall("sum", (Column("fee"),), "fees"),
        AggCall("count", (Star(),), "payments"),
    )
    # How the columns the aggregation reads were computed upstream (for type changes).
    assert "fee = (fee_cents / 100)" in text(revenue.inputs)
    assert "amount = cast(amount AS decimal(18,2))" in text(revenue.inputs)
    assert revenue.loc.line == line_of(name, "revenue = payments.groupBy(")
    assert positive.loc.line == line_of(name, "payments.filter(")
    assert query.output_columns == ("window", "merchant_id", "gross", "fees", "payments")


def test_kafka_job_sink_and_session_config() -> None:
    name = "kafka_revenue.py"
    query = only(job(name).queries)
    sink = query.sink
    assert sink.format == "delta"
    assert sink.output_mode == "append"
    assert sink.trigger == ("processingTime", "1 minute")
    assert sink.query_name == "revenue_per_merchant"
    # LAKE = f"s3://lake-{ENV}"; start(LAKE + "/gold/...") and f"{CHECKPOINTS}/revenue"
    assert sink.target == "s3://lake-prod/gold/revenue_per_merchant"
    assert sink.checkpoint == "s3://lake-prod/_checkpoints/revenue"
    assert sink.options == (("path", "s3://lake-prod/gold/revenue_per_merchant"),)
    assert sink.foreach is None and sink.partition_by == ()
    assert sink.loc.line == line_of(name, "revenue.writeStream")
    assert sink.trigger_loc is not None and sink.trigger_loc.line == line_of(name, ".trigger(")
    assert sink.checkpoint_loc is not None
    assert sink.checkpoint_loc.line == line_of(name, '"checkpointLocation"')
    assert sink.output_mode_loc is not None
    assert sink.output_mode_loc.line == line_of(name, ".outputMode(")
    # Builder .config() and spark.conf.set() both count; every Spark setting is recorded and
    # the rules say which ones a checkpoint pins (executor memory is not one of them).
    settings = {s.key: s.value for s in query.config}
    assert settings == {
        "spark.executor.memory": "8g",
        "spark.sql.shuffle.partitions": "48",
        "spark.sql.streaming.stateStore.providerClass":
            "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
    }
    by_key = {s.key: s.loc.line for s in query.config}
    assert by_key["spark.sql.shuffle.partitions"] == line_of(name, "spark.sql.shuffle.partitions")
    assert by_key["spark.sql.streaming.stateStore.providerClass"] == line_of(name, "conf.set(")


# -- job classes, dataclass configs, transform ----------------------------------------------


def test_class_job_reads_self_attributes_class_constants_and_dataclass_config() -> None:
    name = "telemetry_class.py"
    query = only(job(name).queries)
    (source,) = query.sources
    # StreamConfig("iot-kafka:9092", "telemetry.raw", ...): fields by position and keyword,
    # max_offsets from the dataclass default.
    assert source.identity == (("subscribe", "telemetry.raw"),)
    assert option(source.options, "kafka.bootstrap.servers") == "iot-kafka:9092"
    assert source.rate_limits == (("maxOffsetsPerTrigger", "10000"),)
    assert source.loc.line == line_of(name, "self.spark.readStream")
    sink = query.sink
    assert sink.format == "kafka"
    assert sink.target == "telemetry.sessions"
    assert sink.checkpoint == "/mnt/checkpoints/telemetry_sessions"
    assert sink.output_mode == "update"
    assert sink.trigger == ("availableNow", True)
    assert option(sink.options, "kafka.bootstrap.servers") == "iot-kafka:9092"
    assert sink.loc.line == line_of(name, "out.writeStream")


def test_class_job_follows_transform_helpers_and_from_json_ddl() -> None:
    name = "telemetry_class.py"
    query = only(job(name).queries)
    kinds = [op.kind for op in query.operators]
    assert kinds == ["projection", "projection", "projection", "filter", "watermark",
                     "deduplication", "aggregation", "projection"]
    parse, flatten, clean, battery, watermark, dedup, sessions, out = query.operators
    # SCHEMA is a DDL string class constant: canonical like a StructType would be.
    assert text(parse.exprs) == ("from_json(cast(value AS string), 'struct<device_id:string,"
                                 "battery:int,temperature:double,ts:timestamp>') AS r",)
    assert flatten.columns == ("device_id", "battery", "temperature", "ts")
    # .transform(with_clean_device_id) and .transform(with_min_battery, self.min_battery)
    assert text(clean.exprs) == ("lower(trim(device_id)) AS device_id",)
    assert clean.loc.line == line_of(name, 'return df.withColumn("device_id"')
    assert text(battery.condition) == "(battery >= 5)"
    assert (watermark.column, watermark.delay) == ("ts", "2 minutes")
    assert dedup == Deduplication("dropDuplicatesWithinWatermark", ("device_id", "ts"),
                                  True, dedup.inputs, dedup.loc)
    assert "device_id = lower(trim(device_id))" in text(dedup.inputs)
    assert text(sessions.keys) == ("session_window(ts, INTERVAL 5 minutes)", "device_id")
    assert sessions.aggregates == (AggCall("avg", (Column("temperature"),), "avg_temp"),
                                   AggCall("min", (Column("battery"),), "min_battery"))
    assert sessions.loc.line == line_of(name, "return deduped.groupBy(")
    assert out.columns == ("key", "value")


def test_dataclass_field_defaults_and_methods_of_a_base_class() -> None:
    query = snippet('''
from dataclasses import dataclass, field
from pyspark.sql import SparkSession

@dataclass
class Settings:
    topic: str = field(default="orders")
    checkpoint: str = "/chk/orders"

class BaseJob:
    SINK_FORMAT = "delta"

    def __init__(self, settings):
        self.settings = settings

    def write(self, df):
        return (df.writeStream.format(self.SINK_FORMAT)
                .option("checkpointLocation", self.settings.checkpoint).start("/t/orders"))

class OrdersJob(BaseJob):
    SINK_FORMAT = "parquet"

    def run(self, spark):
        self.write(spark.readStream.format("kafka")
                   .option("subscribe", self.settings.topic).load())

OrdersJob(Settings()).run(SparkSession.builder.getOrCreate())
''')
    assert query.sources[0].identity == (("subscribe", "orders"),)
    assert query.sink.format == "parquet"  # the subclass's constant wins, as in Python
    assert query.sink.checkpoint == "/chk/orders"


# -- file sources, schemas both ways, unions, several sinks ---------------------------------

# As a file source reads it: the declared `sensor_id STRING NOT NULL` is nullable there
# (tests/test_spark_stream_facts.py).
SENSOR_SCHEMA = "sensor_id:string,reading:double,firmware:int,read_at:timestamp"


def test_file_sources_with_structtype_and_ddl_schemas_compare_equal() -> None:
    name = "landing_files.py"
    jobfile = job(name)
    assert len(jobfile.queries) == 5
    sensors = by_checkpoint(jobfile, "/mnt/checkpoints/ingest/sensors")
    north, south = sensors.sources
    assert (north.format, north.identity) == ("json", (("path", "/mnt/landing/north"),))
    assert (south.format, south.identity) == ("csv", (("path", "/mnt/landing/south"),))
    # The same schema, once a StructType and once DDL, reads the same.
    assert north.schema == south.schema == SENSOR_SCHEMA
    assert north.rate_limits == south.rate_limits == (("maxFilesPerTrigger", "20"),)
    assert south.options == (("header", "true"),)  # option("header", True) is "true"
    assert north.loc.line == line_of(name, "north = spark.readStream")
    assert south.loc.line == line_of(name, "spark.readStream.schema(SENSOR_DDL)", 1)
    union, ingested = sensors.operators
    assert union == Union_("unionByName", union.loc)
    assert text(ingested.exprs) == ("current_timestamp() AS ingested_at",)
    sink = sensors.sink
    assert (sink.format, sink.target) == ("parquet", "/mnt/bronze/sensors")
    assert sink.partition_by == ("firmware",)
    assert sink.trigger == ("once", True)
    assert sink.output_mode is None  # not set: Spark's default (append)
    assert {s.key: s.value for s in sensors.config} == {"spark.sql.shuffle.partitions": "8"}


def test_union_of_parquet_and_orc_written_with_to_table() -> None:
    jobfile = job("landing_files.py")
    legacy = by_checkpoint(jobfile, "/mnt/checkpoints/ingest/legacy")
    assert [(s.format, s.identity) for s in legacy.sources] == [
        ("parquet", (("path", "/mnt/landing/legacy/parquet"),)),
        ("orc", (("path", "/mnt/landing/legacy/orc"),)),
    ]
    assert all(s.schema == SENSOR_SCHEMA for s in legacy.sources)
    union, where = legacy.operators
    assert union.method == "union"
    assert text(where.condition) == "isnotnull(reading)"  # as F.col(...).isNotNull()
    assert legacy.sink.target == "bronze.legacy_sensors"
    assert legacy.sink.query_name == "legacy_sensors"
    assert legacy.sink.trigger == ("default", None)


def test_console_memory_and_noop_sinks() -> None:
    name = "landing_files.py"
    jobfile = job(name)
    console, memory, noop = (q for q in jobfile.queries if q.sources[0].format == "text")
    for query in (console, memory, noop):
        assert query.sources[0].identity == (("path", "/mnt/landing/notes"),)
        assert query.output_columns == ("note", "file")
        assert query.sink.checkpoint is None  # these sinks run on a temporary checkpoint
    assert (console.sink.format, console.sink.target) == ("console", "console")
    assert console.sink.options == (("truncate", "false"),)
    assert console.sink.trigger == ("continuous", "1 second")
    assert console.sink.loc.line == line_of(name, 'format("console")')
    assert (memory.sink.format, memory.sink.target) == ("memory", "notes_preview")
    assert memory.sink.query_name == "notes_preview"
    assert (noop.sink.format, noop.sink.target) == ("noop", "noop")
    assert noop.sink.trigger == ("processingTime", "30 seconds")


@pytest.mark.parametrize(("structtype", "ddl"), [
    ('StructType([StructField("id", LongType(), False), StructField("tags", '
     'ArrayType(StringType()))])', '"id BIGINT NOT NULL, tags ARRAY<STRING>"'),
    ('StructType([StructField("o", StructType([StructField("userId", IntegerType()), '
     'StructField("price", DecimalType(10, 2))]))])',
     '"o STRUCT<userId: INT, price: DECIMAL(10, 2)>"'),
    ('StructType().add("k", StringType()).add("m", MapType(StringType(), LongType()))',
     '"`k` string, m map<string,long>"'),
])
def test_structtype_and_ddl_give_one_canonical_schema(structtype: str, ddl: str) -> None:
    def schema(text: str) -> object:
        return snippet(f'''
from pyspark.sql.types import *
s = spark.readStream.schema({text}).json("/in")
s.writeStream.format("delta").option("checkpointLocation", "/c").start("/t")
''').sources[0].schema

    assert schema(structtype) == schema(ddl)
    assert isinstance(schema(ddl), str)


def test_from_json_schema_as_ddl_or_structtype_is_one_expression() -> None:
    template = '''
from pyspark.sql import functions as F
from pyspark.sql.types import StructType, StructField, StringType, LongType
raw = spark.readStream.format("kafka").option("subscribe", "t").load()
e = raw.select(F.from_json(F.col("value").cast("string"), {schema}).alias("e")).select("e.*")
e.groupBy("user").count().writeStream.format("delta").option("checkpointLocation", "/c").start()
'''
    as_struct = snippet(template.format(schema='StructType([StructField("user", StringType()), '
                                        'StructField("n", LongType())])'))
    as_ddl = snippet(template.format(schema='"user STRING, n BIGINT"'))
    assert without_locs(as_struct.operators) == without_locs(as_ddl.operators)
    assert as_ddl.operators[1].columns == ("user", "n")


# -- joins ----------------------------------------------------------------------------------


def test_stream_stream_join_on_an_expr_condition_then_a_static_join() -> None:
    name = "ad_attribution.py"
    query = by_checkpoint(job(name), "/mnt/chk/attributed")
    impressions, clicks = query.sources
    assert impressions.identity == (("subscribePattern", r"ads\.impressions\..*"),)
    assert impressions.rate_limits == (("maxOffsetsPerTrigger", "200000"),)
    assert clicks.identity == (("assign", '{"ads.clicks": [0, 1, 2, 3]}'),)
    assert option(clicks.options, "kafka.bootstrap.servers") == "ads-kafka:9092"
    # The static Delta dimension is not a streaming source: it holds no offsets.
    assert all(s.streaming for s in query.sources)
    (join,) = ops(query, StreamJoin)
    assert join.how == "left_outer"  # "leftOuter"
    assert join.keys == ()
    assert text(join.condition) == ("(((click_ad_id = imp_ad_id) AND (click_time >= imp_time))"
                                    " AND (click_time <= (imp_time + INTERVAL 1 hour)))")
    assert join.loc.line == line_of(name, "attributed = impressions.join(")
    (static,) = ops(query, StaticJoin)
    assert static.how == "left_outer"  # "left"
    assert "(imp_ad_id = ad_id)" in text(static.on)
    assert "static_source((path = '/mnt/dim/campaigns'))" in text(static.on)
    assert static.kind not in ("join",) and static not in query.stateful
    assert [op.kind for op in query.stateful] == ["join"]
    # Both sides' watermarks are part of the query.
    assert [(w.column, w.delay) for w in ops(query, Watermark)] == [
        ("imp_time", "2 hours"), ("click_time", "3 hours")]


def test_stream_stream_join_on_a_key_list_and_on_a_column_condition() -> None:
    jobfile = job("ad_attribution.py")
    matched = by_checkpoint(jobfile, "/mnt/chk/matched")
    (join,) = ops(matched, StreamJoin)
    assert (join.how, join.keys, join.condition) == ("inner", ("ad_id",), None)
    # clks.join(imps): the left side's source comes first.
    assert [s.identity[0][0] for s in matched.sources] == ["assign", "subscribePattern"]
    everything = by_checkpoint(jobfile, "/mnt/chk/all")
    (join,) = ops(everything, StreamJoin)
    assert (join.how, join.keys) == ("full_outer", ())
    assert text(join.condition) == "(imp_ad_id = click_ad_id)"


@pytest.mark.parametrize("how", ["left", "left_outer", "leftouter", "LEFT_OUTER", "leftOuter"])
def test_join_type_spellings_are_one_type(how: str) -> None:
    query = snippet(f'''
a = spark.readStream.format("rate").load().withWatermark("timestamp", "1 minute")
b = spark.readStream.format("rate").load().withWatermark("timestamp", "1 minute")
a.join(b, "value", "{how}").writeStream.format("delta").option("checkpointLocation", "/c").start()
''')
    (join,) = ops(query, StreamJoin)
    assert join.how == "left_outer"


def test_stream_static_join_with_a_table_is_stateless() -> None:
    query = snippet('''
from pyspark.sql import functions as F
orders = spark.readStream.format("delta").table("orders")
customers = spark.read.table("dim.customers")
orders.join(customers, F.col("customer_id") == F.col("id"), "left") \\
    .writeStream.format("delta").option("checkpointLocation", "/c").start("/t")
''')
    assert query.stateful == ()
    (static,) = ops(query, StaticJoin)
    assert static.how == "left_outer"
    assert "static_source((table = 'dim.customers'))" in text(static.on)
    assert [s.identity for s in query.sources] == [(("table", "orders"),)]


def test_a_broadcast_hint_keeps_the_static_join() -> None:
    query = snippet('''
from pyspark.sql import functions as F
orders = spark.readStream.format("kafka").option("subscribe", "orders").load()
customers = spark.read.table("dim.customers")
orders.join(F.broadcast(customers), "customer_id", "left") \\
    .writeStream.format("delta").option("checkpointLocation", "/c").start("/t")
''')
    (static,) = ops(query, StaticJoin)
    assert static.how == "left_outer"
    assert "static_source((table = 'dim.customers'))" in text(static.on)
    assert query.stateful == () and query.unresolved == ()


def test_a_join_with_a_dataframe_from_elsewhere_is_kept_and_noted() -> None:
    query = snippet('''
from lib import load_clicks
views = spark.readStream.format("kafka").option("subscribe", "views").load()
views.join(load_clicks(spark), "id").writeStream.format("delta") \\
    .option("checkpointLocation", "/c").start("/t")
''')
    (join,) = ops(query, StreamJoin)
    assert join.keys == ("id",)
    ((note, _),) = query.unresolved
    assert "load_clicks(spark)" in note


# -- Delta sources, grouping methods, deduplication, foreach sinks --------------------------


def test_delta_sources_by_table_and_by_path() -> None:
    name = "inventory_delta.py"
    jobfile = job(name)
    assert len(jobfile.queries) == 3
    levels = by_checkpoint(jobfile, "/mnt/chk/levels")
    (movements,) = levels.sources
    # readStream.table() reads the catalog's table whatever format() said: Spark ignores it.
    assert movements.format == "table"
    assert movements.identity == (("table", "inventory.silver.stock_movements"),)
    assert movements.rate_limits == (("maxFilesPerTrigger", "100"),)
    assert movements.options == (("ignoreDeletes", "true"),)
    capacity = by_checkpoint(jobfile, "/mnt/chk/capacity")
    (warehouses,) = capacity.sources
    assert (warehouses.format, warehouses.identity) == ("delta",
                                                        (("path", "/mnt/delta/warehouses"),))
    assert warehouses.options == (("readChangeFeed", "true"),)
    assert warehouses.loc.line == line_of(name, "warehouses = spark.readStream")
    # Session settings from the builder, True written as "true".
    assert {s.key: s.value for s in levels.config} == {
        "spark.sql.shuffle.partitions": "200",
        "spark.sql.streaming.statefulOperator.checkCorrectness.enabled": "true",
    }


def test_groupby_rollup_cube_with_count_sum_and_agg() -> None:
    name = "inventory_delta.py"
    jobfile = job(name)
    levels = by_checkpoint(jobfile, "/mnt/chk/levels")
    dedup, totals = levels.operators
    # `drop_duplicates` and `groupby` are pyspark's aliases: recorded under the one name.
    assert dedup == Deduplication("dropDuplicates", ("movement_id",), False, (), dedup.loc)
    assert totals == Aggregation("groupBy", (Column("sku"), Column("warehouse")),
                                 (AggCall("sum", (Column("quantity"),), None),), (), totals.loc)
    assert totals.loc.line == line_of(name, ".groupby(")
    (rollup,) = next(q for q in jobfile.queries if q.sink.format == "memory").operators
    assert rollup.method == "rollup"
    assert text(rollup.keys) == ("region", "sku")
    assert rollup.aggregates == (AggCall("count", (Star(),), "count"),)
    capacity = by_checkpoint(jobfile, "/mnt/chk/capacity")
    distinct, cube = capacity.operators
    assert distinct.keys is None and distinct.method == "dropDuplicates"  # every column
    assert (cube.method, text(cube.keys)) == ("cube", ("region", "kind"))
    assert cube.aggregates == (AggCall("max", (Column("capacity"),), None),)


def test_foreach_batch_and_foreach_sinks_name_their_code() -> None:
    jobfile = job("inventory_delta.py")
    levels = by_checkpoint(jobfile, "/mnt/chk/levels")
    assert levels.sink.format == "foreachBatch"
    assert levels.sink.output_mode == "update"
    assert levels.sink.foreach is not None
    assert levels.sink.foreach.method == "foreachBatch"
    assert levels.sink.foreach.function == "upsert_levels"
    assert levels.sink.target == "upsert_levels"
    capacity = by_checkpoint(jobfile, "/mnt/chk/capacity")
    assert capacity.sink.format == "foreach"
    assert capacity.sink.foreach is not None
    assert capacity.sink.foreach.function == "AlertWriter"
    assert capacity.sink.output_mode == "complete"


def test_foreach_batch_fingerprint_ignores_comments_and_formatting_only() -> None:
    template = '''
{comment}
def upsert(batch_df, batch_id):
    {inner}
    batch_df.write.mode({mode}).saveAsTable("t")

spark.readStream.format("rate").load().writeStream.foreachBatch(upsert) \\
    .option("checkpointLocation", "/c").start()
'''
    base = snippet(template.format(comment="", inner="pass", mode='"append"'))
    reformatted = snippet(template.format(comment="# upserts the batch", inner="pass  # noop",
                                          mode="'append'"))
    edited = snippet(template.format(comment="", inner="pass", mode='"overwrite"'))
    assert base.sink.foreach and reformatted.sink.foreach and edited.sink.foreach
    assert base.sink.foreach.fingerprint == reformatted.sink.foreach.fingerprint
    assert base.sink.foreach.fingerprint != edited.sink.foreach.fingerprint


# -- arbitrary state ------------------------------------------------------------------------


def test_apply_in_pandas_with_state() -> None:
    name = "fraud_state.py"
    query = by_checkpoint(job(name), "/mnt/chk/spend")
    (state,) = ops(query, ArbitraryState)
    assert state.api == "applyInPandasWithState"
    assert state.keys == (Column("card_id"),)
    assert state.function == "running_spend"
    assert state.output_schema == "card_id:string,total_spend:double,txn_count:bigint"
    assert state.state_schema == "total_spend:double,txn_count:bigint"
    assert state.output_mode == "update"  # "Update": Spark reads it case-insensitively
    assert state.timeout == "EventTimeTimeout"  # GroupStateTimeout.EventTimeTimeout
    assert state.loc.line == line_of(name, "spend = txns.groupBy(")
    assert {s.key for s in query.config} == {"spark.sql.streaming.stateStore.providerClass"}


def test_transform_with_state_reads_the_processor_state_variables() -> None:
    name = "fraud_state.py"
    query = by_checkpoint(job(name), "/mnt/chk/velocity")
    (state,) = ops(query, ArbitraryState)
    assert state.api == "transformWithStateInPandas"
    assert state.function == "VelocityProcessor"
    assert state.output_schema == "card_id:string,txns_seen:bigint"
    assert state.output_mode == "append"
    assert state.timeout == "EventTime"
    # Declared in init(): "count LONG" and RECENT_SCHEMA (a StructType constant), by value.
    assert state.state_schema == ("getValueState('count', count:bigint)",
                                  "getListState('recent', ts:timestamp)")
    assert state.loc.line == line_of(name, "velocity = txns.groupBy(")


def test_transform_with_state_sees_a_changed_schema_constant() -> None:
    template = '''
from pyspark.sql.streaming import StatefulProcessor
COUNT_SCHEMA = "{ddl}"

class Counter(StatefulProcessor):
    def init(self, handle):
        schema = COUNT_SCHEMA
        self.count = handle.getValueState("count", schema)

    def handleInputRows(self, key, rows, timerValues):
        yield from rows

spark.readStream.format("rate").load().groupBy("value").transformWithStateInPandas(
    Counter(), "value LONG, n LONG", "Update", "None",
).writeStream.format("delta").option("checkpointLocation", "/c").start()
'''
    old = ops(snippet(template.format(ddl="n LONG")), ArbitraryState)[0]
    same = ops(snippet(template.format(ddl="n bigint")), ArbitraryState)[0]
    new = ops(snippet(template.format(ddl="n LONG, first TIMESTAMP")), ArbitraryState)[0]
    assert old.state_schema == same.state_schema == ("getValueState('count', n:bigint)",)
    assert new.state_schema != old.state_schema


# -- projections and filters ----------------------------------------------------------------


def test_every_projection_kind_tracks_the_output_columns() -> None:
    name = "customer_profile.py"
    query = by_checkpoint(job(name), "/mnt/chk/profiles")
    (source,) = query.sources
    assert (source.format, source.identity) == ("table", (("table", "crm.bronze.profile_changes"),))
    where, select, lower, derived, renamed, dropped, star = query.operators
    assert text(where.condition) == "in(country, 'DE', 'FR')"  # as F.col(...).isin(...)
    assert where.loc.line == line_of(name, "profiles.where(")
    assert select.columns == ("customer_id", "email", "country", "updated_at", "raw_phone")
    assert text(lower.exprs) == ("lower(email) AS email",)
    assert lower.columns == select.columns  # email replaced in place
    assert derived.method == "withColumns"
    assert derived.columns == (*select.columns, "email_domain", "is_eu")
    assert text(renamed.exprs) == ("updated_at AS changed_at",)
    assert text(dropped.exprs) == ("drop(raw_phone)",)
    assert dropped.columns == ("customer_id", "email", "country", "changed_at", "email_domain",
                               "is_eu")
    # selectExpr("*", ...) keeps every input column, like select("*", ...).
    assert star.columns == (*dropped.columns, "country_code")
    assert query.output_columns == star.columns
    assert query.sink.partition_by == ("country_code",)
    assert query.sink.options == (("mergeSchema", "true"), ("path", "/mnt/silver/profiles"))
    assert query.sink.trigger == ("processingTime", "5 minutes")


def test_a_declared_schema_gives_the_source_columns() -> None:
    template = '''
from pyspark.sql import functions as F
receipts = spark.readStream.schema("id STRING, store STRING, total DOUBLE").json("/in")
{projection}.writeStream.format("delta").option("checkpointLocation", "/c").start("/t")
'''
    chain = snippet(template.format(projection='receipts.withColumn("store", F.upper("store"))'
                                    '.withColumn("cents", F.col("total") * 100)'))
    select = snippet(template.format(projection='receipts.select("id", F.upper("store")'
                                     '.alias("store"), "total", (F.col("total") * 100)'
                                     '.alias("cents"))'))
    assert chain.output_columns == select.output_columns == ("id", "store", "total", "cents")


def test_where_and_filter_are_one_operator() -> None:
    def condition(call: str) -> str:
        query = snippet(f'''
from pyspark.sql import functions as F
df = spark.readStream.format("rate").load()
df.{call}.writeStream.format("delta").option("checkpointLocation", "/c").start("/t")
''')
        (only_filter,) = ops(query, Filter)
        return only_filter.condition

    assert condition('filter(F.col("value") > 5)') == condition('where(F.col("value") > 5)')
    assert condition('filter("value > 5")') == condition('where("value   >   5")')


# -- column spellings and import styles ------------------------------------------------------


def test_every_column_spelling_and_import_style_gives_the_same_keys() -> None:
    name = "column_styles.py"
    jobfile = job(name)
    assert [q.sink.target for q in jobfile.queries] == [f"/gold/{x}" for x in "abcde"]
    aggregations = [ops(q, Aggregation)[0] for q in jobfile.queries]
    expected_keys = ("window(ts, INTERVAL 10 minutes)", "user_id")
    for letter, aggregation in zip("abcde", aggregations, strict=True):
        assert text(aggregation.keys) == expected_keys, letter
        assert aggregation.aggregates == (AggCall("count", (Column("user_id"),), "n"),), letter
        assert aggregation.loc.line == line_of(name, f"sink({letter}.groupBy(")


@pytest.mark.parametrize("spelling", [
    'F.col("amount")', 'col("amount")', '"amount"', "df.amount", 'df["amount"]',
    'F.column("amount")', 'F.expr("amount")',
])
def test_column_spellings_are_one_canonical_key(spelling: str) -> None:
    query = snippet(f'''
import pyspark.sql.functions as F
from pyspark.sql.functions import col
df = spark.readStream.format("rate").load()
df.groupBy({spelling}).agg(F.sum({spelling}).alias("total")) \\
    .writeStream.format("delta").option("checkpointLocation", "/c").start("/t")
''')
    (aggregation,) = ops(query, Aggregation)
    assert aggregation.keys == (Column("amount"),)
    assert aggregation.aggregates == (AggCall("sum", (Column("amount"),), "total"),)


def test_sql_aggregates_in_expr_read_like_the_function_calls() -> None:
    def aggregates(agg: str) -> tuple[AggCall, ...]:
        query = snippet(f'''
from pyspark.sql import functions as F
df = spark.readStream.format("rate").load()
df.groupBy("value").agg({agg}).writeStream.format("delta") \\
    .option("checkpointLocation", "/c").start("/t")
''')
        return ops(query, Aggregation)[0].aggregates

    assert aggregates('F.count("*").alias("n"), F.sum("x").alias("s")') == aggregates(
        'F.expr("count(*) AS n"), F.expr("SUM(x) s")')


def test_star_import_of_functions_and_types() -> None:
    query = snippet('''
from pyspark.sql.functions import *
from pyspark.sql.types import *
schema = StructType([StructField("ts", TimestampType())])
df = spark.readStream.schema(schema).json("/in")
df.groupBy(window(col("ts"), "1 hour")).agg(count(lit(1)).alias("n")) \\
    .writeStream.format("delta").option("checkpointLocation", "/c").start("/t")
''')
    assert query.sources[0].schema == "ts:timestamp"
    (aggregation,) = ops(query, Aggregation)
    assert text(aggregation.keys) == ("window(ts, INTERVAL 1 hour)",)
    # count(lit(1)) is Spark's count(*): the same aggregate, the same state.
    assert aggregation.aggregates == (AggCall("count", (Star(),), "n"),)


# -- triggers, sinks, start()/toTable() -----------------------------------------------------


@pytest.mark.parametrize(("call", "expected"), [
    ("", ("default", None)),
    ('.trigger(processingTime="10 seconds")', ("processingTime", "10 seconds")),
    (".trigger(once=True)", ("once", True)),
    (".trigger(availableNow=True)", ("availableNow", True)),
    ('.trigger(continuous="5 seconds")', ("continuous", "5 seconds")),
])
def test_trigger_kinds(call: str, expected: tuple) -> None:
    query = snippet(f'''
spark.readStream.format("rate").load().writeStream.format("kafka") \\
    .option("topic", "out"){call}.option("checkpointLocation", "/c").start()
''')
    assert query.sink.trigger == expected
    assert query.sink.target == "out"


def test_start_keywords_and_to_table() -> None:
    started = snippet('''
df = spark.readStream.format("rate").load()
df.writeStream.start(path="/t/rate", format="parquet", outputMode="Append",
                     queryName="rate", checkpointLocation="/c/rate")
''')
    sink = started.sink
    assert (sink.format, sink.target, sink.output_mode) == ("parquet", "/t/rate", "append")
    assert (sink.query_name, sink.checkpoint) == ("rate", "/c/rate")
    table = snippet('''
df = spark.readStream.format("rate").load()
df.writeStream.format("delta").option("checkpointLocation", "/c").toTable("gold.rate")
''')
    # toTable() uses format() only to create a missing table; on restart it exists.
    assert (table.sink.format, table.sink.target) == ("table", "gold.rate")


def test_format_before_table_reads_and_writes_changes_nothing() -> None:
    plain = snippet('''
spark.readStream.table("db.events").writeStream.option("checkpointLocation", "/c") \\
    .toTable("db.out")
''')
    with_format = snippet('''
spark.readStream.format("delta").table("db.events").writeStream.format("delta") \\
    .option("checkpointLocation", "/c").toTable("db.out")
''')
    assert without_locs(plain.sources) == without_locs(with_format.sources)
    assert plain.sink.format == with_format.sink.format == "table"
    assert plain.sink.target == with_format.sink.target == "db.out"


def test_a_later_option_replaces_an_earlier_one() -> None:
    query = snippet('''
DEFAULTS = {"startingOffsets": "earliest", "failOnDataLoss": "true"}
df = spark.readStream.format("kafka").options(**DEFAULTS) \\
    .option("startingOffsets", "latest").option("subscribe", "t").load()
df.writeStream.format("delta").option("checkpointLocation", "/old") \\
    .option("checkpointLocation", "/new").start("/t")
''')
    assert query.sources[0].options == (("failOnDataLoss", "true"), ("startingOffsets", "latest"))
    assert query.sink.checkpoint == "/new"


def test_os_path_join_and_enumerate_in_a_loop() -> None:
    jobfile = extract_text('''
import os
ROOT = "/chk"
for i, topic in enumerate(["a", "b"]):
    df = spark.readStream.format("kafka").option("subscribe", topic).load()
    df.writeStream.format("delta").option("checkpointLocation", os.path.join(ROOT, topic)) \\
        .start(f"/t/{i}")
''', "job.py")
    assert [(q.sources[0].identity, q.sink.checkpoint, q.sink.target)
            for q in jobfile.queries] == [
        ((("subscribe", "a"),), "/chk/a", "/t/0"),
        ((("subscribe", "b"),), "/chk/b", "/t/1"),
    ]


# -- what cannot be known ---------------------------------------------------------------------


def test_run_time_values_are_unknown_and_name_their_code() -> None:
    jobfile = job("notebook_params.py")
    assert len(jobfile.queries) == 3
    events = jobfile.queries[0]
    assert option(events.sources[0].identity, "subscribe") == Unknown(
        'os.environ["EVENTS_TOPIC"]', origin=Origin("environment", "EVENTS_TOPIC"))
    # A string built around run-time values keeps its known text (issue 11).
    assert events.sink.target == Template(("/mnt/", Unknown("sys.argv[1]"), "/events"))
    # However it is reached, a widget is named one way: dbutils.widgets.get('<key>').
    assert events.sink.checkpoint == Template(
        ("", Unknown("dbutils.widgets.get('checkpoint_root')"), "/events"))
    assert str(events.sink.checkpoint) == "{dbutils.widgets.get('checkpoint_root')}/events"


def test_a_dataframe_from_another_module_is_noted() -> None:
    name = "notebook_params.py"
    clicks = by_checkpoint(job(name), "/mnt/chk/clicks")
    assert clicks.sources == () and clicks.operators == ()
    ((note, loc),) = clicks.unresolved
    assert 'read_events(spark, "clicks")' in note
    assert loc.line == line_of(name, "clicks.writeStream")


def test_a_dataframe_chosen_by_a_run_time_if_is_noted() -> None:
    name = "notebook_params.py"
    audit = by_checkpoint(job(name), "/mnt/chk/audit")
    ((note, loc),) = audit.unresolved
    assert 'SOURCE == "replay"' in note
    assert loc.line == line_of(name, 'if SOURCE == "replay":')
    assert audit.sources[0].format in ("table", "kafka")
    assert audit.operators == (Filter(Binary("=", Column("kind"), Literal("login")),
                                      audit.operators[0].loc),)


def test_a_writer_or_grouping_chosen_at_run_time_is_noted() -> None:
    jobfile = extract_text('''
import os
PROD = os.environ.get("PROD")
df = spark.readStream.format("rate").load()
writer = df.writeStream.format("delta") if PROD else df.writeStream.format("console")
writer.option("checkpointLocation", "/c1").start("/t1")
if PROD:
    grouped = df.groupBy("a")
else:
    grouped = df.groupBy("b")
grouped.count().writeStream.format("delta").option("checkpointLocation", "/c2").start("/t2")
''', "job.py")
    first, second = jobfile.queries
    ((note, loc),) = first.unresolved
    assert "`PROD`" in note and loc.line == 5
    ((note, loc),) = second.unresolved
    assert "`PROD`" in note and loc.line == 7


ENVIRONMENT_TOPIC = Origin("environment", "TOPIC")


@pytest.mark.parametrize(("setup", "value", "origin"), [
    ('import os\nX = os.environ["TOPIC"]', 'os.environ["TOPIC"]', ENVIRONMENT_TOPIC),
    ("import sys\nX = sys.argv[1]", "sys.argv[1]", None),
    ('X = dbutils.widgets.get("topic")', "dbutils.widgets.get('topic')", None),
    ("from settings import TOPIC as X", "TOPIC", None),
    ('from settings import topic_for\nX = topic_for("orders")', 'topic_for("orders")', None),
    ('import os\nX = os.environ.get("TOPIC")', 'os.environ.get("TOPIC")', ENVIRONMENT_TOPIC),
])
def test_unresolvable_values_are_unknown_never_guessed(setup: str, value: str,
                                                       origin: Origin | None) -> None:
    query = snippet(f'''
{setup}
spark.readStream.format("kafka").option("subscribe", X).load() \\
    .writeStream.format("delta").option("checkpointLocation", "/c").start("/t")
''')
    ((key, found),) = query.sources[0].identity
    assert key == "subscribe" and found == Unknown(value, origin=origin)
    assert str(found) == value  # shown as the job writes it


def test_env_defaults_with_os_getenv_and_environ_get() -> None:
    query = snippet('''
import os
from os import getenv
A = os.getenv("A", "alpha")
B = os.environ.get("B", "beta")
C = getenv("C") or "gamma"
spark.readStream.format("kafka").option("subscribe", f"{A}.{B}.{C}").load() \\
    .writeStream.format("delta").option("checkpointLocation", "/c").start("/t")
''')
    assert query.sources[0].identity == (("subscribe", "alpha.beta.gamma"),)


# -- where queries start ----------------------------------------------------------------------


def test_queries_started_in_a_loop_by_an_uncalled_main() -> None:
    name = "topic_mirror.py"
    jobfile = job(name)
    mirrors = [q for q in jobfile.queries if isinstance(q.sink.query_name, str)]
    assert [(q.sources[0].identity, q.sink.query_name, q.sink.checkpoint, q.sink.target)
            for q in mirrors] == [
        ((("subscribe", f"raw.{t}"),),
         f"mirror_{t}", f"/mnt/checkpoints/mirror/{t}", f"/mnt/bronze/{t}")
        for t in ("orders", "payments", "refunds")
    ]
    for query in mirrors:
        assert query.sources[0].options == (
            ("kafka.bootstrap.servers", "mirror-kafka:9092"), ("startingOffsets", "earliest"))
        assert query.output_columns == ("key", "payload", "kafka_ts")
        assert query.sources[0].loc.line == line_of(name, "spark.readStream")
        assert query.sink.loc.line == line_of(name, ".writeStream.format")


def test_an_entry_point_with_unknown_arguments_still_yields_its_query() -> None:
    jobfile = job("topic_mirror.py")
    assert len(jobfile.queries) == 4
    backfill = by_checkpoint(jobfile, "/mnt/checkpoints/mirror/backfill")
    assert backfill.sink.trigger == ("availableNow", True)
    (since,) = ops(backfill, Filter)
    assert since.condition == Binary(">=", Column("timestamp"), Unresolved("since"))


def test_main_guard_runs_main_once() -> None:
    # kafka_revenue.py calls main() under `if __name__ == "__main__":`.
    assert len(job("kafka_revenue.py").queries) == 1
    assert len(job("telemetry_class.py").queries) == 1


def test_a_file_without_streaming_has_no_queries() -> None:
    assert extract_text("import os\nprint(os.getcwd())\n", "x.py").queries == ()
    batch = 'df = spark.read.parquet("/x")\ndf.write.save("/y")\n'
    assert extract_text(batch, "y.py").queries == ()


def test_sources_are_plain_records() -> None:
    source = job("kafka_revenue.py").queries[0].sources[0]
    assert isinstance(source, Source)
    with pytest.raises(AttributeError):  # records are immutable
        source.format = "delta"  # type: ignore[misc]


def test_projection_records_are_frozen_and_comparable() -> None:
    a = job("customer_profile.py").queries[0].operators
    b = job("customer_profile.py").queries[0].operators
    assert a == b
    assert all(isinstance(op, Projection | Filter) for op in a)


def test_change_feed_to_kafka_keeps_starting_version_apart_from_identity() -> None:
    query = by_checkpoint(job("customer_profile.py"), "/mnt/chk/email_changes")
    (source,) = query.sources
    assert source.identity == (("table", "crm.bronze.profile_changes"),)
    # Where to start reading is an option of its own, not what is read.
    assert source.options == (("readChangeFeed", "true"), ("startingVersion", "120"))
    where, select = query.operators
    assert text(where.condition) == "(_change_type = 'update_postimage')"
    assert select.columns == ("key", "value")
    assert (query.sink.format, query.sink.target) == ("kafka", "crm.email_changes")
    assert query.stateful == ()


@pytest.mark.parametrize(("old", "new"), [
    ('groupBy("a", "b").count()', 'groupby("a", "b").count()'),
    ('dropDuplicates(["id"])', 'drop_duplicates(["id"])'),
])
def test_pysparks_aliases_are_the_same_operator(old: str, new: str) -> None:
    """`groupby` and `drop_duplicates` are pyspark's aliases of `groupBy` and
    `dropDuplicates`: the same plan, so no finding (AG07 once said "the grouping changed from
    'groupBy' to 'groupby'", incompatible)."""
    from streamlint.diff import diff_jobs

    job = ('df = spark.readStream.format("rate").load()\n'
           'df.withWatermark("timestamp", "1 minute").{op}.writeStream.outputMode("update")'
           '.option("checkpointLocation", "/chk/q").format("console").start()\n')
    report = diff_jobs(extract_text(job.format(op=old), "old.py"),
                       extract_text(job.format(op=new), "new.py"), "4.0")
    assert report.findings == () and report.verdict == "compatible"
