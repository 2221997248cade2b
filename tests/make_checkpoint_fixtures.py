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
SESSION_CONF = {"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false",
                "spark.sql.session.timeZone": "UTC", "spark.sql.adaptive.enabled": "false"}

# name -> the body of `def q_<name>(spark, ctx):` (it returns the DataStreamWriter).
QUERIES = {
    "dedup_then_agg": '''
        from pyspark.sql import functions as F
        df = spark.readStream.schema(EVENT_SCHEMA).json(ctx.path("input"))
        agg = (df.dropDuplicates(["id"])
               .groupBy("key").agg(F.count("*").alias("cnt"), F.sum("value").alias("total")))
        return agg.writeStream.format("noop").outputMode("update")
    ''',
}


def rows(run: int) -> list[dict]:
    return [{"id": run * 10 + i % 4, "key": "abc"[i % 3], "value": i,
             "ts": f"2024-01-01T00:00:{run * 10 + i:02d}.000Z"} for i in range(6)]


class Context:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, name: str) -> str:
        return str(self.root / name)


def run_query(spark, name: str, body: str, root: Path, runs: int = 2) -> dict:  # noqa: ANN001
    namespace: dict = {"EVENT_SCHEMA": EVENT_SCHEMA}
    exec(f"def q_{name}(spark, ctx):\n" + textwrap.indent(textwrap.dedent(body), "    "),
         namespace)
    ctx = Context(root)
    progress = []
    query_id = None
    (root / "input").mkdir(parents=True)
    for run in range(runs):
        (root / "input" / f"run-{run}.json").write_text(
            "\n".join(json.dumps(r) for r in rows(run)))
        writer = namespace[f"q_{name}"](spark, ctx)
        query = (writer.option("checkpointLocation", str(root / "checkpoint")).queryName(name)
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        query_id = query.id
        progress += [json.loads(p.json) for p in query.recentProgress]
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
        "paths": {"root": str(root), "checkpoint": str(checkpoint),
                  "input": str(root / "input")},
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
    metadata = spark.read.format("state-metadata").load(str(checkpoint))
    rows_ = [r.asDict() for r in metadata.collect()]
    stores = []
    for row in rows_:
        read = (spark.read.format("statestore").option("operatorId", row["operatorId"])
                .option("storeName", row["stateStoreName"]).load(str(checkpoint)))
        stores.append({"operatorId": row["operatorId"],
                       "option": {"storeName": row["stateStoreName"]},
                       "schema": read.schema.simpleString(), "count": read.count()})
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
        for name, body in QUERIES.items():
            root = scratch / f"spark-{spark.version}" / name
            record = run_query(spark, name, body, root)
            readers[name] = state_readers(spark, root / "checkpoint")
            target = out / name
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            shutil.copytree(root / "checkpoint", target / "checkpoint")
            (target / "query.json").write_text(json.dumps(record, indent=1) + "\n")
            (target / "query.py").write_text(
                f"# Job code that produced ./checkpoint (tests/make_checkpoint_fixtures.py), "
                f"pyspark {spark.version}\nEVENT_SCHEMA = '{EVENT_SCHEMA}'\n\n"
                f"def q_{name}(spark, ctx):\n"
                + textwrap.indent(textwrap.dedent(body).strip() + "\n", "    "))
        (out / "state-readers.json").write_text(json.dumps(readers, indent=1) + "\n")
    finally:
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"wrote {', '.join(QUERIES)} to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
