"""The checkpoint commands behind the CLI: `checkpoint show|offsets PATH` and `diff
--checkpoint PATH NEW`; read, render, print; errors stay values."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Protocol

from streamlint.checkpoint.compare import CheckpointComparison
from streamlint.checkpoint.fs import open_fs
from streamlint.checkpoint.job_match import query_for_checkpoint
from streamlint.checkpoint.model import Checkpoint
from streamlint.checkpoint.offsets_text import render_offsets_text
from streamlint.checkpoint.reader import read_batch_offsets, read_checkpoint, read_checkpoint_fs
from streamlint.checkpoint.show_data import show_data
from streamlint.checkpoint.show_text import render_show_text
from streamlint.checkpoint.starting_offsets import choose_batch, offsets_data
from streamlint.diff import Report, diff_pairs
from streamlint.extract import extract_file
from streamlint.model import JobFile
from streamlint.model.errors import UsageError
from streamlint.model.records import replace
from streamlint.policy.config import load_config
from streamlint.report import render_for
from streamlint.report.remedy import with_remedies
from streamlint.report.result import Confirmation, Result
from streamlint.rulebook.change import EXIT_OK, exit_code
from streamlint.rulebook.matrix import worst
from streamlint.workflow.target import Target, project_files, resolve


class SparkRun(Protocol):
    """`diff --checkpoint --confirm`: Spark's run of the new code on the checkpoint
    (`streamlint.cli.confirm`), which this module never imports."""

    def findings(self, checkpoint: Checkpoint, label: str) -> tuple: ...

    def confirmation(self, verdict: str) -> Confirmation: ...


def run(args: argparse.Namespace) -> int:
    """`checkpoint show|offsets PATH`."""
    if args.checkpoint_command == "show":
        return run_checkpoint_show(args.path, args.format)
    if args.checkpoint_command == "offsets":
        return run_checkpoint_offsets(args.path, args.batch, args.format)
    raise UsageError("checkpoint: choose a command: show or offsets")


def run_diff(args: argparse.Namespace, spark: SparkRun | None = None) -> int:
    """`diff --checkpoint PATH NEW` (with `spark`, `--confirm` too)."""
    verdict = run_checkpoint_diff(args.checkpoint, new_job(args), args.format, args.spark_version,
                                  old_path=args.old_code, spark=spark)
    return exit_code(verdict, strict=args.strict, exit_zero=args.exit_zero)


def new_job(args: argparse.Namespace) -> str:
    """The one job file `diff --checkpoint PATH NEW` takes."""
    if args.new is not None:
        raise UsageError("diff --checkpoint PATH takes one job file, the new one")
    return str(args.old)


def run_checkpoint_show(path: str, output_format: str) -> int:
    data = show_data(read_checkpoint(path))
    if output_format == "json":
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(render_show_text(data))
    return EXIT_OK


def run_checkpoint_offsets(path: str, batch: int | None, output_format: str) -> int:
    checkpoint = read_checkpoint(path, with_operators=False)
    chosen, notes = choose_batch(checkpoint, batch)
    if checkpoint.last_committed is not None and chosen == checkpoint.last_committed.batch_id:
        entry = checkpoint.last_committed
    else:
        entry = read_batch_offsets(path, chosen)
    data = offsets_data(checkpoint, entry, notes)
    if output_format == "json":
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(render_offsets_text(data))
    return EXIT_OK


def run_checkpoint_diff(path: str, new_path: str, output_format: str,
                        spark_version: str | None = None, old_path: str | None = None,
                        spark: SparkRun | None = None) -> str:
    """Print the findings of `diff --checkpoint PATH NEW`; return the verdict. With `spark`,
    Spark's run of the new code adds its findings (`--confirm`); with `old_path`, the static
    diff of the old code decides what the checkpoint cannot show (CK06 gives way to its
    findings)."""
    config = load_config(Path(new_path).parent)
    if config.root is not None:
        config = config.for_path(os.path.relpath(os.path.abspath(new_path), config.root))
    target = resolve(spark_version, config.spark_version, config.path,
                     *project_files(new_path))
    version_text = target.version
    version = target.profile.runtime
    fs, root = open_fs(path)
    checkpoint = read_checkpoint_fs(fs, root, path)
    job = extract_file(new_path)
    query = query_for_checkpoint(job, path)
    findings = tuple(CheckpointComparison(checkpoint, fs, root, query, version).run())
    if old_path is not None:
        findings = with_old_code(findings, old_path, path, job, query, target)
    if spark is not None:
        findings += spark.findings(checkpoint, query.label)
    verdict = worst([f.verdict for f in findings])
    report = Report(JobFile(path, "", ()), job, ((None, query),), findings, verdict,
                    version_text, spark_source=target.source,
                    databricks=target.profile.databricks)
    # Each incompatible finding ends with the next step, as `diff` and `check` give it.
    report = replace(report, findings=with_remedies(findings, report, path))
    confirmation = spark.confirmation(verdict) if spark is not None else None
    sys.stdout.write(render_for(output_format, Result((report,), single=True,
                                                         checkpoint=path,
                                                         confirmation=confirmation), new_path))
    return verdict


def with_old_code(findings: tuple, old_path: str, checkpoint_path: str, job: JobFile,
                  query: Any, target: Target) -> tuple:
    """The checkpoint's findings, its "cannot tell" ones (CK06) replaced by the static diff
    of the old code's query against the new one (a finding both give is kept once)."""
    old_job = extract_file(old_path)
    old_query = query_for_checkpoint(old_job, checkpoint_path)
    report = diff_pairs(old_job, job, ((old_query, query),), target.version,  # type: ignore[arg-type]
                        databricks=target.profile.databricks)
    kept = [f for f in findings if f.code != "CK06"]
    seen = {(f.code, f.new) for f in kept}
    return tuple(kept + [f for f in report.findings if (f.code, f.new) not in seen])
