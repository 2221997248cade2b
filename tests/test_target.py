"""The Spark version a job is judged for (`streamlint.workflow.target`): `--spark-version`, then
`spark-version` in [tool.streamlint], then what the project declares, then the latest stable
release; unknown versions are refused with the known ones, and every format says which
version was used and where it came from (issue 30)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gitrepo import Repo

from streamlint.cli import main
from streamlint.model.errors import UsageError
from streamlint.rulebook.book import load_rules
from streamlint.rulebook.change import DEFAULT_SPARK_VERSION
from streamlint.rulebook.profiles import Profile, all_runtimes, known, latest, parse_profile
from streamlint.rulebook.rule import Runtime, parse_version, version_in
from streamlint.workflow.declared import declared, pinned, read_job_spec
from streamlint.workflow.target import DEFAULT_SOURCE, resolve

# A named source added: incompatible on 3.5-4.1 (SO01), to review from 4.2 (SO10).
OLD = '''
a = spark.readStream.schema("id LONG").name("events_a").json("/in/a")
a.writeStream.format("delta").option("checkpointLocation", "/chk/n").start("/t/n")
'''
NEW = '''
a = spark.readStream.schema("id LONG").name("events_a").json("/in/a")
b = spark.readStream.schema("id LONG").name("events_b").json("/in/b")
a.unionByName(b).writeStream.format("delta").option("checkpointLocation", "/chk/n").start("/t/n")
'''


# -- the profiles -----------------------------------------------------------------------------


def test_the_profiles_are_the_issue_s_and_the_default_is_the_latest() -> None:
    assert known() == ("3.5", "4.0", "4.1", "4.2", "4.3")
    assert latest() == known()[-1] == DEFAULT_SPARK_VERSION


def test_every_rule_range_and_example_names_a_known_profile() -> None:
    """A rule's range holds for some profile, and an example's version is one: a range no
    profile meets would never judge anything."""
    versions = [parse_version(v) for v in known()]
    for rule in load_rules():
        assert any(version_in(v, rule.spark) for v in versions), rule.code
        assert any(rule.holds_for(runtime) for runtime in all_runtimes()), rule.code
        for example in rule.examples:
            if example.spark:
                assert example.spark in known(), (rule.code, example.name)
            if example.databricks:
                parse_profile(f"dbr-{example.databricks}")


@pytest.mark.parametrize(("given", "spark", "runtime"), [
    ("4.3", "4.3", ""), ("4.2.1", "4.2", ""), ("3.5.0", "3.5", ""),
    ("dbr-17.3", "4.0", "17.3"), ("DBR 18", "4.1", "18"), ("15.4.x-scala2.12", "3.5", "15.4"),
    ("18.x-scala2.13", "4.1", "18"), ("dbr-18.3", "4.1", "18.3"), ("dbr-19", "4.2", "19"),
])
def test_a_given_version_names_a_profile(given: str, spark: str, runtime: str) -> None:
    profile = parse_profile(given)
    assert (profile.spark, profile.databricks) == (spark, runtime)


@pytest.mark.parametrize("given", ["9.9", "3.4", "4", "four", "dbr-12.2", "4.4.0",
                                   "dbr-17.5", "dbr-19.1"])
def test_an_unknown_version_is_refused_with_the_known_ones(given: str) -> None:
    with pytest.raises(UsageError) as err:
        parse_profile(given)
    assert "3.5, 4.0, 4.1, 4.2, 4.3" in str(err.value)


def test_a_runtime_named_by_its_major_is_judged_as_its_last_release() -> None:
    """Databricks Runtime 18 ships what would have been 18.3 and later ("Features that would
    previously have shipped as 18.3 or later now ship as dated updates to Databricks Runtime
    18", its release notes); 17 alone is the 17.3 LTS, the one 17 Databricks supports."""
    assert parse_profile("dbr-18").runtime == Runtime((4, 1), (18, 3))
    assert parse_profile("dbr-18.1").runtime == Runtime((4, 1), (18, 1))
    assert parse_profile("dbr-17").runtime == Runtime((4, 0), (17, 3))
    assert Profile("4.1").runtime == Runtime((4, 1))  # Apache Spark: no runtime


def test_a_databricks_rule_holds_on_its_runtimes_only() -> None:
    """A rule with a `databricks` range holds on those runtimes and on no Apache Spark, even
    the one they run; a rule without one holds on a runtime by the runtime's Spark."""
    rules = {rule.code: rule for rule in load_rules()}
    held = {v: {c for c in ("CF01", "CF07", "CF10") if rules[c].holds_for(parse_profile(v).runtime)}
            for v in ("4.1", "dbr-18.2", "dbr-18.3", "dbr-18", "4.0", "dbr-17.3")}
    assert held == {"4.1": {"CF01", "CF07"}, "dbr-18.2": {"CF01", "CF07"},
                    "dbr-18.3": {"CF01", "CF07", "CF10"}, "dbr-18": {"CF01", "CF07", "CF10"},
                    "4.0": {"CF01"}, "dbr-17.3": {"CF01"}}


# -- what a project declares ---------------------------------------------------------------------


@pytest.mark.parametrize(("spec", "version"), [
    ("==4.3.0", "4.3.0"), ("==3.5.*", "3.5"), ("~=3.5.1", "3.5.1"), (">=3.5.0,<3.6", "3.5.0"),
    ("3.5.1", "3.5.1"), ("~3.5", "3.5"), ("=== 4.0.1", "4.0.1"),
    (">=3.5", None), ("~=3.5", None), ("^3.5.1", None), (">=3.5,<5", None), ("", None),
])
def test_only_a_pin_to_one_minor_release_names_a_version(spec: str, version: str | None
                                                         ) -> None:
    assert pinned(spec) == version


def _found(files: dict[str, str], job: str = "jobs/a/job.py") -> tuple[str, str, str] | None:
    found = declared(job, files)
    return None if found is None else (found.spark, found.runtime, found.path)


def test_requirements_pyproject_and_lock_files() -> None:
    assert _found({"requirements.txt": "# pinned\npyspark[connect]==4.1.2 ; python_version>'3.9'\n"}
                  ) == ("4.1.2", "", "requirements.txt")
    assert _found({"pyproject.toml": '[project]\ndependencies = ["pandas", "pyspark==4.0.1"]\n'}
                  ) == ("4.0.1", "", "pyproject.toml")
    assert _found({"pyproject.toml": '[tool.poetry.dependencies]\npyspark = "3.5.2"\n'}
                  ) == ("3.5.2", "", "pyproject.toml")
    assert _found({"uv.lock": '[[package]]\nname = "pyspark"\nversion = "4.3.0"\n'}
                  ) == ("4.3.0", "", "uv.lock")
    assert _found({"Pipfile.lock": json.dumps({"default": {"pyspark": {"version": "==3.5.3"}}})}
                  ) == ("3.5.3", "", "Pipfile.lock")
    # databricks-connect is versioned with the runtime it connects to
    assert _found({"requirements.txt": "databricks-connect==16.4.2\n"}
                  ) == ("", "16.4", "requirements.txt")
    # a range says nothing about the cluster
    assert _found({"pyproject.toml": '[project]\ndependencies = ["pyspark>=3.5"]\n'}) is None


def test_the_nearest_folder_wins_and_a_pin_before_a_lock_file() -> None:
    files = {"requirements.txt": "pyspark==3.5.1\n",
             "jobs/pyproject.toml": '[project]\ndependencies = ["pyspark==4.2.0"]\n',
             "jobs/uv.lock": '[[package]]\nname = "pyspark"\nversion = "4.1.0"\n',
             "other/requirements.txt": "pyspark==4.0.0\n"}
    assert _found(files) == ("4.2.0", "", "jobs/pyproject.toml")
    assert _found(files, "top.py") == ("3.5.1", "", "requirements.txt")


def test_a_job_spec_names_the_runtime_of_the_task_that_runs_the_file() -> None:
    spec = json.dumps({"settings": {
        "job_clusters": [{"job_cluster_key": "big", "new_cluster": {
            "spark_version": "17.3.x-scala2.13"}}],
        "tasks": [{"spark_python_task": {"python_file": "jobs/a/job.py"},
                   "job_cluster_key": "big"},
                  {"notebook_task": {"notebook_path": "/Repos/x/other"},
                   "new_cluster": {"spark_version": "15.4.x-scala2.12"}}]}})
    found = read_job_spec(spec, "jobs/job.json", "jobs/a/job.py")
    assert found is not None and found.runtime == "17.3"
    # a file no task names, on clusters of two runtimes: not this spec's to say
    assert read_job_spec(spec, "jobs/job.json", "jobs/a/unrelated.py") is None


def test_the_order_flag_config_declared_default() -> None:
    files = {"requirements.txt": "pyspark==4.1.0\n"}
    assert resolve("3.5", "4.0", "pyproject.toml", "job.py", files).version == "3.5"
    assert resolve(None, "4.0", "pyproject.toml", "job.py", files).source == \
        "spark-version in pyproject.toml"
    target = resolve(None, None, None, "job.py", files)
    assert (target.version, target.source) == ("4.1", "pyspark==4.1.0 in requirements.txt")
    assert resolve(None, None, None, "job.py", {}).source == DEFAULT_SOURCE
    assert resolve(None, None, None, "job.py", {}).version == latest()


def test_a_declared_spark_older_than_every_profile_is_judged_as_the_oldest() -> None:
    target = resolve(None, None, None, "job.py", {"requirements.txt": "pyspark==3.3.2\n"})
    assert target.version == "3.5" and "older than every profile" in target.source


def test_a_declared_spark_newer_than_every_profile_is_refused() -> None:
    with pytest.raises(UsageError, match="pyspark==9.1.0 in requirements.txt"):
        resolve(None, None, None, "job.py", {"requirements.txt": "pyspark==9.1.0\n"})


# -- the commands ---------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # the project's root: nothing above it is read
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "old.py").write_text(OLD)
    (tmp_path / "jobs" / "new.py").write_text(NEW)
    return tmp_path


