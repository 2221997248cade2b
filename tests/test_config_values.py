"""Values a job gets from outside its code (issue 27): configuration files it reads, and
defaults a deployment may override (environment variables, widgets, arguments).

Each job here is written the way teams write them; the files sit beside it in a small
repository, read through the extractor's `Project` like `diff` and `check` read them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import Repo

from streamlint.cli import main
from streamlint.diff import diff_jobs
from streamlint.diff.__init__ import Report
from streamlint.extract import extract_text
from streamlint.extract.project import MappingFiles, Project

JOB = "jobs/orders.py"


def diff(old: dict[str, str], new: dict[str, str], job: str = JOB) -> Report:
    before = extract_text(old[job], job, Project(MappingFiles(old), job))
    after = extract_text(new[job], job, Project(MappingFiles(new), job))
    return diff_jobs(before, after)


def edited(files: dict[str, str]) -> dict[str, str]:
    """The same repository with the job edited elsewhere (a pull request that touches the
    job): a value from a file streamlint cannot read may differ. With the job's code the same
    in both versions, that is no part of the change: a note (QY18)."""
    return {**files, JOB: files[JOB] + "\n# edited\n"}


def codes(report: Report) -> list[str]:
    return sorted(f.code for f in report.findings)


def messages(report: Report) -> str:
    return "\n".join(f.message for f in report.findings)


# -- configuration files are values ----------------------------------------------------------

YAML_JOB = '''\
import os

import yaml
from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("orders").getOrCreate()

with open(os.path.join(os.path.dirname(__file__), "config", "orders.yaml")) as handle:
    config = yaml.safe_load(handle)

events = (spark.readStream.format("kafka")
          .option("kafka.bootstrap.servers", config["kafka"]["brokers"])
          .option("subscribe", config["kafka"]["topic"])
          .load())
(events.selectExpr("CAST(value AS STRING) AS body")
 .writeStream.format("delta")
 .option("checkpointLocation", config["checkpoint"])
 .start(config["output"]))
'''

ORDERS_YAML = '''\
# orders pipeline, prod
kafka:
  brokers: broker-1:9092,broker-2:9092
  topic: orders
checkpoint: /mnt/checkpoints/orders
output: /mnt/tables/orders
'''


def test_topic_renamed_in_the_yaml_file_is_a_renamed_topic() -> None:
    # Before: the job's text is the same on both sides, so this read compatible.
    old = {JOB: YAML_JOB, "jobs/config/orders.yaml": ORDERS_YAML}
    new = {JOB: YAML_JOB, "jobs/config/orders.yaml": ORDERS_YAML.replace(
        "topic: orders", "topic: orders_v2")}
    report = diff(old, new)
    assert report.verdict == "incompatible"
    assert "SO04" in codes(report)
    assert "'orders' to 'orders_v2'" in messages(report)


def test_the_same_file_is_the_same_value() -> None:
    files = {JOB: YAML_JOB, "jobs/config/orders.yaml": ORDERS_YAML}
    edited = {**files, "jobs/config/orders.yaml": ORDERS_YAML.replace("# orders", "# the orders")}
    report = diff(files, edited)
    assert report.verdict == "compatible" and not report.findings


def test_a_literal_moved_into_a_config_file_unchanged_is_compatible() -> None:
    literal = YAML_JOB.replace('config["kafka"]["topic"]', '"orders"').replace(
        'config["checkpoint"]', '"/mnt/checkpoints/orders"')
    old = {JOB: literal, "jobs/config/orders.yaml": ORDERS_YAML}
    new = {JOB: YAML_JOB, "jobs/config/orders.yaml": ORDERS_YAML}
    report = diff(old, new)
    assert report.verdict == "compatible", messages(report)


INI_JOB = '''\
import configparser

from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
settings = configparser.ConfigParser()
settings.read("conf/streaming.ini")

root = settings.get("storage", "checkpoint_root")
rate = settings.getint("kafka", "max_offsets", fallback=10000)
stream = (spark.readStream.format("kafka")
          .option("subscribe", settings["kafka"]["topic"])
          .option("maxOffsetsPerTrigger", rate)
          .load())
query = (stream.groupBy("key").count().writeStream
         .outputMode("update").format("console")
         .option("checkpointLocation", f"{root}/orders_count")
         .start())
'''

STREAMING_INI = '''\
[DEFAULT]
env = prod

[storage]
checkpoint_root = /mnt/%(env)s/checkpoints

[kafka]
topic = orders
'''


def test_checkpoint_root_moved_in_an_ini_file() -> None:
    old = {JOB: INI_JOB, "conf/streaming.ini": STREAMING_INI}
    new = {JOB: INI_JOB, "conf/streaming.ini": STREAMING_INI.replace(
        "/mnt/%(env)s/checkpoints", "/mnt/%(env)s/checkpoints_v2")}
    report = diff(old, new)
    assert report.verdict == "incompatible"
    assert "/mnt/prod/checkpoints/orders_count" in messages(report)
    assert "/mnt/prod/checkpoints_v2/orders_count" in messages(report)


def test_ini_fallback_and_interpolation_are_read() -> None:
    job = extract_text(INI_JOB, JOB, Project(MappingFiles(
        {JOB: INI_JOB, "conf/streaming.ini": STREAMING_INI}), JOB))
    (query,) = job.queries
    assert query.sink.checkpoint == "/mnt/prod/checkpoints/orders_count"
    assert query.sources[0].rate_limits == (("maxOffsetsPerTrigger", "10000"),)
    assert ("conf/streaming.ini" in dict(job.modules))  # `check` knows the job reads it


JSON_JOB = '''\
import json
from pathlib import Path

from pyspark.sql import functions as F

SETTINGS = json.loads((Path(__file__).parent / "settings.json").read_text())

clicks = spark.readStream.format("delta").load(SETTINGS["source_path"])
per_window = (clicks.withWatermark("event_time", "1 hour")
              .groupBy(F.window("event_time", SETTINGS["window"]), "page")
              .agg(F.count("*").alias("views")))
per_window.writeStream.format("delta").outputMode("append") \\
    .option("checkpointLocation", "/chk/page_views").toTable("page_views")
'''

SETTINGS_JSON = '{"source_path": "/mnt/raw/clicks", "window": "10 minutes"}\n'


def test_window_changed_in_a_json_file() -> None:
    old = {JOB: JSON_JOB, "jobs/settings.json": SETTINGS_JSON}
    new = {JOB: JSON_JOB, "jobs/settings.json": SETTINGS_JSON.replace("10 minutes", "5 minutes")}
    report = diff(old, new)
    assert report.verdict == "incompatible"
    assert "10 minutes" in messages(report) and "5 minutes" in messages(report)


def test_source_path_changed_in_a_json_file() -> None:
    old = {JOB: JSON_JOB, "jobs/settings.json": SETTINGS_JSON}
    new = {JOB: JSON_JOB, "jobs/settings.json": SETTINGS_JSON.replace("clicks", "clicks_v2")}
    report = diff(old, new)
    assert report.verdict == "incompatible"
    assert "/mnt/raw/clicks_v2" in messages(report)


TOML_JOB = '''\
import tomllib

from pyspark.sql import functions as F

with open("pipelines/sessions.toml", "rb") as f:
    cfg = tomllib.load(f)

events = spark.readStream.table(cfg["source"]["table"])
keys = cfg["aggregation"]["keys"]
(events.groupBy(*keys).agg(F.max("ts").alias("last_seen"))
 .writeStream.outputMode("update").format("delta")
 .option("checkpointLocation", cfg["sink"]["checkpoint"])
 .toTable(cfg["sink"]["table"]))
'''

SESSIONS_TOML = '''\
[source]
table = "bronze.events"

[aggregation]
keys = ["user_id", "device"]

[sink]
table = "silver.last_seen"
checkpoint = "/chk/last_seen"
'''


def test_grouping_keys_changed_in_a_toml_file() -> None:
    old = {JOB: TOML_JOB, "pipelines/sessions.toml": SESSIONS_TOML}
    new = {JOB: TOML_JOB, "pipelines/sessions.toml": SESSIONS_TOML.replace(
        '["user_id", "device"]', '["user_id", "device", "country"]')}
    report = diff(old, new)
    assert report.verdict == "incompatible"
    assert "AG01" in codes(report), messages(report)


def test_yaml_is_parsed_safely_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    hostile = f'topic: !!python/object/apply:os.system ["touch {marker}"]\n'
    job = YAML_JOB.replace("yaml.safe_load(handle)", "yaml.load(handle, Loader=yaml.Loader)")
    files = {JOB: job, "jobs/config/orders.yaml": hostile}
    report = diff(files, edited(files))
    assert not marker.exists()
    assert report.verdict == "review"  # the file could not be read as data: asked about
    assert "UN06" in codes(report)


# -- a file streamlint cannot read never reads as the same value -----------------------------

UNREAD_JOB = '''\
import os
import yaml

config = yaml.safe_load(open(os.environ["APP_CONFIG"]))
df = spark.readStream.format("kafka").option("subscribe", config["topic"]).load()
df.writeStream.format("delta").option("checkpointLocation", config["checkpoint"]).start("/t/o")
'''


def test_a_config_path_known_only_at_run_time_is_asked_about() -> None:
    # Before: the same code on both sides, so the same unknown value: compatible, no finding.
    report = diff({JOB: UNREAD_JOB}, {JOB: UNREAD_JOB.replace("/t/o", "/t/orders")})
    assert report.verdict == "review"
    found = [f for f in report.findings if f.code == "UN06"]
    assert {f.message.split(" comes from")[0] for f in found} == {
        "the kafka source option `subscribe`", "checkpointLocation"}


def test_a_config_file_missing_from_the_repository_is_asked_about() -> None:
    files = {JOB: YAML_JOB}  # jobs/config/orders.yaml is not in the repository
    report = diff(files, edited(files))
    assert report.verdict == "review"
    assert "jobs/config/orders.yaml (not in the repository)" in messages(report)


def test_an_unread_file_that_feeds_nothing_restart_relevant_is_no_finding() -> None:
    job = UNREAD_JOB.replace('config["topic"]', '"orders"').replace(
        'config["checkpoint"]', '"/chk/o"').replace(
        '.load()', '.option("maxOffsetsPerTrigger", config["rate"]).load()')
    report = diff({JOB: job}, {JOB: job})
    assert report.verdict == "compatible" and not report.findings


# -- defaults a deployment may override ------------------------------------------------------

WINDOW_JOB = '''\
import os
from pyspark.sql import functions as F

WINDOW = "10 minutes"

df = spark.readStream.format("kafka").option("subscribe", "clicks").load()
counts = (df.withWatermark("timestamp", "30 minutes")
          .groupBy(F.window("timestamp", WINDOW), "page").count())
counts.writeStream.outputMode("append").format("delta") \\
    .option("checkpointLocation", "/chk/clicks").start("/t/clicks")
'''


def test_window_moved_into_an_environment_variable_is_review() -> None:
    # Before: no finding at all.
    moved = WINDOW_JOB.replace('WINDOW = "10 minutes"',
                               'WINDOW = os.environ.get("AGG_WINDOW", "10 minutes")')
    report = diff({JOB: WINDOW_JOB}, {JOB: moved})
    assert report.verdict == "review"
    assert codes(report) == ["UN05"]
    assert "environment variable AGG_WINDOW" in messages(report)
    assert "'10 minutes'" in messages(report)


def test_the_same_variable_with_the_same_default_is_no_change() -> None:
    env = WINDOW_JOB.replace('WINDOW = "10 minutes"',
                             'WINDOW = os.getenv("AGG_WINDOW", "10 minutes")')
    report = diff({JOB: env}, {JOB: env.replace('"10 minutes")', '"10 minutes")  # tumbling')})
    assert report.verdict == "compatible" and not report.findings


def test_a_changed_environment_default_names_the_variable_and_both_defaults() -> None:
    env = WINDOW_JOB.replace('WINDOW = "10 minutes"',
                             'WINDOW = os.getenv("AGG_WINDOW", "10 minutes")')
    report = diff({JOB: env}, {JOB: env.replace('"AGG_WINDOW", "10 minutes"',
                                                 '"AGG_WINDOW", "5 minutes"')})
    assert report.verdict == "review"  # never incompatible on a default alone
    assert "UN04" in codes(report)
    assert ("the default of environment variable AGG_WINDOW, which sets the window, changed "
            "from '10 minutes' to '5 minutes'") in messages(report)


WIDGET_JOB = '''\
# Databricks notebook source
dbutils.widgets.text("checkpoint_root", "/mnt/checkpoints")
dbutils.widgets.text("topic", "orders")

# COMMAND ----------

root = dbutils.widgets.get("checkpoint_root")
topic = dbutils.widgets.get("topic")
df = spark.readStream.format("kafka").option("subscribe", topic).load()
(df.groupBy("customer").count().writeStream.outputMode("complete").format("memory")
   .queryName("per_customer")
   .option("checkpointLocation", f"{root}/per_customer").start())
'''


def test_a_widgets_default_checkpoint_root_changed_is_review_naming_the_widget() -> None:
    # Before: QY01 incompatible, naming neither the widget nor its defaults.
    new = WIDGET_JOB.replace('"/mnt/checkpoints"', '"/mnt/checkpoints_v2"')
    report = diff({JOB: WIDGET_JOB}, {JOB: new})
    assert report.verdict == "review", messages(report)
    assert "widget 'checkpoint_root'" in messages(report)
    assert "'/mnt/checkpoints' to '/mnt/checkpoints_v2'" in messages(report)


def test_a_widget_kept_with_its_default_is_no_change() -> None:
    new = WIDGET_JOB.replace('.queryName("per_customer")', '.queryName("per_customer")  # ui')
    report = diff({JOB: WIDGET_JOB}, {JOB: new})
    assert report.verdict == "compatible" and not report.findings


ARGS_JOB = '''\
import argparse

parser = argparse.ArgumentParser(description="orders to delta")
parser.add_argument("--topic", default="orders")
parser.add_argument("--checkpoint", default="/chk/orders")
args = parser.parse_args()

df = spark.readStream.format("kafka").option("subscribe", args.topic).load()
df.writeStream.format("delta").option("checkpointLocation", args.checkpoint).start("/t/o")
'''


def test_an_arguments_default_topic_changed_is_review() -> None:
    report = diff({JOB: ARGS_JOB}, {JOB: ARGS_JOB.replace('default="orders"',
                                                          'default="orders_v2"')})
    assert report.verdict == "review", messages(report)
    assert "argument --topic" in messages(report)
    assert "'orders' to 'orders_v2'" in messages(report)


def test_a_literal_moved_into_an_argument_is_review() -> None:
    literal = ARGS_JOB.replace("args.checkpoint", '"/chk/orders"')
    report = diff({JOB: literal}, {JOB: ARGS_JOB})
    assert report.verdict == "review"
    assert "checkpointLocation is now read from argument --checkpoint" in messages(report)


DOTENV_JOB = '''\
import os

from dotenv import load_dotenv

load_dotenv()
df = spark.readStream.format("kafka").option("subscribe", os.getenv("ORDERS_TOPIC")).load()
df.writeStream.format("delta").option("checkpointLocation", "/chk/orders").start("/t/o")
'''


def test_a_dotenv_value_is_the_variables_default() -> None:
    old = {JOB: DOTENV_JOB, "jobs/.env": "# local\nORDERS_TOPIC=orders\n"}
    new = {JOB: DOTENV_JOB, "jobs/.env": "# local\nORDERS_TOPIC=orders_v2\n"}
    report = diff(old, new)
    assert report.verdict == "review"
    assert "environment variable ORDERS_TOPIC" in messages(report)
    assert "'orders' to 'orders_v2'" in messages(report)
    assert diff(old, old).verdict == "compatible"


# -- on disk, through the command line -------------------------------------------------------


def test_diff_reads_each_sides_repository(tmp_path: Path, capsys) -> None:
    for side, topic in (("old", "orders"), ("new", "orders_v2")):
        (tmp_path / side / "jobs" / "config").mkdir(parents=True)
        (tmp_path / side / "pyproject.toml").write_text("[project]\nname = 'x'\n")
        (tmp_path / side / JOB).write_text(YAML_JOB)
        (tmp_path / side / "jobs/config/orders.yaml").write_text(
            ORDERS_YAML.replace("topic: orders", f"topic: {topic}"))
    code = main(["diff", str(tmp_path / "old" / JOB), str(tmp_path / "new" / JOB)])
    assert code == 1
    assert "'orders' to 'orders_v2'" in capsys.readouterr().out


# -- `streamlint check`: each git ref's files, and the jobs that read a changed file ---------


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repo:
    repo = Repo(tmp_path)
    repo.put(JOB, YAML_JOB)
    repo.put("jobs/config/orders.yaml", ORDERS_YAML)
    repo.put("jobs/clicks.py", JSON_JOB)
    repo.put("jobs/settings.json", SETTINGS_JSON)
    repo.put("jobs/io.py", "import json\n\nSETTINGS = json.load(open('conf/io.json'))\n")
    repo.put("jobs/uses_io.py", "from jobs.io import SETTINGS\n"
             "df = spark.readStream.format('kafka').option('subscribe', SETTINGS['topic'])"
             ".load()\n"
             "df.writeStream.option('checkpointLocation', '/chk/io').toTable('t')\n")
    repo.put("jobs/__init__.py", "")
    repo.put("conf/io.json", '{"topic": "io"}\n')
    repo.put("conf/unrelated.yaml", "a: 1\n")
    repo.commit("jobs and their configuration")
    monkeypatch.chdir(tmp_path)
    return repo


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    status = main(["check", *args, "--format", "json"])
    return status, json.loads(capsys.readouterr().out)


def test_check_rejudges_the_job_that_reads_a_changed_config_file(repo: Repo, capsys) -> None:
    repo.edit("jobs/config/orders.yaml", "topic: orders", "topic: orders_v2")
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 1
    (job,) = data["files"]
    assert (job["path"], job["status"], job["verdict"]) == (
        JOB, "config-changed", "incompatible")
    assert "SO04" in [f["code"] for f in job["findings"]]


def test_check_follows_a_config_read_by_an_imported_module(repo: Repo, capsys) -> None:
    repo.put("conf/io.json", '{"topic": "io_v2"}\n')
    repo.commit("a new topic")
    status, data = run_json(capsys, "--base", "HEAD~1", "--head", "HEAD")
    assert status == 1
    assert [(f["path"], f["status"]) for f in data["files"]] == [
        ("jobs/uses_io.py", "config-changed")]


def test_check_reads_each_refs_file_for_a_changed_job(repo: Repo, capsys) -> None:
    repo.edit("jobs/clicks.py", '"page")', '"page")  # per page')
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 0, data  # the JSON file is read at both refs: the same value
    assert [(f["path"], f["verdict"]) for f in data["files"]] == [
        ("jobs/clicks.py", "compatible")]


def test_check_text_names_the_changed_config_file(repo: Repo, capsys) -> None:
    repo.edit("jobs/settings.json", "10 minutes", "5 minutes")
    assert main(["check", "--base", "HEAD"]) == 1
    out = capsys.readouterr().out
    assert ("jobs/clicks.py: unchanged, but a configuration file it reads changed "
            "(jobs/settings.json)") in out


def test_an_unrelated_config_change_rejudges_nothing(repo: Repo, capsys) -> None:
    repo.edit("conf/unrelated.yaml", "a: 1", "a: 2")
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 0 and data["files"] == []


def test_grouping_keys_from_a_file_not_read_are_asked_about() -> None:
    job = '''\
import json

conf = json.load(open("/dbfs/FileStore/conf/sessions.json"))
events = spark.readStream.table("bronze.events")
(events.groupBy(*conf["keys"]).count().writeStream.outputMode("update").format("delta")
 .option("checkpointLocation", "/chk/sessions").toTable("silver.sessions"))
'''
    report = diff({JOB: job}, {JOB: job.replace('"update"', '"update"  ')})
    assert report.verdict == "review"
    assert "a grouping key comes from /dbfs/FileStore/conf/sessions.json" in messages(report)


def test_a_grouping_key_named_by_an_environment_default() -> None:
    job = '''\
import os

KEY = os.getenv("GROUP_KEY", "customer_id")
df = spark.readStream.table("bronze.orders")
(df.groupBy(KEY).count().writeStream.outputMode("update").format("delta")
 .option("checkpointLocation", "/chk/per_key").toTable("silver.per_key"))
'''
    report = diff({JOB: job}, {JOB: job.replace('"customer_id"', '"account_id"')})
    assert report.verdict == "review", messages(report)
    assert ("the default of environment variable GROUP_KEY, which sets a grouping key, "
            "changed from 'customer_id' to 'account_id'") in messages(report)


def test_a_session_checkpoint_root_from_a_widget() -> None:
    job = '''\
dbutils.widgets.text("root", "/mnt/chk")
spark.conf.set("spark.sql.streaming.checkpointLocation", dbutils.widgets.get("root"))
df = spark.readStream.format("rate").load()
df.writeStream.format("memory").queryName("ticks").start()
'''
    report = diff({JOB: job}, {JOB: job.replace('"/mnt/chk"', '"/mnt/chk2"')})
    assert report.verdict == "review", messages(report)
    assert "widget 'root'" in messages(report)


def test_a_config_path_from_an_environment_default_reads_the_file_it_names() -> None:
    job = YAML_JOB.replace(
        'open(os.path.join(os.path.dirname(__file__), "config", "orders.yaml"))',
        'open(os.environ.get("ORDERS_CONFIG", "jobs/config/orders.yaml"))')
    files = {JOB: job, "jobs/config/orders.yaml": ORDERS_YAML}
    assert diff(files, files).verdict == "compatible"
    renamed = {**files, "jobs/config/orders.yaml": ORDERS_YAML.replace(
        "topic: orders", "topic: orders_v2")}
    report = diff(files, renamed)
    assert report.verdict == "incompatible" and "SO04" in codes(report)
    # The same file, now named by a variable a deployment may set: asked about.
    moved = diff({JOB: YAML_JOB, "jobs/config/orders.yaml": ORDERS_YAML}, files)
    assert moved.verdict == "review"
    assert "environment variable ORDERS_CONFIG (the file it names)" in messages(moved)


def test_a_pipeline_parameters_default_read_with_spark_conf_get() -> None:
    job = '''\
source = spark.conf.get("pipeline.source_table", "bronze.orders")
df = spark.readStream.table(source)
df.writeStream.option("checkpointLocation", "/chk/orders").toTable("silver.orders")
'''
    report = diff({JOB: job}, {JOB: job.replace('"bronze.orders"', '"bronze.orders_v2"')})
    assert report.verdict == "review", messages(report)
    assert "Spark configuration pipeline.source_table" in messages(report)


def test_a_file_read_in_a_way_not_followed_is_never_the_same_value() -> None:
    job = '''\
with open("conf/topic.txt") as f:
    topic = f.readline().strip()
df = spark.readStream.format("kafka").option("subscribe", topic).load()
df.writeStream.option("checkpointLocation", "/chk/t").toTable("t")
'''
    files = {JOB: job, "conf/topic.txt": "orders\n"}
    report = diff(files, edited(files))
    assert report.verdict == "review"
    assert "read with .readline()" in messages(report)


def test_values_of_an_unread_file_stay_unread_however_they_are_reached() -> None:
    job = '''\
import yaml
from types import SimpleNamespace

raw = yaml.safe_load(open("/dbfs/conf/app.yaml"))
cfg = SimpleNamespace(**raw)
topics = raw.get("topics", {})
a = spark.readStream.format("kafka").option("subscribe", topics.get("orders").strip()).load()
b = spark.readStream.format("kafka").option("subscribe", raw["kafka"]["topic"]).load()
c = spark.readStream.format("kafka").option("subscribe", cfg.kafka["topic"]).load()
a.union(b).union(c).writeStream.option("checkpointLocation", "/chk/t").toTable("t")
'''
    report = diff({JOB: job}, edited({JOB: job}))
    assert report.verdict == "review"
    assert [f.code for f in report.findings] == ["UN06"]


def test_a_value_computed_from_an_unread_file_by_unknown_code_stays_unread() -> None:
    job = '''\
import yaml
from types import SimpleNamespace

cfg = SimpleNamespace(**yaml.safe_load(open("/dbfs/conf/app.yaml")))
df = spark.readStream.format("kafka").option("subscribe", cfg.kafka["topic"]).load()
df.writeStream.option("checkpointLocation", "/chk/t").toTable("t")
'''
    assert diff({JOB: job}, edited({JOB: job})).verdict == "review"


SQL_JOB = '''\
from pathlib import Path

spark.readStream.table("bronze.readings").createOrReplaceTempView("readings")
with open(Path(__file__).with_name("per_device.sql")) as sql_file:
    per_device = spark.sql(sql_file.read())
per_device.writeStream.outputMode("update").option("checkpointLocation", "/chk/per_device") \\
    .toTable("silver.per_device")
'''

PER_DEVICE_SQL = "SELECT device_id, max(temp) AS max_temp FROM readings GROUP BY device_id\n"


def test_sql_read_from_a_file_of_the_repository_is_analysed() -> None:
    old = {JOB: SQL_JOB, "jobs/per_device.sql": PER_DEVICE_SQL}
    new = {JOB: SQL_JOB, "jobs/per_device.sql": PER_DEVICE_SQL.replace(
        "GROUP BY device_id", "GROUP BY device_id, site_id").replace(
        "SELECT device_id,", "SELECT device_id, site_id,")}
    assert diff(old, old).verdict == "compatible"
    report = diff(old, new)
    assert report.verdict == "incompatible" and "AG01" in codes(report), messages(report)


def test_check_gives_a_job_the_sql_file_it_reads(repo: Repo, capsys) -> None:
    repo.put("jobs/per_device.py", SQL_JOB)
    repo.put("jobs/per_device.sql", PER_DEVICE_SQL)
    repo.commit("SQL in its own file")
    repo.edit("jobs/per_device.sql", "GROUP BY device_id", "GROUP BY device_id, site_id")
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 1
    assert [(f["path"], f["status"], f["verdict"]) for f in data["files"]] == [
        ("jobs/per_device.py", "config-changed", "incompatible")]


def test_a_key_added_beside_a_changed_window_default_is_still_incompatible() -> None:
    env = WINDOW_JOB.replace('WINDOW = "10 minutes"',
                             'WINDOW = os.getenv("AGG_WINDOW", "10 minutes")')
    new = env.replace('"AGG_WINDOW", "10 minutes"', '"AGG_WINDOW", "5 minutes"').replace(
        '"page")', '"page", "region")')
    report = diff({JOB: env}, {JOB: new})
    assert report.verdict == "incompatible"
    assert "UN04" in codes(report)


FEEDS_JOB = '''\
import configparser

import tomli

feeds = configparser.ConfigParser()
feeds.read(["conf/feeds.ini", "conf/feeds.local.ini"])
with open("conf/limits.toml", "rb") as f:
    limits = tomli.load(f)

for name in feeds.sections():
    (spark.readStream.format("kafka")
     .option("subscribe", feeds.get(name, "topic"))
     .option("maxOffsetsPerTrigger", limits["max_offsets"])
     .load()
     .writeStream.format("delta")
     .option("checkpointLocation", f"/chk/feeds/{name}")
     .toTable(f"bronze.{name}"))
'''

FEEDS_INI = "[orders]\ntopic = orders\n\n[payments]\ntopic = payments\n"


def test_one_query_per_ini_section() -> None:
    files = {JOB: FEEDS_JOB, "conf/feeds.ini": FEEDS_INI, "conf/feeds.local.ini": "",
             "conf/limits.toml": "max_offsets = 5000\n"}
    job = extract_text(FEEDS_JOB, JOB, Project(MappingFiles(files), JOB))
    assert [q.sink.checkpoint for q in job.queries] == ["/chk/feeds/orders",
                                                        "/chk/feeds/payments"]
    added = {**files, "conf/feeds.ini": FEEDS_INI + "\n[refunds]\ntopic = refunds\n"}
    report = diff(files, added)  # a section added in the file: a new query, seen
    assert codes(report) == ["QY03"] and "/chk/feeds/refunds" in messages(report)
    renamed = {**files, "conf/feeds.ini": FEEDS_INI.replace("topic = payments",
                                                            "topic = payments_v2")}
    assert diff(files, renamed).verdict == "incompatible"
    limited = {**files, "conf/limits.toml": "max_offsets = 9000\n"}
    assert diff(files, limited).verdict == "compatible"  # a rate limit: no restart issue


def test_an_ini_file_that_may_be_missing_makes_every_key_unread() -> None:
    files = {JOB: FEEDS_JOB, "conf/feeds.ini": FEEDS_INI,
             "conf/limits.toml": "max_offsets = 5000\n"}  # feeds.local.ini is not there
    report = diff(files, edited(files))
    assert report.verdict == "review"
    assert "conf/feeds.local.ini (not in the repository)" in messages(report)


def test_check_gives_a_job_the_files_of_a_name_built_at_run_time(repo: Repo, capsys) -> None:
    job = YAML_JOB.replace(
        'open(os.path.join(os.path.dirname(__file__), "config", "orders.yaml"))',
        'open(f"jobs/config/{os.environ.get(\'ENV\', \'prod\')}.yaml")')
    repo.put("jobs/by_env.py", job)
    repo.put("jobs/config/prod.yaml", ORDERS_YAML)
    repo.commit("configuration per environment")
    repo.edit("jobs/by_env.py", '"delta")', '"delta")  # bronze')
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 0, data  # the file is read at both refs: no "not in the repository"
    assert [(f["path"], f["verdict"]) for f in data["files"]] == [
        ("jobs/by_env.py", "compatible")]


def test_check_rejudges_a_job_reading_a_file_by_a_name_built_at_run_time(repo: Repo,
                                                                          capsys) -> None:
    job = YAML_JOB.replace(
        'open(os.path.join(os.path.dirname(__file__), "config", "orders.yaml"))',
        'open(f"jobs/config/{os.environ.get(\'ENV\', \'prod\')}.yaml")')
    repo.put("jobs/by_env.py", job)
    repo.put("jobs/config/prod.yaml", ORDERS_YAML)
    repo.commit("configuration per environment")
    repo.edit("jobs/config/prod.yaml", "topic: orders", "topic: orders_v2")
    status, data = run_json(capsys, "--base", "HEAD")
    assert status == 1
    assert [(f["path"], f["status"]) for f in data["files"]] == [
        ("jobs/by_env.py", "config-changed")]


LIBRARY_JOB = '''\
from company_platform.config import load_job_config

cfg = load_job_config("conf/orders.yaml")
df = spark.readStream.format("kafka").option("subscribe", cfg.topic).load()
df.writeStream.option("checkpointLocation", cfg.checkpoint).toTable("bronze.orders")
'''


def test_a_file_handed_to_a_library_helper_counts_its_content() -> None:
    files = {JOB: LIBRARY_JOB, "conf/orders.yaml": "topic: orders\ncheckpoint: /chk/o\n"}
    assert diff(files, files).verdict == "compatible"  # the same file: the same value
    edited = {**files, "conf/orders.yaml": "topic: orders_v2\ncheckpoint: /chk/o\n"}
    report = diff(files, edited)
    assert report.verdict == "review", messages(report)  # what the helper makes of it: unknown
    on_cluster = {JOB: LIBRARY_JOB.replace("conf/orders.yaml", "/dbfs/conf/orders.yaml")}
    assert "UN06" in codes(diff(on_cluster, {**on_cluster, JOB: on_cluster[JOB] + "# edited\n"}))


def test_a_number_from_an_environment_default_keeps_its_source() -> None:
    job = WINDOW_JOB.replace('WINDOW = "10 minutes"',
                             'MINUTES = int(os.getenv("WINDOW_MINUTES", "10"))\n'
                             'WINDOW = f"{MINUTES} minutes"')
    assert diff({JOB: job}, {JOB: job}).verdict == "compatible"
    report = diff({JOB: job}, {JOB: job.replace('"WINDOW_MINUTES", "10"',
                                                 '"WINDOW_MINUTES", "15"')})
    assert report.verdict == "review", messages(report)
    assert "environment variable WINDOW_MINUTES" in messages(report)
    moved = diff({JOB: WINDOW_JOB}, {JOB: job})
    assert moved.verdict == "review" and codes(moved) == ["UN05"]


def test_only_the_fact_whose_default_changed_is_asked_about() -> None:
    # Two defaults reach the same groupBy; only the window's changed, and a key was added.
    env = WINDOW_JOB.replace('WINDOW = "10 minutes"',
                             'WINDOW = os.getenv("AGG_WINDOW", "10 minutes")\n'
                             'PAGE = os.getenv("PAGE_COLUMN", "page")').replace(
        '"page").count()', 'PAGE).count()')
    new = env.replace('"AGG_WINDOW", "10 minutes"', '"AGG_WINDOW", "5 minutes"').replace(
        'PAGE).count()', 'PAGE, "region").count()')
    report = diff({JOB: env}, {JOB: new})
    assert report.verdict == "incompatible", messages(report)


def test_an_absolute_path_into_a_checkout_of_the_repository_reads_its_file() -> None:
    """`/Users/me/projects/repo/src/config.json` names the repository's `src/config.json`
    (a real job hard-codes its checkout): a topic renamed there is SO04, the same file at
    another checkout is no change."""
    job = '''\
import json
with open("/Users/me/projects/repo/src/config.json") as f:
    config = json.load(f)
df = spark.readStream.format("kafka").option("subscribe", config["topic"]).load()
df.writeStream.format("delta").option("checkpointLocation", "/chk/o").start("/t/o")
'''
    old = {JOB: job, "src/config.json": '{"topic": "orders"}'}
    moved = {JOB: job.replace("/Users/me/projects/repo", "/home/ci/checkout"),
             "src/config.json": '{"topic": "orders"}'}
    renamed = {JOB: job, "src/config.json": '{"topic": "orders_v2"}'}
    assert codes(diff(old, moved)) == []
    assert "SO04" in codes(diff(old, renamed))


def test_an_unread_file_with_the_job_unchanged_is_a_note() -> None:
    files = {JOB: YAML_JOB}  # jobs/config/orders.yaml is not in the repository
    report = diff(files, files)
    assert report.verdict == "compatible"
    assert {f.code for f in report.findings} == {"QY18"}
    assert "as in the old version" in messages(report)


def test_the_environment_lookup_written_as_a_conditional_is_a_default() -> None:
    """`os.environ["K"] if "K" in os.environ else "d"` is `os.environ.get("K", "d")` (a real
    job moved its broker there): the same default is no change, another one is UN04."""
    job = ('import os\n'
           'TOPIC = {topic}\n'
           'df = spark.readStream.format("kafka").option("subscribe", TOPIC).load()\n'
           'df.writeStream.format("delta").option("checkpointLocation", "/chk/o").start("/t/o")\n')
    env = 'os.environ["TOPIC"] if "TOPIC" in os.environ else "{default}"'
    same = diff({JOB: job.format(topic=env.format(default="orders"))},
                {JOB: job.format(topic=env.format(default="orders")) + "# edited\n"})
    assert codes(same) == []
    changed = diff({JOB: job.format(topic=env.format(default="orders"))},
                   {JOB: job.format(topic=env.format(default="orders_v2"))})
    assert "UN04" in codes(changed)
