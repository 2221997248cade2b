"""Write extra real checkpoints with the installed pyspark (fixtures the shared set lacks).

Usage: python tests/make_checkpoint_fixtures.py [--out tests/fixtures/checkpoints-generated]

Each query runs for real (local[2], two availableNow runs, one new input file per run) in a
scratch root; the checkpoint, the job (query.py, in the shared fixtures' form), what Spark
reported (query.json: batch ids, progress endOffsets, the raw offsets lines) and what Spark's
state-metadata / statestore readers return (state-readers.json) are copied into --out.
Nothing in query.json comes from streamlint.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import textwrap
from pathlib import Path

EVENT_SCHEMA = "id LONG, key STRING, value LONG, ts TIMESTAMP"
LEFT_SCHEMA = "lid LONG, lkey STRING, lvalue LONG, lts TIMESTAMP"
RIGHT_SCHEMA = "rid LONG, rkey STRING, rvalue LONG, rts TIMESTAMP"
SCHEMAS = {"EVENT_SCHEMA": EVENT_SCHEMA, "LEFT_SCHEMA": LEFT_SCHEMA, "RIGHT_SCHEMA": RIGHT_SCHEMA}
SESSION_CONF = {"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false",
                "spark.sql.session.timeZone": "UTC", "spark.sql.adaptive.enabled": "false"}
PROVIDER = "spark.sql.streaming.stateStore.providerClass"
ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
CHANGELOG = "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"
CKPT_FORMAT = "spark.sql.streaming.stateStore.checkpointFormatVersion"

AGG = """
    from pyspark.sql import functions as F
    df = spark.readStream.schema(EVENT_SCHEMA).json(ctx.path("input"))
    agg = df.groupBy("key").agg(F.count("*").alias("cnt"), F.sum("value").alias("total"))
    return agg.writeStream.format("noop").outputMode("update")
