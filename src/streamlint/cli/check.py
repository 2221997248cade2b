"""The `check` subcommand's arguments and exit code (cli.py registers it with one call), and
what `diff` shares with it: the configuration, suppressions and the pull-request formats."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from streamlint.diff import Report

FORMATS = ("text", "json", "github", "sarif", "markdown")
FORMAT_HELP = ("how to report: text (for people, the default), json (for tools), github "
               "(annotations in a GitHub Actions log), sarif (code scanning), markdown (a "
               "pull-request comment)")


def add_check_parser(commands: Any) -> None:
    check = commands.add_parser(
        "check", help="check every streaming job changed since a git ref")
    check.add_argument("paths", nargs="*", metavar="PATH",
                       help="only files under these paths (default: the whole repository, "
                       "filtered by include/exclude in the configuration)")
    check.add_argument("--base", required=True,
                       help="the ref the jobs run from today, e.g. origin/main or HEAD")
    check.add_argument("--head", default=None,
                       help="the ref with the changes (default: the working tree)")
    check.add_argument("--format", choices=FORMATS, default="text", help=FORMAT_HELP)
    add_verdict_options(check)
    check.add_argument("--no-progress", action="store_true",
                       help="no progress bar even on a terminal")
    check.add_argument("--confirm", action="store_true",
                       help="also restart each changed job on Spark in a local sandbox, each "
                       "version from its own ref (executes the jobs' code; needs the spark "
                       "extra and Java 17)")
    check.add_argument("--confirm-timeout", type=float, default=120.0, metavar="SECONDS",
                       help="with --confirm: stop a job run after this long (default 120)")


def bundle_var(text: str) -> tuple[str, str]:
    """`--var NAME=VALUE`, refused before anything is read when it is not one."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip() or not name.strip().replace("_", "").replace(
            "-", "").isalnum():
        raise argparse.ArgumentTypeError(f"{text!r}: give a bundle variable as NAME=VALUE")
    return name.strip(), value


def use_bundle_vars(args: argparse.Namespace) -> None:
    """The `--var`s as the bundle CLI takes them: each one wins over `BUNDLE_VAR_<name>` in
    the environment, which extract/bundles.py reads (streamlint's own process only)."""
    for name, value in getattr(args, "var", None) or ():
        os.environ[f"BUNDLE_VAR_{name}"] = value


def add_verdict_options(parser: argparse.ArgumentParser) -> None:
    """The options `diff` and `check` share: which Spark judges, and what exits 1."""
    parser.add_argument("--spark-version", default=None,
                        help="the Spark version the jobs run on, e.g. 4.3, 3.5.1 or dbr-17.3 "
                        "(default: spark-version in [tool.streamlint], else the pyspark or "
                        "databricks-connect pin the project declares, else the latest "
                        "stable release)")
    parser.add_argument("--var", action="append", default=[], metavar="NAME=VALUE",
                        type=bundle_var,
                        help="a Databricks bundle variable as the deployment sets it, as "
                        "`databricks bundle deploy --var`: wins over BUNDLE_VAR_NAME in the "
                        "environment, the target's value and the default (repeatable)")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 on findings to review, too")
    parser.add_argument("--exit-zero", action="store_true",
                        help="always exit 0 when the files could be read (for demos and "
                        "reports)")


def run_check(args: argparse.Namespace) -> int:
    from streamlint.report import render
    from streamlint.report.colour import write
    from streamlint.rulebook.change import exit_code
    from streamlint.workflow.check import check
    from streamlint.workflow.pool import show_progress

    outcome = check(args.base, args.head, args.paths or None, args.spark_version,
                    progress=show_progress() and not args.no_progress)
    if args.confirm and not outcome.errors:
        from streamlint.spark.command import run_check_confirm

        return run_check_confirm(args, outcome)
    write(args.format, render(args.format, list(outcome.reports), outcome.errors))
    for error in outcome.errors:
        print(error, file=sys.stderr)
    for warning in outcome.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return exit_code(outcome.verdict, errors=bool(outcome.errors), strict=args.strict,
                     exit_zero=args.exit_zero)


def diff_report(old: str, new: str, spark_version: str | None) -> Report:
    """`diff`'s report as the configuration found from the new file says (codes, severities,
    per-path Spark version) and with the new file's suppressions applied."""
    import os
    from pathlib import Path

    from streamlint.model.records import replace
    from streamlint.policy.accept import load
    from streamlint.policy.config import load_config
    from streamlint.policy.settle import settle
    from streamlint.workflow.files import diff_files
    from streamlint.workflow.target import project_files, resolve, with_bundle

    config = load_config(Path(new).parent)
    if config.root is not None:
        config = config.for_path(os.path.relpath(os.path.abspath(new), config.root))
    target = with_bundle(resolve(spark_version, config.spark_version, config.path,
                                 *project_files(new)), bundle_version(new))
    report = diff_files(old, new, target.version, config.source_roots,
                        str(config.root) if config.root else None)
    return settle(replace(report, spark_source=target.source), config, load(Path(new).parent))


def bundle_version(job: str) -> tuple[str, str] | None:
    """The Spark of the clusters the job's Databricks bundle runs it on (`spark_version`
    15.4.x-scala2.12 is Databricks runtime 15.4, Spark 3.5) and where it was read."""
    from streamlint.extract.bundles import deployment, spark_version
    from streamlint.extract.project import on_disk

    project = on_disk(job)
    return spark_version(deployment(project.files, project.job))


def render_report(fmt: str, report: Report, new: str) -> str:
    from streamlint.report import render_for
    from streamlint.report.result import Result

    return render_for(fmt, Result((report,), single=True), new)