def _diff(project: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["diff", str(project / "jobs" / "old.py"), str(project / "jobs" / "new.py"),
                 *args])
    return code, capsys.readouterr().out


def test_diff_judges_for_the_pinned_version(project: Path, capsys) -> None:
    (project / "requirements.txt").write_text("pyspark==3.5.1\n")
    code, out = _diff(project, capsys)
    assert code == 1  # Spark 3.5 matches sources by position: SO01
    assert "(Spark 3.5)" in out and "pyspark==3.5.1 in " in out
    (project / "requirements.txt").write_text("pyspark==4.3.0\n")
    code, out = _diff(project, capsys)
    assert code == 0 and "(Spark 4.3)" in out


def test_diff_judges_a_databricks_runtime_by_its_spark(project: Path, capsys) -> None:
    (project / "pyproject.toml").write_text('[project]\ndependencies = ["databricks-connect'
                                            '==17.3.2"]\n')
    code, out = _diff(project, capsys, "--format", "json")
    assert code == 1  # Databricks Runtime 17 runs Spark 4.0: no source evolution
    spark = json.loads(out)["spark"]
    assert spark["version"] == "4.0" and spark["databricks"] == "17.3"
    assert "Databricks Runtime 17.3" in spark["source"]


# A stateful query's shuffle partitions changed: kept from the checkpoint everywhere (CF01); on
# Databricks Runtime 18.3+ the fix is spark.sql.streaming.stateStore.partitions (CF10).
SHUFFLE_OLD = '''
from pyspark.sql import SparkSession
spark = SparkSession.builder.config("spark.sql.shuffle.partitions", "200").getOrCreate()
df = spark.readStream.format("kafka").option("subscribe", "in").load()
df.groupBy("key").count().writeStream.outputMode("update").format("console").option("checkpointLocation", "/chk/s").start()
'''  # noqa: E501


