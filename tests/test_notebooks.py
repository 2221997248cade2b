"""Notebooks: Jupyter `.ipynb` and Databricks source exports, `%sql` cells, `%run`.

The notebooks under tests/notebooks/medallion are our own (README there; the `.ipynb` files are
written by tests/notebooks/make_notebooks.py). The expected counts, cells and lines below come
from reading those files, never from the tool.
Expected codes are looked up by the rule's name in rules/*.toml.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepo import Repo

from streamlint.cli import main
from streamlint.diff import diff_jobs
from streamlint.extract import extract_file, extract_text
from streamlint.extract.project import MappingFiles, Project
from streamlint.model import is_known
from streamlint.model.errors import InputError
from streamlint.model.expr import render
from streamlint.rulebook.book import load_rules

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "tests" / "notebooks"
# A Jupyter notebook (Python 3 kernel): Kafka bronze, deduplicated silver, hourly gold.
MEDALLION = NOTEBOOKS / "medallion" / "sensor_medallion.ipynb"
DATABRICKS = NOTEBOOKS / "medallion" / "databricks"
# Databricks notebooks exported as .ipynb, with `%run ./Includes/...` and `%sql` cells.
MULTI = DATABRICKS / "02_multi_hop.ipynb"
INCREMENTAL = DATABRICKS / "01_incremental_ingest.ipynb"
# Databricks source exports: a Python one and a Scala one.
FANOUT = DATABRICKS / "queue_fanout.py"
SCALA = DATABRICKS / "events_to_delta.scala"
# The gold aggregation of MEDALLION (cell 10) as the file stores it, and with a key added.
GROUP = ".groupBy(F.window('event_time', '1 hour'), 'device_id')"
GROUP_SITE = ".groupBy(F.window('event_time', '1 hour'), 'device_id', 'site_id')"


def code(name: str) -> str:
    return next(rule.code for rule in load_rules() if rule.name == name)


def json_line(path: Path, needle: str) -> int:
    """The 1-based line of the notebook file holding `needle` (as JSON writes it)."""
    lines = path.read_text().splitlines()
    hits = [n for n, line in enumerate(lines, 1) if needle in line]
    assert len(hits) == 1, hits
    return hits[0]


def cells_of(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


# -- every query is found -----------------------------------------------------------------


@pytest.mark.parametrize(("path", "count"), [
    (MULTI, 3),  # cells 4, 13, 18 write bronze, readings_enriched, hourly_device_avg
    (INCREMENTAL, 3),  # autoload_to_table of Includes/ingest-setup (readings_bronze), cells 9, 12
    (MEDALLION, 3),  # cells 6, 8, 10: bronze, silver, gold
    (FANOUT, 1),  # start_queue_stream, called in a loop over the queues of a widget
])
def test_every_streaming_query_of_a_notebook_is_found(path: Path, count: int) -> None:
    job = extract_file(str(path))
    assert len(job.queries) == count


def test_notebook_query_targets_and_lines() -> None:
    job = extract_file(str(MEDALLION))
    targets = [q.sink.target for q in job.queries]
    assert targets == ["sensors.readings_bronze", "sensors.readings_silver",
                       "sensors.device_hourly_gold"]
    assert [str(q.sink.checkpoint) for q in job.queries] == [
        "/data/lake/_checkpoints/bronze", "/data/lake/_checkpoints/silver",
        "/data/lake/_checkpoints/gold"]  # CHECKPOINTS of cell 4
    assert [s.format for q in job.queries for s in q.sources] == ["kafka", "table", "table"]
    silver, gold = job.queries[1], job.queries[2]
    # Cell 8: `.dropDuplicates(["device_id", "event_time"])`.
    assert silver.stateful[0].keys == ("device_id", "event_time")
    assert silver.stateful[0].loc.line == json_line(MEDALLION, ".dropDuplicates(")
    assert [render(k) for k in gold.stateful[0].keys] == [
        "window(event_time, INTERVAL 1 hour)", "device_id"]
    # The aggregation points at the JSON line that stores the `.groupBy(...)` of cell 10.
    assert gold.stateful[0].loc.line == json_line(MEDALLION, GROUP)


def test_a_query_started_in_a_run_target_points_at_that_file() -> None:
    job = extract_file(str(INCREMENTAL))
    bronze = [q for q in job.queries if q.sink.target == "readings_bronze"]
    assert len(bronze) == 1
    setup = INCREMENTAL.parent / "Includes" / "ingest-setup.py"
    lines = setup.read_text().splitlines()
    assert bronze[0].sources[0].format == "cloudfiles"
    assert bronze[0].sink.loc.path.endswith("Includes/ingest-setup.py")
    assert bronze[0].sink.loc.line == 14  # the `.writeStream` of autoload_to_table
    assert lines[bronze[0].sink.loc.line - 1].strip() == ".writeStream"
    # The setup runs ./_common in turn.
    assert {Path(p).name for p, _ in job.modules} == {"ingest-setup.py", "_common.py"}


# -- diffs ----------------------------------------------------------------------------------


def test_notebook_against_itself_has_no_finding() -> None:
    for path in (MEDALLION, FANOUT):
        job = extract_file(str(path))
        assert diff_jobs(job, job).findings == ()
    # These read views made by %sql cells (`spark.table("hourly_device_avg_tmp")`): the diff
    # may name such code outside the Python as always worth a look (UN01), as for a .py job;
    # nothing else, and no UN03 (the same code cannot have changed).
    for path in (MULTI, INCREMENTAL):
        job = extract_file(str(path))
        findings = diff_jobs(job, job).findings
        assert {f.code for f in findings} <= {code("unresolved-code")}
        assert all("spark.table(" in f.message for f in findings)


def test_grouping_key_added_in_a_notebook(tmp_path: Path) -> None:
    old, new = tmp_path / "old.ipynb", tmp_path / "new.ipynb"
    shutil.copy(MEDALLION, old)
    new.write_text(MEDALLION.read_text().replace(GROUP, GROUP_SITE))
    report = diff_jobs(extract_file(str(old)), extract_file(str(new)))
    assert report.verdict == "incompatible"
    found = [f for f in report.findings if f.code == code("grouping-keys-changed")]
    assert len(found) == 1
    assert found[0].new.line == json_line(new, GROUP_SITE)
    assert found[0].old.line == json_line(old, GROUP)


def test_sql_cells_are_read_as_the_queries_they_shape(tmp_path: Path) -> None:
    sql_cells = [n for n, cell in enumerate(cells_of(MULTI), 1)
                 if cell["cell_type"] == "code" and "".join(cell["source"]).startswith("%sql")]
    assert sql_cells == [8, 10, 12, 14, 17, 19, 22]
    # Cells 8, 12 and 17 create the temporary views the streaming queries read; 10, 14, 19
    # and 22 are SELECTs a person runs to look. Each is `spark.sql(cell)`, run in its place:
    # the views' filter, join and aggregation are the queries' own operators, no UN03.
    job = extract_file(str(MULTI))
    assert [u for u in job.unseen if u.about == "sql"] == []
    silver, gold = job.queries[1], job.queries[2]
    kinds = [op.kind for op in silver.operators]
    assert kinds == ["filter", "projection", "static_join", "projection"]
    assert render(silver.operators[0].condition) == "isnotnull(temperature)"
    # Found in the cell (its `%sql` line or the SQL's first line).
    assert silver.operators[0].loc.line - _line_of_cell(MULTI, 8) in (0, 1)
    (agg,) = gold.operators
    assert [render(k) for k in agg.keys] == ["device_id", "site_id",
                                             "date_trunc('HOUR', event_time)"]
    # A grouping key changed inside the %sql cell 17 is a grouping key changed.
    changed = tmp_path / "02.ipynb"
    text = MULTI.read_text()
    assert text.count("GROUP BY device_id, site_id") == 1
    changed.write_text(text.replace("GROUP BY device_id, site_id", "GROUP BY device_id"))
    report = diff_jobs(job, extract_file(str(changed)))
    assert report.verdict == "incompatible"
    assert code("grouping-keys-changed") in {f.code for f in report.findings}


def _line_of_cell(path: Path, number: int) -> int:
    """The JSON line of the first source line of cell `number`: after its `"source": [`."""
    lines = path.read_text().splitlines()
    seen = 0
    for n, line in enumerate(lines, 1):
        if line.strip().startswith('"cell_type"'):
            seen += 1
        if seen == number and line.strip() == '"source": [':
            return n + 1
    raise AssertionError(f"no cell {number}")


def test_run_resolves_the_checkpoint_root_of_the_setup_notebook() -> None:
    job = extract_file(str(MULTI))
    checkpoints = [str(q.sink.checkpoint) for q in job.queries]
    # `checkpoint_root = f"{lab.folders.base}/_checkpoints"` in Includes/setup, the base from
    # SensorLab in Includes/_common (two %runs deep): `dbfs:/Users/{user}/{project}` with the
    # default project "sensor-lakehouse" and a user known only at run time: a partly-known
    # path whose known text is kept (issue 11).
    assert all(not is_known(q.sink.checkpoint) for q in job.queries), checkpoints
    assert all(c.startswith("dbfs:/Users/{spark.sql(") for c in checkpoints), checkpoints
    assert all("/sensor-lakehouse/_checkpoints/" in c for c in checkpoints), checkpoints
    assert [c.rsplit("/", 1)[1].rstrip(">") for c in checkpoints] == [
        "bronze", "readings_enriched", "hourly_device_avg"]
    missing = [u for u in job.unseen if u.about == "notebook"]
    assert len(missing) == 1 and "`%run ./mount-landing`" in missing[0].what
    assert missing[0].loc.path.endswith("Includes/setup.py") and missing[0].loc.line == 6


def test_a_changed_checkpoint_root_in_the_run_target_is_found(tmp_path: Path) -> None:
    for side in ("old", "new"):
        shutil.copytree(MULTI.parent, tmp_path / side,
                        ignore=shutil.ignore_patterns("01_*", "queue_*", "*.scala"))
    setup = tmp_path / "new" / "Includes" / "setup.py"
    assert setup.read_text().count("/_checkpoints\"") == 1
    setup.write_text(setup.read_text().replace("/_checkpoints\"", "/_checkpoints_v2\""))
    old = extract_file(str(tmp_path / "old" / MULTI.name))
    new = extract_file(str(tmp_path / "new" / MULTI.name))
    assert old.text == new.text and old.modules != new.modules
    report = diff_jobs(old, new)
    # The root is only partly known (the user's name is a run-time value), but its known
    # suffix changed: whatever the user is, each query's checkpoint is another directory
    # (QY01, one per query, naming the new root; issue 11 — this was UN02 review while
    # partly-known values were opaque). The Auto Loader schema location of cell 4,
    # `f"{checkpoint_root}/bronze_schema"`, moved under the same root: a source option change.
    assert code("unresolved-value-changed") not in [f.code for f in report.findings]
    moved = [f for f in report.findings if f.code == code("checkpoint-location-changed")]
    assert len(moved) == 3 and all("/_checkpoints_v2/" in f.message for f in moved)
    (schema,) = [f for f in report.findings if "schemaLocation" in f.message]
    assert schema.message.startswith(
        "the cloudfiles source option `cloudFiles.schemaLocation` changed")
    assert "/_checkpoints_v2/" in schema.message
    assert report.verdict == "incompatible"


def test_a_changed_literal_checkpoint_root_in_the_config_is_incompatible() -> None:
    files = {"jobs/config.py": '# Databricks notebook source\nROOT = "/chk/v1"\n'}
    old = extract_text(DATABRICKS_JOB, "jobs/job.py", project=project(files, "jobs/job.py"))
    files = {"jobs/config.py": '# Databricks notebook source\nROOT = "/chk/v2"\n'}
    new = extract_text(DATABRICKS_JOB, "jobs/job.py", project=project(files, "jobs/job.py"))
    report = diff_jobs(old, new)
    assert report.verdict == "incompatible"
    assert [f.code for f in report.findings] == [code("checkpoint-location-changed")]


def project(files: dict[str, str], job: str) -> Project:
    return Project(MappingFiles(files), job)


DATABRICKS_JOB = """# Databricks notebook source
# MAGIC %run ./config

