"""`streamlint diff OLD NEW --confirm`: the static report, then Spark's outcome beside it.

Executes the user's job files (in a sandbox, on synthetic input): opt-in only.
"""

from __future__ import annotations

import argparse
import platform
import shlex
import sys
import tempfile
from pathlib import Path
from typing import Any

from streamlint.diff import Report
from streamlint.model.errors import UsageError
from streamlint.policy.config import load_config
from streamlint.report import render_for, render_result
from streamlint.report.colour import write
from streamlint.report.result import Result
from streamlint.rulebook.change import exit_code
from streamlint.spark.check_confirm import confirm_reports
from streamlint.spark.confirm import confirm_files
from streamlint.spark.connect import connect_mode, require_connect, start_remote_session
from streamlint.spark.report import as_check_result, as_result
from streamlint.spark.runtime import no_spark_yet, require_spark, start_session, stdout_to_stderr
from streamlint.workflow.git import repo_root


def reproduce_command(args: argparse.Namespace, spark_version: str, java_version: str
                      ) -> list[str]:
    command = ["streamlint", "diff", shlex.quote(args.old), shlex.quote(args.new), "--confirm"]
    if args.spark_version:
        command += ["--spark-version", args.spark_version]
    if getattr(args, "remote", None):
        command += ["--remote", shlex.quote(args.remote)]
    if getattr(args, "remote_workdir", None):
        command += ["--remote-workdir", shlex.quote(args.remote_workdir)]
    return [*command, f"(pyspark {spark_version}, Python {platform.python_version()}, "
            f"Java {java_version})"]


def run_confirm(args: argparse.Namespace, report: Report) -> int:
    """Confirm the pair in an embedded Spark (or on the --remote Spark Connect server), then
    report."""
    if getattr(args, "remote", None):
        return _report(args, report, _remote_confirmation(args, report))
    require_spark()
    tables = dict(load_config(Path(args.new).parent).tables)
    ours = no_spark_yet()  # a caller's session (and its SparkContext) is left running
    with stdout_to_stderr():  # Spark's Python workers print; the report owns stdout
        session = start_session()
        try:
            confirmation = confirm_files(Path(args.old), Path(args.new), session, tables,
                                         timeout=args.confirm_timeout,
                                         static=(report.old, report.new))
        finally:
            if ours:
                session.stop()
    return _report(args, report, confirmation)


def _remote_confirmation(args: argparse.Namespace, report: Report) -> Any:
    """The pair confirmed on the Spark Connect server at args.remote."""
    require_connect(args.remote)
    tables = dict(load_config(Path(args.new).parent).tables)
    shared = Path(args.remote_workdir) if args.remote_workdir else None
    if shared is not None and not shared.is_dir():
        raise UsageError(f"{shared}: --remote-workdir is not a directory")
    with stdout_to_stderr(), connect_mode():
        session = start_remote_session(args.remote)
        try:
            # A query the timeout left running may still write there: cleanup must not fail.
            with tempfile.TemporaryDirectory(prefix="streamlint-confirm-", dir=shared,
                                             ignore_cleanup_errors=True) as tmp:
                return confirm_files(Path(args.old), Path(args.new), session, tables,
                                     timeout=args.confirm_timeout, workdir=Path(tmp),
                                     static=(report.old, report.new))
        finally:
            session.stop()


def _report(args: argparse.Namespace, report: Report, confirmation: Any) -> int:
    """Print the result (the static report and Spark's confirmation) in any format; the exit
    code follows the stricter verdict."""
    reproduce = reproduce_command(args, confirmation.spark_version,
                                 confirmation.java_version)
    result = Result((report,), single=True,
                    confirmation=as_result(report, confirmation, reproduce))
    sys.stdout.write(render_for(args.format, result, args.new))
    return exit_code(result.verdict, strict=args.strict, exit_zero=args.exit_zero)


def run_check_confirm(args: argparse.Namespace, outcome: Any) -> int:
    """`check --confirm`: the static check's report, then each changed job's Spark outcome
    (one local session for all of them); the exit code follows the stricter verdict."""
    require_spark()

    root = repo_root(Path.cwd())
    tables = dict(load_config(Path.cwd()).tables)
    reports = list(outcome.reports)
    ours = no_spark_yet()
    with stdout_to_stderr():
        session = start_session()
        try:
            confirmed = confirm_reports(root, args.base, args.head, reports, session, tables,
                                        args.confirm_timeout)
        finally:
            if ours:
                session.stop()
    result = Result(tuple(reports), outcome.errors, confirmation=as_check_result(
        [(r, c, _check_reproduce(args, r, c)) for r, c in confirmed],
        [r.verdict for r in reports]))
    write(args.format, render_result(args.format, result))  # paths as `check` has them
    return exit_code(result.verdict, strict=args.strict, exit_zero=args.exit_zero)


def _check_reproduce(args: argparse.Namespace, report: Report, confirmation: Any) -> list[str]:
    command = ["streamlint", "check", "--base", shlex.quote(args.base)]
    if args.head:
        command += ["--head", shlex.quote(args.head)]
    command += [shlex.quote(report.new.path), "--confirm"]
    return [*command, f"(pyspark {confirmation.spark_version}, Python "
            f"{platform.python_version()}, Java {confirmation.java_version})"]
