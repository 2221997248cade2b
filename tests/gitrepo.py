"""A real temporary git repository for the git-mode tests (check, formats, pre-commit)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path


class Repo:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "dev@example.com")
        self.git("config", "user.name", "dev")

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.path, check=True, capture_output=True,
                              text=True).stdout

    def put(self, path: str, source: Path | str) -> None:
        target = self.path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, Path):
            shutil.copy(source, target)
        else:
            target.write_text(source)

    def edit(self, path: str, old: str, new: str) -> None:
        target = self.path / path
        text = target.read_text()
        assert old in text, f"{old!r} not in {path}"
        target.write_text(text.replace(old, new))

    def move(self, old: str, new: str) -> None:
        (self.path / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", old, new)

    def commit(self, message: str = "change") -> None:
        self.git("add", "-A")
        self.git("commit", "-qm", message)


def notebook(*cells: str) -> str:
    """A Jupyter notebook (nbformat 4) with these code cells, as Jupyter saves it."""
    return json.dumps({
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}},
        "cells": [{"cell_type": "code", "id": f"cell-{n}", "metadata": {},
                   "execution_count": None, "outputs": [], "source": source}
                  for n, source in enumerate(cells)]}, indent=1) + "\n"


def join_notebook(how: str) -> str:
    """A stream-stream join in a notebook, of join type `how` (JN05's example, in cells)."""
    return notebook(
        "from pyspark.sql import functions as F",
        'imp = spark.readStream.format("kafka").option("subscribe", "impressions").load()'
        '.withWatermark("ts", "1 hour")\n'
        'clk = spark.readStream.format("kafka").option("subscribe", "clicks").load()'
        '.withWatermark("cts", "2 hours")',
        'joined = imp.join(clk, F.expr("ad_id = click_ad_id AND cts BETWEEN ts AND ts'
        f' + interval 1 hour"), "{how}")\n'
        'joined.writeStream.format("delta").option("checkpointLocation", "/chk/j")'
        '.start("/t/j")')
