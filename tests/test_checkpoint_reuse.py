"""One checkpoint used twice in one run: shared by two queries at once, or reused in turn.

Notebooks that show a query several times clear its checkpoint in between
(tests/realworld/delta-io__delta-examples/notebooks/pyspark/incremental-updates-with-trigger
.ipynb: `! rm -rf data/tmp_students_checkpoint`) or stop the first query before starting the
next (tests/realworld/PacktPublishing__Data-Engineering-with-Databricks-Cookbook/Chapter04/
4.4 config-checkpoints.ipynb). Neither is two queries on one checkpoint.
"""

from __future__ import annotations

import json

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.extract.removals import checkpoint_places, removed_place, shell_removal

SOURCE = 'df = spark.readStream.format("rate").load()\n'
TO_DELTA = 'q = df.writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/t")\n'
TO_CONSOLE = 'q = df.writeStream.format("console").option("checkpointLocation", "/chk/a").start()\n'


def codes(text: str, path: str = "job.py") -> list[str]:
    """What the job's checkpoints are judged, against a first version that starts no query
    (against itself a shared checkpoint is QY18, "as in the old version"); QY03, each query
    being new, is left out."""
    first = extract_text(notebook() if path.endswith(".ipynb") else "", path)
    job = extract_text(text, path)
    return [f.code for f in diff_jobs(first, job).findings if f.code != "QY03"]


def notebook(*cells: str) -> str:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "metadata": {}, "outputs": [],
                                  "execution_count": None, "source": c} for c in cells]})


def test_two_different_queries_on_one_checkpoint_are_still_found() -> None:
    assert codes(SOURCE + TO_DELTA + TO_CONSOLE) == ["QY11"]


@pytest.mark.parametrize("removal", [
    'dbutils.fs.rm("/chk/a", True)\n',
    'dbutils.fs.rm("dbfs:/chk/a/", recurse=True)\n',
    'dbutils.fs.rm("/chk", True)\n',  # a folder holding it
    'import shutil\nshutil.rmtree("/dbfs/chk/a")\n',
])
def test_a_checkpoint_deleted_between_two_queries_is_not_shared(removal: str) -> None:
    assert codes(SOURCE + TO_DELTA + removal + TO_CONSOLE) == []


@pytest.mark.parametrize("removal", [
    'dbutils.fs.rm("/chk/a")\n',  # not recursive: a folder is not removed
    'dbutils.fs.rm("/chk/b", True)\n',  # another folder
    'dbutils.fs.rm("/chk/ab", True)\n',  # a name that only starts the same
    'dbutils.fs.rm(path, True)\n',  # not known statically
])
def test_a_removal_of_something_else_clears_nothing(removal: str) -> None:
    assert codes(SOURCE + TO_DELTA + removal + TO_CONSOLE) == ["QY11"]


def test_a_removal_before_both_queries_clears_neither() -> None:
    assert codes(SOURCE + 'dbutils.fs.rm("/chk/a", True)\n' + TO_DELTA + TO_CONSOLE) == ["QY11"]


def relative(cell: str) -> str:
    """As the delta-io notebook has it: a checkpoint folder next to the notebook."""
    return cell.replace('"/chk/a"', '"data/chk/"')


def test_a_notebook_clearing_the_checkpoint_with_a_shell_line() -> None:
    text = notebook(SOURCE, relative(TO_DELTA), "! rm -rf data/chk\n! mkdir data",
                    relative(TO_CONSOLE))
    assert codes(text, "demo.ipynb") == []
    kept = notebook(SOURCE, relative(TO_DELTA), "! ls data/chk", relative(TO_CONSOLE))
    assert codes(kept, "demo.ipynb") == ["QY11"]
    # The driver's own disk: on Databricks `/chk/a` is DBFS, which a local rm does not reach.
    absolute = notebook(SOURCE, TO_DELTA, "! rm -rf /chk/a", TO_CONSOLE)
    assert codes(absolute, "demo.ipynb") == ["QY11"]


