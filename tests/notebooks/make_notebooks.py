"""Writes the `.ipynb` test notebooks under medallion/ (ours; see README.md).

Run from anywhere: `python tests/notebooks/make_notebooks.py`. The output is committed; the
test expectations (cell numbers, query counts) are written against the cells listed here, so
a change to a list below means re-reading tests/test_notebooks.py. Ids are derived from the
file name and cell number, so running this twice writes the same bytes.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import nbformat
from nbformat.v4 import (new_code_cell, new_markdown_cell, new_notebook, new_output)

HERE = Path(__file__).resolve().parent / "medallion"
NS = uuid.UUID("6f1c1d52-4a55-4c0e-9a57-0d3f2c1b7e10")


def _write(nb: nbformat.NotebookNode, path: Path) -> None:
    nbformat.validate(nb)
    with path.open("w", encoding="utf-8", newline="\n") as out:
        nbformat.write(nb, out, indent=1)  # as Jupyter saves: one space, a final newline


# -- a Jupyter notebook: Kafka bronze -> deduplicated silver -> hourly gold, local Spark ------

JUPYTER_CELLS = [
    # 1
    ("md", "# Sensor readings: bronze, silver and gold on a laptop\n"
           "\n"
           "Reads the `sensor-readings` Kafka topic into Delta tables in three streaming hops.\n"
           "Start the compose file in `../docker` first (Kafka on `localhost:9092`)."),
    # 2
    ("code", "import os\n"
             "\n"
             "from delta import configure_spark_with_delta_pip\n"
             "from pyspark.sql import SparkSession\n"
             "from pyspark.sql import functions as F\n"
             "from pyspark.sql.types import DoubleType, StringType, StructField, StructType, TimestampType\n"
             "\n"
             "builder = (SparkSession.builder\n"
             "           .appName(\"sensor-medallion\")\n"
             "           .master(\"local[4]\")\n"
             "           .config(\"spark.sql.extensions\", \"io.delta.sql.DeltaSparkSessionExtension\")\n"
             "           .config(\"spark.sql.catalog.spark_catalog\", \"org.apache.spark.sql.delta.catalog.DeltaCatalog\")\n"
             "           .config(\"spark.sql.shuffle.partitions\", 8))\n"
             "spark = configure_spark_with_delta_pip(\n"
             "    builder, extra_packages=[\"org.apache.spark:spark-sql-kafka-0-10_2.12:3.5.1\"]).getOrCreate()\n"
             "print(spark.version)"),
    # 3
    ("md", "## Settings\n"
           "\n"
           "Everything lives under `LAKE`; each query keeps its checkpoint in its own folder under\n"
           "`CHECKPOINTS`. Do not rename those folders while the queries have state you want to keep."),
    # 4
    ("code", "KAFKA_SERVERS = os.environ.get(\"KAFKA_SERVERS\", \"localhost:9092\")\n"
             "TOPIC = \"sensor-readings\"\n"
             "LAKE = \"/data/lake\"\n"
             "CHECKPOINTS = f\"{LAKE}/_checkpoints\"\n"
             "\n"
             "spark.sql(\"CREATE DATABASE IF NOT EXISTS sensors\")"),
    # 5
    ("md", "## Bronze\n"
           "\n"
           "The raw Kafka records, with the JSON payload parsed and the broker timestamp kept."),
    # 6
    ("code", "reading_schema = StructType([\n"
             "    StructField(\"device_id\", StringType()),\n"
             "    StructField(\"site_id\", StringType()),\n"
             "    StructField(\"event_time\", TimestampType()),\n"
             "    StructField(\"temperature\", DoubleType()),\n"
             "    StructField(\"humidity\", DoubleType()),\n"
             "])\n"
             "\n"
             "bronze_df = (spark.readStream\n"
             "             .format(\"kafka\")\n"
             "             .option(\"kafka.bootstrap.servers\", KAFKA_SERVERS)\n"
             "             .option(\"subscribe\", TOPIC)\n"
             "             .option(\"startingOffsets\", \"earliest\")\n"
             "             .option(\"maxOffsetsPerTrigger\", 10000)\n"
             "             .load()\n"
             "             .select(F.col(\"key\").cast(\"string\").alias(\"device_key\"),\n"
             "                     F.from_json(F.col(\"value\").cast(\"string\"), reading_schema).alias(\"r\"),\n"
             "                     F.col(\"timestamp\").alias(\"kafka_ts\"))\n"
             "             .select(\"device_key\", \"r.*\", \"kafka_ts\"))\n"
             "\n"
             "bronze_query = (bronze_df.writeStream\n"
             "                .format(\"delta\")\n"
             "                .queryName(\"bronze_readings\")\n"
             "                .option(\"checkpointLocation\", f\"{CHECKPOINTS}/bronze\")\n"
             "                .outputMode(\"append\")\n"
             "                .trigger(processingTime=\"1 minute\")\n"
             "                .toTable(\"sensors.readings_bronze\"))"),
    # 7
    ("md", "## Silver\n"
           "\n"
           "Sensors resend a reading when the gateway loses its connection: drop the repeats\n"
           "(same device, same event time) within a 30 minute watermark, and the empty readings."),
    # 8
    ("code", "silver_df = (spark.readStream.table(\"sensors.readings_bronze\")\n"
             "             .where(F.col(\"temperature\").isNotNull())\n"
             "             .withWatermark(\"event_time\", \"30 minutes\")\n"
             "             .dropDuplicates([\"device_id\", \"event_time\"])\n"
             "             .withColumn(\"temperature_f\", F.col(\"temperature\") * 9 / 5 + 32))\n"
             "\n"
             "silver_query = (silver_df.writeStream\n"
             "                .format(\"delta\")\n"
             "                .queryName(\"silver_readings\")\n"
             "                .option(\"checkpointLocation\", f\"{CHECKPOINTS}/silver\")\n"
             "                .outputMode(\"append\")\n"
             "                .toTable(\"sensors.readings_silver\"))"),
    # 9
    ("md", "## Gold\n"
           "\n"
           "Hourly figures per device. A window is written once the watermark has passed its end."),
    # 10
    ("code", "gold_df = spark.readStream.table('sensors.readings_silver') \\\n"
             "    .withWatermark('event_time', '30 minutes') \\\n"
             "    .groupBy(F.window('event_time', '1 hour'), 'device_id') \\\n"
             "    .agg(F.avg('temperature').alias('avg_temperature'),\n"
             "         F.max('humidity').alias('max_humidity'),\n"
             "         F.count('*').alias('readings')) \\\n"
             "    .select(F.col('window.start').alias('hour_start'), 'device_id',\n"
             "            'avg_temperature', 'max_humidity', 'readings')\n"
             "\n"
             "gold_query = gold_df.writeStream \\\n"
             "    .format('delta') \\\n"
             "    .queryName('gold_device_hourly') \\\n"
             "    .option('checkpointLocation', f'{CHECKPOINTS}/gold') \\\n"
             "    .outputMode('append') \\\n"
             "    .toTable('sensors.device_hourly_gold')"),
    # 11
    ("md", "## Look at the result\n"
           "\n"
           "Give it a few minutes after starting the producer, then:"),
    # 12
    ("code", "spark.sql(\"\"\"\n"
             "    SELECT hour_start, device_id, round(avg_temperature, 1) AS avg_t, readings\n"
             "    FROM sensors.device_hourly_gold\n"
             "    ORDER BY hour_start DESC, device_id\n"
             "\"\"\").show(5)"),
    # 13
    ("code", "for q in spark.streams.active:\n"
             "    print(f\"stopping {q.name}\")\n"
             "    q.stop()"),
]

JUPYTER_OUTPUTS = {
    2: [new_output("stream", name="stdout", text="3.5.1\n")],
    12: [new_output("stream", name="stdout", text=(
        "+-------------------+---------+-----+--------+\n"
        "|         hour_start|device_id|avg_t|readings|\n"
        "+-------------------+---------+-----+--------+\n"
        "|2024-03-02 14:00:00|  th-0007| 21.4|     118|\n"
        "|2024-03-02 14:00:00|  th-0012| 19.8|     120|\n"
        "|2024-03-02 13:00:00|  th-0003| 22.9|     117|\n"
        "|2024-03-02 13:00:00|  th-0007| 21.1|     120|\n"
        "|2024-03-02 13:00:00|  th-0012| 20.2|     119|\n"
        "+-------------------+---------+-----+--------+\n"
        "only showing top 5 rows\n"))],
    13: [new_output("stream", name="stdout", text=(
        "stopping bronze_readings\nstopping silver_readings\nstopping gold_device_hourly\n"))],
}


def jupyter_notebook() -> nbformat.NotebookNode:
    nb = new_notebook()
    count = 0
    for n, (kind, source) in enumerate(JUPYTER_CELLS, 1):
        if kind == "md":
            cell = new_markdown_cell(source)
        else:
            count += 1
            cell = new_code_cell(source, execution_count=count,
                                 outputs=JUPYTER_OUTPUTS.get(n, []))
        cell.id = uuid.uuid5(NS, f"sensor_medallion/{n}").hex[:8]
        nb.cells.append(cell)
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python",
                       "name": "python3"},
        "language_info": {"codemirror_mode": {"name": "ipython", "version": 3},
                          "file_extension": ".py", "mimetype": "text/x-python",
                          "name": "python", "nbconvert_exporter": "python",
                          "pygments_lexer": "ipython3", "version": "3.11.8"},
    }
    return nb


# -- Databricks notebooks saved as .ipynb (File > Export > IPython Notebook) ------------------

MULTI_HOP_CELLS = [
    # 1
    ("md", "# Multi-hop sensor pipeline\n"
           "\n"
           "Bronze: raw JSON files from the landing folder (Auto Loader).  \n"
           "Silver: readings joined with the device registry.  \n"
           "Gold: hourly averages per device and site."),
    # 2
    ("code", "%run ./Includes/setup"),
    # 3
    ("md", "## Bronze"),
    # 4
    ("code", "from pyspark.sql import functions as F\n"
             "\n"
             "bronze_query = (spark.readStream\n"
             "    .format(\"cloudFiles\")\n"
             "    .option(\"cloudFiles.format\", \"json\")\n"
             "    .option(\"cloudFiles.schemaHints\", \"event_time TIMESTAMP, temperature DOUBLE\")\n"
             "    .option(\"cloudFiles.schemaLocation\", f\"{checkpoint_root}/bronze_schema\")\n"
             "    .load(landing_dir)\n"
             "    .withColumn(\"ingested_at\", F.current_timestamp())\n"
             "    .withColumn(\"source_file\", F.col(\"_metadata.file_path\"))\n"
             "    .writeStream\n"
             "    .option(\"checkpointLocation\", f\"{checkpoint_root}/bronze\")\n"
             "    .outputMode(\"append\")\n"
             "    .table(\"bronze\"))"),
    # 5
    ("code", "feed.next_month()"),
    # 6
    ("md", "## Silver\n"
           "\n"
           "Expose bronze as a streaming temp view so the cleaning can be written in SQL."),
    # 7
    ("code", "spark.readStream.table(\"bronze\").createOrReplaceTempView(\"bronze_tmp\")"),
    # 8
    ("code", "%sql\n"
             "CREATE OR REPLACE TEMPORARY VIEW readings_parsed_tmp AS\n"
             "SELECT device_id, site_id, CAST(event_time AS TIMESTAMP) AS event_time,\n"
             "       temperature, humidity, ingested_at\n"
             "FROM bronze_tmp\n"
             "WHERE temperature IS NOT NULL"),
    # 9
    ("code", "(spark.read\n"
             "    .format(\"json\")\n"
             "    .load(f\"{lab.folders.landing}/devices\")\n"
             "    .createOrReplaceTempView(\"devices\"))"),
    # 10
    ("code", "%sql\n"
             "SELECT * FROM devices LIMIT 10"),
    # 11
    ("md", "Join each reading with the static registry (a stream-static join keeps no state)."),
    # 12
    ("code", "%sql\n"
             "CREATE OR REPLACE TEMPORARY VIEW readings_enriched_tmp AS\n"
             "SELECT r.*, d.model, d.installed_on\n"
             "FROM readings_parsed_tmp r\n"
             "INNER JOIN devices d ON r.device_id = d.device_id"),
    # 13
    ("code", "silver_query = (spark.table(\"readings_enriched_tmp\")\n"
             "    .writeStream\n"
             "    .option(\"checkpointLocation\", f\"{checkpoint_root}/readings_enriched\")\n"
             "    .outputMode(\"append\")\n"
             "    .table(\"readings_enriched\"))"),
    # 14
    ("code", "%sql\n"
             "SELECT COUNT(*) FROM readings_enriched"),
    # 15
    ("md", "## Gold"),
    # 16
    ("code", "(spark.readStream\n"
             "    .table(\"readings_enriched\")\n"
             "    .createOrReplaceTempView(\"readings_enriched_stream\"))"),
    # 17
    ("code", "%sql\n"
             "CREATE OR REPLACE TEMP VIEW hourly_device_avg_tmp AS (\n"
             "  SELECT device_id, site_id, date_trunc('HOUR', event_time) AS hour,\n"
             "         avg(temperature) AS avg_temperature, max(humidity) AS max_humidity\n"
             "  FROM readings_enriched_stream\n"
             "  GROUP BY device_id, site_id, date_trunc('HOUR', event_time)\n"
             ")"),
    # 18
    ("code", "gold_query = (spark.table(\"hourly_device_avg_tmp\")\n"
             "    .writeStream\n"
             "    .option(\"checkpointLocation\", f\"{checkpoint_root}/hourly_device_avg\")\n"
             "    .outputMode(\"complete\")\n"
             "    .table(\"hourly_device_avg\"))"),
    # 19
    ("code", "%sql\n"
             "SELECT * FROM hourly_device_avg ORDER BY hour DESC"),
    # 20
    ("md", "Land the next month of files and watch the three tables move."),
    # 21
    ("code", "feed.next_month()"),
    # 22
    ("code", "%sql\n"
             "SELECT site_id, max(avg_temperature) AS hottest_hour\n"
             "FROM hourly_device_avg\n"
             "WHERE hour >= '2023-02-01'\n"
             "GROUP BY site_id"),
    # 23
    ("md", "## Clean up"),
    # 24
    ("code", "for s in spark.streams.active:\n"
             "    print(f\"Stopping {s.id}\")\n"
             "    s.stop()"),
]

INCREMENTAL_CELLS = [
    # 1
    ("md", "# Incremental ingestion with Auto Loader\n"
           "\n"
           "The setup notebook loads the landing folder into `readings_bronze` once (see\n"
           "`autoload_to_table` in Includes/ingest-setup)."),
    # 2
    ("code", "%run ./Includes/ingest-setup"),
    # 3
    ("md", "## Query the bronze table as a stream"),
    # 4
    ("code", "readings_df = spark.readStream.table(\"readings_bronze\")\n"
             "readings_df.createOrReplaceTempView(\"readings_stream_vw\")"),
    # 5
    ("code", "%sql\n"
             "SELECT * FROM readings_stream_vw"),
    # 6
    ("code", "%sql\n"
             "SELECT device_id, count(*) AS readings\n"
             "FROM readings_stream_vw\n"
             "GROUP BY device_id"),
    # 7
    ("md", "## Persist the counts\n"
           "\n"
           "An aggregation over a stream needs `complete` (or `update`) output mode."),
    # 8
    ("code", "%sql\n"
             "CREATE OR REPLACE TEMP VIEW device_counts_tmp_vw AS (\n"
             "  SELECT device_id, count(*) AS readings, max(temperature) AS max_temperature\n"
             "  FROM readings_stream_vw\n"
             "  GROUP BY device_id\n"
             ")"),
    # 9
    ("code", "(spark.table(\"device_counts_tmp_vw\")\n"
             "    .writeStream\n"
             "    .option(\"checkpointLocation\", f\"{checkpoint_root}/device_counts\")\n"
             "    .outputMode(\"complete\")\n"
             "    .trigger(availableNow=True)\n"
             "    .table(\"device_counts\")\n"
             "    .awaitTermination())"),
    # 10
    ("code", "%sql\n"
             "SELECT * FROM device_counts ORDER BY readings DESC"),
    # 11
    ("md", "## A cleaned copy\n"
           "\n"
           "Out-of-range temperatures are sensor faults; repeated readings are dropped."),
    # 12
    ("code", "from pyspark.sql import functions as F\n"
             "\n"
             "clean_query = (spark.readStream.table(\"readings_bronze\")\n"
             "    .where(F.col(\"temperature\").between(-40, 85))\n"
             "    .dropDuplicates([\"device_id\", \"event_time\"])\n"
             "    .writeStream\n"
             "    .option(\"checkpointLocation\", f\"{checkpoint_root}/readings_clean\")\n"
             "    .trigger(availableNow=True)\n"
             "    .table(\"readings_clean\"))\n"
             "clean_query.awaitTermination()"),
    # 13
    ("md", "## Clean up"),
    # 14
    ("code", "lab.reset()"),
]


def databricks_notebook(name: str, cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.nbformat_minor = 0  # Databricks exports 4.0: no cell ids
    for n, (kind, source) in enumerate(cells, 1):
        meta = {"application/vnd.databricks.v1+cell": {
            "cellMetadata": {"byteLimit": 2048000, "rowLimit": 10000} if kind == "code" else {},
            "inputWidgets": {},
            "nuid": str(uuid.uuid5(NS, f"{name}/{n}")),
            "showTitle": False,
            "title": "",
        }}
        if kind == "md":
            cell = new_markdown_cell(source, metadata=meta)
        else:
            cell = new_code_cell(source, metadata=meta, execution_count=0, outputs=[])
        del cell["id"]
        nb.cells.append(cell)
    nb.metadata = {"application/vnd.databricks.v1+notebook": {
        "dashboards": [],
        "environmentMetadata": None,
        "language": "python",
        "notebookMetadata": {"pythonIndentUnit": 4},
        "notebookName": name,
        "widgets": {},
    }}
    return nb


def main() -> None:
    _write(jupyter_notebook(), HERE / "sensor_medallion.ipynb")
    db = HERE / "databricks"
    _write(databricks_notebook("01_incremental_ingest", INCREMENTAL_CELLS),
           db / "01_incremental_ingest.ipynb")
    _write(databricks_notebook("02_multi_hop", MULTI_HOP_CELLS), db / "02_multi_hop.ipynb")


if __name__ == "__main__":
    main()
