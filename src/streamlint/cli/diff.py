"""`streamlint diff OLD NEW`: one job file against its new version, statically; the report as
the configuration found from the new file says, with its suppressions applied."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from streamlint.diff import Report
from streamlint.extract.bundles import Clusters, deployment, spark_version
from streamlint.extract.project import on_disk
from streamlint.model.errors import UsageError
from streamlint.model.records import replace
from streamlint.policy.accept import load
from streamlint.policy.config import load_config
from streamlint.policy.settle import settle
from streamlint.report import render_for
from streamlint.report.colour import write
from streamlint.report.result import Result
from streamlint.rulebook.change import exit_code
from streamlint.workflow.files import diff_files
from streamlint.workflow.target import project_files, resolve, with_bundle


def run(args: argparse.Namespace) -> int:
    report = report_of(args)
    write(args.format, render_report(args.format, report, args.new))
    return exit_code(report.verdict, strict=args.strict, exit_zero=args.exit_zero)


def report_of(args: argparse.Namespace) -> Report:
    """The static report (what `diff --confirm` confirms), once the options given together
    are known to go together."""
    if args.new is None:
        raise UsageError("diff: give OLD and NEW job files (or --checkpoint PATH NEW)")
    if args.old_code is not None:
        raise UsageError("--old goes with --checkpoint PATH NEW (diff OLD NEW already has it)")
    report = diff_report(args.old, args.new, args.spark_version)
    if (args.remote or args.remote_workdir) and not args.confirm:
        raise UsageError("--remote and --remote-workdir go with --confirm")
    if args.remote_workdir and not args.remote:
        raise UsageError("--remote-workdir goes with --remote")
    return report


def diff_report(old: str, new: str, spark_version: str | None) -> Report:
    """`diff`'s report as the configuration found from the new file says (codes, severities,
    per-path Spark version) and with the new file's suppressions applied."""
    config = load_config(Path(new).parent)
    if config.root is not None:
        config = config.for_path(os.path.relpath(os.path.abspath(new), config.root))
    target = with_bundle(resolve(spark_version, config.spark_version, config.path,
                                 *project_files(new)), bundle_version(new))
    report = diff_files(old, new, target.version, config.source_roots,
                        str(config.root) if config.root else None, target.profile.databricks)
    return settle(replace(report, spark_source=target.source), config, load(Path(new).parent))


def bundle_version(job: str) -> Clusters | None:
    """The runtime of the clusters the job's Databricks bundle runs it on (`spark_version`
    15.4.x-scala2.12 is Databricks runtime 15.4, Spark 3.5) and where it was read."""
    project = on_disk(job)
    return spark_version(deployment(project.files, project.job))


def render_report(fmt: str, report: Report, new: str) -> str:
    return render_for(fmt, Result((report,), single=True), new)