# COMMAND ----------

df = spark.readStream.format("rate").load()
df.writeStream.option("checkpointLocation", ROOT + "/rate").toTable("t")
"""


def test_run_with_and_without_extension_and_relative_folders() -> None:
    config = '# Databricks notebook source\nROOT = "/chk/v1"\n'
    for target, files in (("./config", {"jobs/config.py": config}),
                          ("./config.py", {"jobs/config.py": config}),
                          ("../common/setup", {"common/setup.py": config}),
                          ("./nb", {"jobs/nb.ipynb": _ipynb(['ROOT = "/chk/v1"'])})):
        text = DATABRICKS_JOB.replace("./config", target)
        job = extract_text(text, "jobs/job.py", project=project(files, "jobs/job.py"))
        assert [q.sink.checkpoint for q in job.queries] == ["/chk/v1/rate"], target
        assert job.unseen == ()


def test_run_target_missing_or_without_project_is_unseen() -> None:
    job = extract_text(DATABRICKS_JOB, "jobs/job.py", project=project({}, "jobs/job.py"))
    assert [u.about for u in job.unseen] == ["notebook"]
    assert "jobs/config" in job.unseen[0].what and job.unseen[0].loc.line == 2
    alone = extract_text(DATABRICKS_JOB, "jobs/job.py")
    assert "not followed here" in alone.unseen[0].what
    assert not is_known(alone.queries[0].sink.checkpoint)
    assert str(alone.queries[0].sink.checkpoint) == "{ROOT}/rate"


def test_run_cycles_terminate() -> None:
    a = '# Databricks notebook source\n# MAGIC %run ./b\nROOT = "/chk"\n'
    b = '# Databricks notebook source\n# MAGIC %run ./a\nX = 1\n'
    job = extract_text(DATABRICKS_JOB.replace("./config", "./a"), "job.py",
                       project=project({"a.py": a, "b.py": b}, "job.py"))
    assert [q.sink.checkpoint for q in job.queries] == ["/chk/rate"]
    assert len(job.unseen) == 1 and "cycle" in job.unseen[0].what


# -- Jupyter front end ----------------------------------------------------------------------


def _ipynb(sources: list[str], language: str = "python") -> str:
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    nb = new_notebook(cells=[new_markdown_cell("# a notebook"),
                             *(new_code_cell(s) for s in sources)])
    nb.metadata["kernelspec"] = {"name": "k", "language": language, "display_name": "k"}
    return nbformat.writes(nb)


STREAM = ('df = spark.readStream.format("rate").load()\n'
          'q = df.groupBy("value").count().writeStream.outputMode("update")'
          '.option("checkpointLocation", "/chk/c").start()')


def test_magics_are_neutral_and_cell_magics_read_their_body() -> None:
    text = _ipynb(["%pip install pyspark\n!pip install x \\\n  y\nfiles = !ls\n%matplotlib inline",
                   "%%time\n" + STREAM, "spark?\n%config X=1"])
    job = extract_text(text, "nb.ipynb")
    assert [q.sink.checkpoint for q in job.queries] == ["/chk/c"]
    assert job.unseen == ()


def test_other_language_cells_that_stream_are_unseen() -> None:
    text = _ipynb(["%%bash\necho x", "%%scala\nval q = df.writeStream.start()", STREAM])
    job = extract_text(text, "nb.ipynb")
    assert [u.what.split(",")[0] for u in job.unseen] == ["cell 3 is scala"]


def test_sql_cells_count_only_where_something_streams() -> None:
    quiet = extract_text(_ipynb(["%%sql\nSELECT 1", "x = 1"]), "nb.ipynb")
    assert quiet.unseen == ()
    streaming_sql = extract_text(_ipynb(["%%sql\nCREATE STREAMING TABLE t AS SELECT 1"]),
                                 "nb.ipynb")
    assert [u.about for u in streaming_sql.unseen] == ["sql"]
    with_query = extract_text(_ipynb(["%sql\nSELECT 1", STREAM]), "nb.ipynb")
    assert with_query.unseen == ()  # a query to look at the data changes no checkpoint
    # A SET cell is read: the setting is the session's, like spark.conf.set (no UN03).
    setting = extract_text(_ipynb(["%sql\n-- tuning\nSET spark.sql.shuffle.partitions = 8",
                                   STREAM]), "nb.ipynb")
    assert setting.unseen == ()
    (query,) = setting.queries
    assert [(s.key, s.value) for s in query.config] == [("spark.sql.shuffle.partitions", "8")]
    insert = extract_text(_ipynb(["%sql\nINSERT INTO t SELECT * FROM s", STREAM]), "nb.ipynb")
    assert [u.about for u in insert.unseen] == ["sql"]


def test_broken_notebooks_are_input_errors_with_a_position(tmp_path: Path) -> None:
    truncated = MEDALLION.read_text()[:5000]
    with pytest.raises(InputError) as err:
        extract_text(truncated, "nb.ipynb")
    assert err.value.line > 1 and "invalid JSON" in err.value.message
    bad = json.loads(_ipynb(["x = 1"]))
    del bad["cells"][1]["outputs"]
    with pytest.raises(InputError) as err:
        extract_text(json.dumps(bad, indent=1), "nb.ipynb")
    text = json.dumps(bad, indent=1)
    # The second cell's opening brace: the line before its "cell_type".
    brace = [n for n, line in enumerate(text.splitlines(), 1) if '"cell_type"' in line][1] - 1
    assert "not a valid notebook" in err.value.message and err.value.line == brace
    with pytest.raises(InputError, match="a scala notebook"):
        extract_text(_ipynb(["val x = 1"], "scala"), "nb.ipynb")
    with pytest.raises(InputError, match="a Databricks Scala notebook"):
        extract_file(str(SCALA))
    # A cell that is not valid Python fails alone when the notebook runs: it is reported
    # (where Python places an unclosed bracket: where it opens), the notebook still read.
    job = extract_text(_ipynb(["x = 1", "y = (\n"]), "nb.ipynb")
    assert [u.what.split(":")[0] for u in job.unseen] == [
        "cell 3 is not valid Python ('(' was never closed, line 1 of the cell)"]


def test_suppression_comment_in_a_cell(tmp_path: Path, capsys, monkeypatch) -> None:
    cell = ('df = spark.readStream.format("rate").load()\n'
            'q = (df.groupBy("value"{key})\n'
            '     .count().writeStream.outputMode("update")\n'
            '     .option("checkpointLocation", "/chk/c").start())')
    repo = Repo(tmp_path)
    repo.put("nb.ipynb", _ipynb([cell.format(key="")]))
    repo.commit()
    edited = cell.format(key=', "timestamp"').replace(
        '"timestamp")\n', '"timestamp")  # streamlint: ignore[AG01] a new state on purpose\n')
    assert "ignore[AG01]" in edited
    repo.put("nb.ipynb", _ipynb([edited]))
    monkeypatch.chdir(tmp_path)
    status = main(["check", "--base", "HEAD", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data["files"][0]["suppressed"] == [code("grouping-keys-changed")]
    assert "SL01" not in [f["code"] for f in data["files"][0]["findings"]]  # unused-suppression
    assert status == 0


# -- command line ---------------------------------------------------------------------------


def test_cli_diff_text_github_and_sarif_point_at_the_json_line(tmp_path: Path, capsys,
                                                               monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(MEDALLION, "old.ipynb")
    Path("new.ipynb").write_text(MEDALLION.read_text().replace(GROUP, GROUP_SITE))
    line = json_line(Path("new.ipynb"), "'site_id')")
    assert main(["diff", "old.ipynb", "new.ipynb"]) == 1
    out = capsys.readouterr().out
    assert f"new.ipynb:{line}:" in out
    assert "    | cell " in out and f"    {GROUP_SITE} \\" in out
    assert main(["diff", "old.ipynb", "new.ipynb", "--format", "github"]) == 1
    annotation = [a for a in capsys.readouterr().out.splitlines() if "AG01" in a]
    assert annotation and f"file=new.ipynb,line={line}," in annotation[0]
    main(["diff", "old.ipynb", "new.ipynb", "--format", "sarif"])
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in results
               if r["ruleId"] == code("grouping-keys-changed")]
    assert regions[0]["startLine"] == line
    # The column is the one of `groupBy` inside the JSON string, 1-based.
    assert regions[0]["startColumn"] == Path("new.ipynb").read_text().splitlines()[
        line - 1].index("groupBy") + 1


def test_cli_broken_notebook_is_exit_2_with_position(tmp_path: Path, capsys) -> None:
    broken = tmp_path / "broken.ipynb"
    broken.write_text(MEDALLION.read_text()[:5000])
    assert main(["diff", str(broken), str(broken)]) == 2
    err = capsys.readouterr().err
    assert f"{broken}:" in err and "invalid JSON" in err
    position = err.split(f"{broken}:")[1].split(":")[:2]
    assert all(part.isdigit() for part in position)


def test_check_includes_notebooks_by_default(tmp_path: Path, capsys, monkeypatch) -> None:
    repo = Repo(tmp_path)
    repo.put("notebooks/medallion.ipynb", MEDALLION)
    repo.commit()
    repo.edit("notebooks/medallion.ipynb", GROUP, GROUP_SITE)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--base", "HEAD", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [f["path"] for f in data["files"]] == ["notebooks/medallion.ipynb"]
    assert code("grouping-keys-changed") in [f["code"] for f in data["files"][0]["findings"]]


def test_python_files_never_import_the_notebook_front_end() -> None:
    job = ROOT / "examples" / "orders" / "old.py"
    probe = ("import sys; from streamlint.extract import extract_file; "
             f"extract_file({str(job)!r}); "
             "print(sorted(m for m in sys.modules if 'nbformat' in m or 'notebook' in m))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, env={"PYTHONPATH": str(ROOT / "src")})
    assert done.stdout.strip() == "[]"


def test_a_notebook_with_large_outputs_is_read(tmp_path: Path) -> None:
    import nbformat

    nb = nbformat.reads(_ipynb([STREAM]), as_version=4)
    nb.cells[1].outputs = [nbformat.v4.new_output(
        "display_data", data={"image/png": "A" * 3_000_000, "text/plain": "<Figure>"})]
    path = tmp_path / "plots.ipynb"
    path.write_text(nbformat.writes(nb))
    assert path.stat().st_size > 3_000_000  # more than a .py job may be (2 MB)
    assert [q.sink.checkpoint for q in extract_file(str(path)).queries] == ["/chk/c"]


def test_a_one_line_sql_cell_shows_its_query() -> None:
    text = ('# Databricks notebook source\n' + DATABRICKS_JOB.split("\n", 4)[4]
            + '\n# COMMAND ----------\n\n'
            + '# MAGIC %sql INSERT INTO audit SELECT * FROM events_raw;\n')
    job = extract_text(text, "job.py")
    assert [u.what for u in job.unseen] == [
        "the %sql cell 2 (INSERT INTO audit SELECT * FROM events_raw;) is SQL, which "
        "streamlint does not analyse yet"]
    assert job.unseen[0].loc.line == text.splitlines().index(
        "# MAGIC %sql INSERT INTO audit SELECT * FROM events_raw;") + 1


def test_a_path_that_says_stream_is_no_streaming_sql() -> None:
    # A Packt cookbook shape: the Delta table's folder is named after the recipe.
    look = ("%%sparksql\nSELECT country, count(user_id)\n"
            "FROM delta.`/data/joining-stream-stream/events`")
    assert extract_text(_ipynb([look, STREAM]), "nb.ipynb").unseen == ()
    dlt_sql = "%sql\nCREATE OR REFRESH STREAMING TABLE raw AS SELECT * FROM STREAM(source)"
    assert [u.about for u in extract_text(_ipynb([dlt_sql]), "nb.ipynb").unseen] == ["sql"]


@pytest.mark.parametrize("header", [
    '"nbformat": "4", "nbformat_minor": 5',
    '"nbformat": 99, "nbformat_minor": 5',
    '"nbformat": 4, "nbformat_minor": "x"',
])
def test_a_notebook_with_a_malformed_version_is_refused_not_a_traceback(
        tmp_path: Path, header: str) -> None:
    """nbformat's validator asserts on a string version and imports `nbformat.v99` for a
    major version it does not know: both were tracebacks (found in review)."""
    import subprocess
    import sys

    notebook = tmp_path / "job.ipynb"
    notebook.write_text('{"cells": [], "metadata": {}, ' + header + "}")
    done = subprocess.run([sys.executable, "-m", "streamlint", "diff", str(notebook),
                           str(notebook)], capture_output=True, text=True, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"{notebook}:1:1: not a valid notebook"), done.stderr
    assert "Traceback" not in done.stderr


def test_a_cell_that_is_not_valid_python_is_left_out_not_the_notebook() -> None:
    """A notebook runs its other cells when one fails to parse: that cell is reported (UN03),
    written the same in both versions it is no change, and the queries are still read."""
    import json as _json

    from streamlint.diff import diff_jobs
    from streamlint.extract import extract_text

    def notebook(*cells: str) -> str:
        return _json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                            "cells": [{"cell_type": "code", "metadata": {}, "outputs": [],
                                       "execution_count": None, "source": c} for c in cells]})

    broken = "files = list_files(path\nprint(files)"
    query = ('df = spark.readStream.format("kafka").option("subscribe", "{topic}").load()\n'
             'df.writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/t")')
    old = extract_text(notebook(broken, query.format(topic="a")), "nb.ipynb")
    assert len(old.queries) == 1
    assert [u.about for u in old.unseen] == ["broken-cell"]
    same = extract_text(notebook(broken, query.format(topic="a") + "\n# a comment"), "nb.ipynb")
    assert [f.code for f in diff_jobs(old, same).findings] == []
    renamed = extract_text(notebook(broken, query.format(topic="b")), "nb.ipynb")
    assert "SO04" in [f.code for f in diff_jobs(old, renamed).findings]
    fixed = extract_text(notebook(broken.replace("(path", "(path)"), query.format(topic="a")),
                         "nb.ipynb")
    # The old version failed at that cell: fixing it is a note (UN08), not a question.
    assert [(f.code, f.verdict) for f in diff_jobs(old, fixed).findings] == [("UN08",
                                                                            "compatible")]