@pytest.mark.parametrize(("given", "code", "judged"), [
    ("dbr-18.3", "CF10", "Databricks Runtime 18.3 (Spark 4.1) (--spark-version dbr-18.3)"),
    ("dbr-18", "CF10", "Databricks Runtime 18 (Spark 4.1) (--spark-version dbr-18)"),
    ("dbr-18.2", "CF01", "Databricks Runtime 18.2 (Spark 4.1) (--spark-version dbr-18.2)"),
    ("4.1", "CF01", "Spark 4.1 (--spark-version 4.1)"),
])
def test_spark_version_dbr_selects_the_runtime_s_rule(tmp_path: Path, capsys, given: str,
                                                      code: str, judged: str) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "old.py").write_text(SHUFFLE_OLD)
    (tmp_path / "new.py").write_text(SHUFFLE_OLD.replace('"200"', '"64"'))
    assert main(["diff", str(tmp_path / "old.py"), str(tmp_path / "new.py"),
                 "--spark-version", given]) == 0
    out = capsys.readouterr().out
    assert f"warning[{code}]" in out and f"judged for {judged}\n" in out, out


def test_check_judges_each_job_for_the_named_runtime(tmp_path: Path, monkeypatch,
                                                     capsys) -> None:
    repo = Repo(tmp_path)
    repo.put("jobs/job.py", SHUFFLE_OLD)
    repo.commit()
    repo.put("jobs/job.py", SHUFFLE_OLD.replace('"200"', '"64"'))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--base", "HEAD", "--spark-version", "dbr-18.3", "--format",
                 "json"]) == 0
    data = json.loads(capsys.readouterr().out)["files"][0]
    assert data["spark"] == {"version": "4.1", "databricks": "18.3",
                             "source": "--spark-version dbr-18.3"}
    assert [f["code"] for f in data["findings"]] == ["CF10"]


