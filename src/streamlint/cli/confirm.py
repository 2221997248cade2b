"""The commands with `--confirm`: the static result first, then Spark's run of the jobs
(`streamlint.spark`). Only these import spark/; the static commands never load it."""

from __future__ import annotations

import argparse
from pathlib import Path

from streamlint.checkpoint.model import Checkpoint
from streamlint.cli import check, checkpoint, diff
from streamlint.report.result import Confirmation
from streamlint.spark.checkpoint_confirm import (
    SparkState,
    confirmation_of,
    spark_findings,
    spark_state,
)
from streamlint.spark.command import run_check_confirm, run_confirm
from streamlint.spark.runtime import require_spark


def run_diff(args: argparse.Namespace) -> int:
    """`diff OLD NEW --confirm`."""
    return run_confirm(args, diff.report_of(args))


def run_check(args: argparse.Namespace) -> int:
    """`check --confirm`: a check that could not read every file confirms nothing."""
    outcome = check.outcome_of(args)
    if outcome.errors:
        return check.report(args, outcome)
    return run_check_confirm(args, outcome)


def run_checkpoint_diff(args: argparse.Namespace) -> int:
    """`diff --checkpoint PATH NEW --confirm`: refused before anything is read when Spark
    cannot run."""
    job = checkpoint.new_job(args)
    require_spark()
    return checkpoint.run_diff(args, _SparkRun(Path(job), args.confirm_timeout))


class _SparkRun:
    """The new code run on a local Spark against the checkpoint's state."""

    def __init__(self, job: Path, timeout: float) -> None:
        self.job = job
        self.timeout = timeout
        self.state: SparkState | None = None

    def findings(self, checkpoint: Checkpoint, label: str) -> tuple:
        self.state = spark_state(checkpoint, self.job, self.timeout)
        return tuple(spark_findings(checkpoint, self.state, label))

    def confirmation(self, verdict: str) -> Confirmation:
        assert self.state is not None  # findings() ran first
        return confirmation_of(self.state, verdict)
