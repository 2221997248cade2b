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
from streamlint.extract.removals import normal, shell_removal

SOURCE = 'df = spark.readStream.format("rate").load()\n'
TO_DELTA = 'q = df.writeStream.format("delta").option("checkpointLocation", "/chk/a").start("/t")\n'
TO_CONSOLE = 'q = df.writeStream.format("console").option("checkpointLocation", "/chk/a").start()\n'


def codes(text: str, path: str = "job.py") -> list[str]:
    job = extract_text(text, path)
    return [f.code for f in diff_jobs(job, job).findings]


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


def test_a_notebook_clearing_the_checkpoint_with_a_shell_line() -> None:
    text = notebook(SOURCE, TO_DELTA, "! rm -rf /chk/a\n! mkdir /chk", TO_CONSOLE)
    assert codes(text, "demo.ipynb") == []
    kept = notebook(SOURCE, TO_DELTA, "! ls /chk/a", TO_CONSOLE)
    assert codes(kept, "demo.ipynb") == ["QY11"]


def test_a_notebook_clearing_the_checkpoint_in_a_shell_cell() -> None:
    assert codes(notebook(SOURCE, TO_DELTA, "%%sh\nrm -r /chk/a", TO_CONSOLE),
                 "demo.ipynb") == []
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
    assert normal("dbfs:/chk/a/") == normal("/dbfs/chk/a") == normal("/chk//a") == "/chk/a"
