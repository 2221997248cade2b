"""`streamlint check --base REF`: every streaming job changed since a git ref, in any format;
the exit code follows the worst verdict."""

from __future__ import annotations

import argparse
import sys

from streamlint.report import render
from streamlint.report.colour import write
from streamlint.rulebook.change import exit_code
from streamlint.workflow.check import Outcome, check
from streamlint.workflow.pool import show_progress


def run(args: argparse.Namespace) -> int:
    return report(args, outcome_of(args))


def outcome_of(args: argparse.Namespace) -> Outcome:
    """The static check of the changed jobs (what `check --confirm` confirms)."""
    return check(args.base, args.head, args.paths or None, args.spark_version,
                 progress=show_progress() and not args.no_progress)


def report(args: argparse.Namespace, outcome: Outcome) -> int:
    """Print the findings (errors and warnings to stderr); the exit code."""
    write(args.format, render(args.format, list(outcome.reports), outcome.errors))
    for error in outcome.errors:
        print(error, file=sys.stderr)
    for warning in outcome.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return exit_code(outcome.verdict, errors=bool(outcome.errors), strict=args.strict,
                     exit_zero=args.exit_zero)
