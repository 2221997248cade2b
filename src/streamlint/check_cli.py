"""The `check` subcommand's arguments and exit code (cli.py registers it with one call)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

FORMATS = ("text", "json", "github", "sarif", "markdown")


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
    check.add_argument("--format", choices=FORMATS, default="text")
    check.add_argument("--spark-version", default=None,
                       help="the Spark version the jobs run on (default: spark-version in "
                       "the configuration, else 3.5)")
    check.add_argument("--strict", action="store_true",
                       help="exit 1 on findings to review, too")
    check.add_argument("--exit-zero", action="store_true",
                       help="always exit 0 when the files could be read")
    check.add_argument("--no-progress", action="store_true",
                       help="no progress bar even on a terminal")


def run_check(args: argparse.Namespace) -> int:
    from streamlint.check import check, show_progress
    from streamlint.report import render

    outcome = check(args.base, args.head, args.paths or None, args.spark_version,
                    progress=show_progress() and not args.no_progress)
    sys.stdout.write(render(args.format, list(outcome.reports), outcome.errors))
    for error in outcome.errors:
        print(error, file=sys.stderr)
    if outcome.errors:
        return 2
    if args.exit_zero:
        return 0
    if outcome.verdict == "incompatible" or (args.strict and outcome.verdict == "review"):
        return 1
    return 0