"""

# name -> the body of `def q_<name>(spark, ctx):` (it returns the DataStreamWriter), the
# input directories it reads, the session confs it runs (and is read back) with, and the
# oldest Spark version that has what it uses.
QUERIES: dict[str, dict] = {
    "dedup_then_agg": {"body": """
        from pyspark.sql import functions as F
        df = spark.readStream.schema(EVENT_SCHEMA).json(ctx.path("input"))
        agg = (df.dropDuplicates(["id"])
               .groupBy("key").agg(F.count("*").alias("cnt"), F.sum("value").alias("total")))
        return agg.writeStream.format("noop").outputMode("update")
    """},
    "agg_hdfs": {"body": AGG},
    "agg_rocksdb_changelog": {"body": AGG, "confs": {PROVIDER: ROCKSDB, CHANGELOG: "true"}},
    "agg_rocksdb_ckpt_v2": {"body": AGG, "min": (4, 0),
                            "confs": {PROVIDER: ROCKSDB, CHANGELOG: "true", CKPT_FORMAT: "2"}},
    "union_two_files": {"inputs": ("input_a", "input_b"), "body": """
        a = spark.readStream.schema(EVENT_SCHEMA).json(ctx.path("input_a"))
        b = spark.readStream.schema(EVENT_SCHEMA).json(ctx.path("input_b"))
        counts = a.unionByName(b).groupBy("key").count()
        return counts.writeStream.format("noop").outputMode("update")
    """},
    "join_inner": {"inputs": ("input_left", "input_right"), "body": """
        from pyspark.sql import functions as F
        left = (spark.readStream.schema(LEFT_SCHEMA).json(ctx.path("input_left"))
                .withWatermark("lts", "10 seconds"))
        right = (spark.readStream.schema(RIGHT_SCHEMA).json(ctx.path("input_right"))
                 .withWatermark("rts", "10 seconds"))
        joined = left.join(right, F.expr(
            "lkey = rkey AND rts >= lts AND rts <= lts + interval 5 seconds"), "inner")
        return joined.writeStream.format("noop").outputMode("append")
    """},
}


def rows(run: int, directory: str) -> list[dict]:
    events = [{"id": run * 10 + i % 4, "key": "abc"[i % 3], "value": i,
               "ts": f"2024-01-01T00:00:{run * 10 + i:02d}.000Z"} for i in range(6)]
    if directory == "input_left":
        return [{"lid": e["id"], "lkey": e["key"], "lvalue": e["value"], "lts": e["ts"]}
                for e in events]
    if directory == "input_right":
        return [{"rid": e["id"], "rkey": e["key"], "rvalue": e["value"], "rts": e["ts"]}
                for e in events]
    return events


class Context:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, name: str) -> str:
        return str(self.root / name)


def run_query(spark, name: str, spec: dict, root: Path, runs: int = 2) -> dict:  # noqa: ANN001
    body = spec["body"]
    namespace: dict = dict(SCHEMAS)
    exec(f"def q_{name}(spark, ctx):\n" + textwrap.indent(textwrap.dedent(body), "    "),
         namespace)
    ctx = Context(root)
    progress = []
    query_id = None
    inputs = spec.get("inputs", ("input",))
    for directory in inputs:
        (root / directory).mkdir(parents=True)
    for run in range(runs):
        for directory in inputs:
            (root / directory / f"run-{run}.json").write_text(
                "\n".join(json.dumps(r) for r in rows(run, directory)))
        writer = namespace[f"q_{name}"](spark, ctx)
        query = (writer.option("checkpointLocation", str(root / "checkpoint")).queryName(name)
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        query_id = query.id
        progress += [p if isinstance(p, dict) else json.loads(p.json)  # 3.5: dicts
                     for p in query.recentProgress]
    checkpoint = root / "checkpoint"
    offsets = sorted(int(n) for n in (p.name for p in (checkpoint / "offsets").iterdir())
                     if n.isdigit())
    commits = sorted(int(n) for n in (p.name for p in (checkpoint / "commits").iterdir())
                     if n.isdigit())
    last = commits[-1]
    reported = [p for p in progress if p["batchId"] == last and p.get("sources")][-1]
    return {
        "query": name,
        "spark_version": spark.version,
        "session_conf": SESSION_CONF,
        "query_conf": spec.get("confs", {}),
        "paths": {"root": str(root), "checkpoint": str(checkpoint),
                  **{d: str(root / d) for d in inputs}},
        "query_id": query_id,
        "progress": progress,
        "expected": {
            "offsets_batches": offsets,
            "commits_batches": commits,
            "last_committed_batch": last,
            "uncommitted_batches": [b for b in offsets if b > last],
            "query_id": query_id,
            "last_committed_offsets_file_lines":
                (checkpoint / "offsets" / str(last)).read_text().split("\n"),
            "last_committed_progress_sources": [
                {"description": s["description"], "startOffset": s["startOffset"],
                 "endOffset": s["endOffset"]} for s in reported["sources"]],
        },
    }


def state_readers(spark, checkpoint: Path) -> dict:  # noqa: ANN001
    spark.streams.active  # 4.1 needs the state store coordinator (FORMAT.md §12)  # noqa: B018
    try:
        metadata = spark.read.format("state-metadata").load(str(checkpoint))
    except Exception as err:  # noqa: BLE001 - Spark 3.5 has no state data sources
        return {"state-metadata": {"error": str(err).splitlines()[0][:300]}, "statestore": []}
    rows_ = [r.asDict() for r in metadata.collect()]
    stores = []
    for row in rows_:
        if row["operatorName"] == "symmetricHashJoin":
            if not row["stateStoreName"].endswith("keyToNumValues"):
                continue
            option = {"joinSide": row["stateStoreName"].split("-")[0]}
        else:
            option = {"storeName": row["stateStoreName"]}
        reader = spark.read.format("statestore").option("operatorId", row["operatorId"])
        for key, value in option.items():
            reader = reader.option(key, value)
        try:
            read = reader.load(str(checkpoint))
            stores.append({"operatorId": row["operatorId"], "option": option,
                           "schema": read.schema.simpleString(), "count": read.count()})
        except Exception as err:  # noqa: BLE001 - e.g. 4.0's reader on checkpoint format v2
            stores.append({"operatorId": row["operatorId"], "option": option,
                           "schema": None, "error": str(err).splitlines()[0][:300]})
    return {"state-metadata": {"schema": metadata.schema.simpleString(), "rows": rows_},
            "statestore": stores}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(Path(__file__).parent / "fixtures"
                                             / "checkpoints-generated"))
    args = parser.parse_args()
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master("local[2]")
    for key, value in SESSION_CONF.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    scratch = Path(tempfile.mkdtemp(prefix="streamlint-fixtures-"))
    out = Path(args.out) / f"spark-{spark.version}"
    readers: dict = {"spark_version": spark.version}
    try:
        version = tuple(int(p) for p in spark.version.split(".")[:2])
        for name, spec in QUERIES.items():
            if version < spec.get("min", (3, 3)):
                continue
            root = scratch / f"spark-{spark.version}" / name
            confs = spec.get("confs", {})
            for key, value in confs.items():
                spark.conf.set(key, value)
            try:
                record = run_query(spark, name, spec, root)
                readers[name] = state_readers(spark, root / "checkpoint")
            finally:
                for key in confs:
                    spark.conf.unset(key)
            body = spec["body"]
            target = out / name
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            shutil.copytree(root / "checkpoint", target / "checkpoint")
            (target / "query.json").write_text(json.dumps(record, indent=1) + "\n")
            (target / "query.py").write_text(
                f"# Job code that produced ./checkpoint (tests/make_checkpoint_fixtures.py), "
                f"pyspark {spark.version}; session confs {json.dumps(confs)}\n"
                + "".join(f"{k} = '{v}'\n" for k, v in SCHEMAS.items()) + "\n"
                f"def q_{name}(spark, ctx):\n"
                + textwrap.indent(textwrap.dedent(body).strip() + "\n", "    "))
        (out / "state-readers.json").write_text(json.dumps(readers, indent=1) + "\n")
    finally:
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"wrote {', '.join(k for k in readers if k != 'spark_version')} to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