def test_a_notebook_clearing_the_checkpoint_in_a_shell_cell() -> None:
    assert codes(notebook(SOURCE, relative(TO_DELTA), "%%sh\nrm -r data/chk",
                          relative(TO_CONSOLE)), "demo.ipynb") == []
    databricks = ("# Databricks notebook source\n" + SOURCE + "\n# COMMAND ----------\n\n"
                  + TO_DELTA + "\n# COMMAND ----------\n\n# MAGIC %fs rm -r dbfs:/chk/a\n"
                  "\n# COMMAND ----------\n\n" + TO_CONSOLE)
    assert codes(databricks, "demo.py") == []


def test_the_same_query_stopped_then_started_again_is_a_restart() -> None:
    twice = SOURCE + TO_DELTA + "q.stop()\n" + TO_DELTA
    assert codes(twice) == []
    assert codes(SOURCE + TO_DELTA + "q.awaitTermination()\n" + TO_DELTA) == []
    assert codes(SOURCE + TO_DELTA + TO_DELTA.replace("q =", "r =")) == ["QY12"]


def test_a_different_query_started_after_a_stop_still_differs() -> None:
    # A restart of the checkpoint with another query: what a diff of the two would say.
    assert codes(SOURCE + TO_DELTA + "q.stop()\n" + TO_CONSOLE) == ["QY11"]


def test_shell_removals() -> None:
    assert shell_removal("rm -rf a b") == ["a", "b"]
    assert shell_removal("rm -r 'dir with space'") == ["dir with space"]
    assert shell_removal("rm a") is None  # a file, not a folder
    assert shell_removal("rm -rf $CHK") is None
    assert shell_removal("rm -rf /chk/*") is None
    assert shell_removal("ls -r /chk") is None

def test_where_a_removal_and_a_checkpoint_are() -> None:
    """A file utility works on the cluster's file system, a shell `rm` or shutil on the
    driver's disk: on Databricks `/chk` is DBFS, and a local `rm -rf /chk` leaves it be."""
    assert removed_place("dbfs:/chk/a/", local=False) == removed_place("/chk//a", local=False) \
        == removed_place("/dbfs/chk/a", local=True) == ("fs", "/chk/a")
    assert removed_place("/chk/a", local=True) == ("local", "/chk/a")
    assert checkpoint_places("/chk/a") == {("fs", "/chk/a")}
    assert checkpoint_places("data/chk/") == {("fs", "data/chk"), ("local", "data/chk")}
    assert checkpoint_places("s3://b/chk/") == {("fs", "s3://b/chk")}


def test_a_local_removal_of_an_absolute_path_does_not_clear_a_checkpoint_there() -> None:
    for removal in ('import shutil\nshutil.rmtree("/chk/a")\n', "import os\n"):
        assert codes(SOURCE + TO_DELTA + removal + TO_CONSOLE) == ["QY11"]


def test_a_removal_under_a_run_time_condition_clears_nothing() -> None:
    """tests: `if os.environ.get("RESET"): shutil.rmtree(chk)` may not run; nor may a loop's
    body over values not known. Found in review: both read as a certain removal."""
    conditional = 'if os.environ.get("RESET"):\n    dbutils.fs.rm("/chk/a", True)\n'
    looped = 'for p in paths:\n    dbutils.fs.rm("/chk/a", True)\n'
    tried = 'try:\n    dbutils.fs.rm("/chk/a", True)\nexcept Exception:\n    pass\n'
    for removal in (conditional, looped, tried):
        assert codes(SOURCE + TO_DELTA + removal + TO_CONSOLE) == ["QY11"], removal


def test_await_termination_with_a_timeout_leaves_the_query_running() -> None:
    assert codes(SOURCE + TO_DELTA + "q.awaitTermination(60)\n" + TO_DELTA) == ["QY12"]


def test_a_shared_checkpoint_the_old_version_had_is_a_note_not_the_verdict() -> None:
    job = extract_text(SOURCE + TO_DELTA + TO_CONSOLE, "job.py")
    report = diff_jobs(job, job)
    assert [(f.code, f.verdict) for f in report.findings] == [("QY18", "compatible")]
    assert report.verdict == "compatible"
    assert "as in the old version" in report.findings[0].message