ROOT = Path(__file__).resolve().parents[1]
HDFS_CHECKPOINT = ROOT / "tests/fixtures/checkpoints/spark-4.3.0/agg_hdfs/checkpoint"
AGG_HDFS = '''
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
spark = SparkSession.builder.getOrCreate()
spark.conf.set("spark.sql.streaming.stateStore.providerClass", "com.databricks.sql.streaming.state.RocksDBStateStoreProvider")
df = spark.readStream.schema("id LONG, key STRING, value LONG, ts TIMESTAMP").json("/fixtures/spark-4.3.0/agg_hdfs/input")
agg = df.groupBy("key").agg(F.count("*").alias("cnt"), F.sum("value").alias("total"))
agg.writeStream.format("noop").outputMode("update").option("checkpointLocation", "/chk/agg").queryName("agg_hdfs").start()
'''  # noqa: E501


def test_a_checkpoint_that_pins_another_provider_is_cf02_on_databricks_too(tmp_path: Path,
                                                                           capsys) -> None:
    """CF08 holds for a checkpoint started on Databricks Runtime 17.3+, which the code alone
    cannot show; a real checkpoint can: this one pins the HDFS-backed provider, so RocksDB
    set on 17.3 is CF02's review (the checkpoint keeps its provider), not CF08."""
    job = tmp_path / "job.py"
    job.write_text(AGG_HDFS)
    assert main(["diff", "--checkpoint", str(HDFS_CHECKPOINT), str(job), "--spark-version",
                 "dbr-17.3", "--format", "json", "--exit-zero"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [f["code"] for f in data["findings"]] == ["CF02"], data["findings"]
    assert data["spark"]["databricks"] == "17.3"


def test_every_format_names_a_databricks_runtime_as_such(project: Path, capsys) -> None:
    _, out = _diff(project, capsys, "--spark-version", "dbr-17.3")
    assert "(Databricks Runtime 17.3, Spark 4.0)" in out
    assert "judged for Databricks Runtime 17.3 (Spark 4.0) (--spark-version dbr-17.3)" in out
    for fmt, expected in (("markdown", "Judged for Databricks Runtime 17.3 (Spark 4.0) ("),
                          ("github", "judged for Databricks Runtime 17.3 (Spark 4.0) (")):
        _, out = _diff(project, capsys, "--spark-version", "dbr-17.3", "--format", fmt)
        assert expected in out, out
    _, out = _diff(project, capsys, "--format", "json", "--spark-version", "dbr-17.3")
    assert json.loads(out)["spark"] == {"version": "4.0", "databricks": "17.3",
                                        "source": "--spark-version dbr-17.3"}
    _, out = _diff(project, capsys, "--format", "sarif", "--spark-version", "dbr-17.3")
    assert json.loads(out)["runs"][0]["properties"]["spark"] == [
        {"version": "4.0", "databricks": "17.3", "source": "--spark-version dbr-17.3"}]


def test_a_bad_pin_is_a_clear_error(project: Path, capsys) -> None:
    (project / "requirements.txt").write_text("pyspark==5.0.0\n")
    assert main(["diff", str(project / "jobs" / "old.py"), str(project / "jobs" / "new.py")]
                ) == 2
    err = capsys.readouterr().err
    assert "pyspark==5.0.0" in err and "3.5, 4.0, 4.1, 4.2, 4.3" in err
    assert "Traceback" not in err


def test_a_bad_spark_version_in_config_names_the_file(project: Path, capsys) -> None:
    (project / "pyproject.toml").write_text('[tool.streamlint]\nspark-version = "9.9"\n')
    assert main(["diff", str(project / "jobs" / "old.py"), str(project / "jobs" / "new.py")]
                ) == 2
    err = capsys.readouterr().err
    assert "pyproject.toml" in err and "9.9" in err and "4.3" in err


@pytest.mark.parametrize(("fmt", "expected"), [
    ("text", "judged for Spark 4.2 (pyspark==4.2.1 in "),
    ("markdown", "Judged for Spark 4.2 (pyspark==4.2.1 in "),
    ("github", "judged for Spark 4.2 (pyspark==4.2.1 in "),
])
def test_every_text_format_says_the_version_and_its_source(project: Path, capsys, fmt: str,
                                                           expected: str) -> None:
    (project / "requirements.txt").write_text("pyspark==4.2.1\n")
    _, out = _diff(project, capsys, "--format", fmt)
    assert expected in out


def test_json_and_sarif_say_the_version_and_its_source(project: Path, capsys) -> None:
    _, out = _diff(project, capsys, "--format", "json", "--spark-version", "4.1")
    assert json.loads(out)["spark"] == {"version": "4.1", "source": "--spark-version 4.1"}
    _, out = _diff(project, capsys, "--format", "sarif", "--spark-version", "4.1")
    assert json.loads(out)["runs"][0]["properties"]["spark"] == [
        {"version": "4.1", "source": "--spark-version 4.1"}]


def test_check_reads_the_pin_at_the_head(tmp_path: Path, monkeypatch, capsys) -> None:
    repo = Repo(tmp_path)
    repo.put("jobs/job.py", OLD)
    repo.put("requirements.txt", "pyspark==4.2.0\n")
    repo.commit()
    repo.put("jobs/job.py", NEW)
    repo.put("requirements.txt", "pyspark==3.5.0\n")  # not committed: the working tree's
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--base", "HEAD", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    # The base pins another version: the report says so.
    assert data["files"][0]["spark"] == {
        "version": "3.5", "source": "pyspark==3.5.0 in requirements.txt",
        "base": {"version": "4.2", "source": "pyspark==4.2.0 in requirements.txt"}}
    repo.commit()
    assert main(["check", "--base", "HEAD~1", "--head", "HEAD"]) == 1
    assert ("judged for Spark 3.5 (pyspark==3.5.0 in requirements.txt, the head); the base "
            "pins Spark 4.2 (pyspark==4.2.0 in requirements.txt)") in capsys.readouterr().out
    assert main(["check", "--base", "HEAD~1", "--spark-version", "4.2", "--format", "json"]) == 0
    assert "base" not in json.loads(capsys.readouterr().out)["files"][0]["spark"]
    assert main(["check", "--base", "HEAD~1", "--spark-version", "9.9"]) == 2


PARTITIONED = '''
df = spark.readStream.schema("k STRING, n LONG").json("/in")
df.selectExpr("k COLLATE UTF8_LCASE AS k", "n").writeStream.format("parquet").partitionBy("k").option("checkpointLocation", "/c").start("/o")
'''  # noqa: E501


def test_check_of_an_upgrade_reports_what_the_new_spark_refuses(tmp_path: Path, monkeypatch,
                                                                 capsys) -> None:
    """A file sink partitioned by a collated string ran on 4.1 (the base's pin); the head
    pins 4.3, which refuses it at start (QY23, measured): the job's unrelated change is
    judged for 4.3, and the partition column, unchanged, is reported as the upgrade's."""
    repo = Repo(tmp_path)
    repo.put("job.py", PARTITIONED)
    repo.put("requirements.txt", "pyspark==4.1.1\n")
    repo.commit()
    repo.put("job.py", PARTITIONED + "# the sink's partitioning is unchanged\n")
    repo.put("requirements.txt", "pyspark==4.3.0\n")
    repo.commit()
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--base", "HEAD~1", "--head", "HEAD"]) == 1
    out = capsys.readouterr().out
    assert "QY23" in out and "the base pins Spark 4.1" in out, out
    assert "(unchanged since the base, which pins Spark 4.1)" in out, out
    # The same change with no upgrade: nothing the change caused.
    repo.put("requirements.txt", "pyspark==4.1.1\n")
    repo.commit()
    repo.put("job.py", PARTITIONED)
    repo.commit()
    assert main(["check", "--base", "HEAD~1", "--head", "HEAD"]) == 0
    assert "QY23" not in capsys.readouterr().out
