"""The options the commands share and the `check` subcommand's arguments: what the parser
needs, and nothing that runs a command (cheap to import with the parser)."""

from __future__ import annotations

import argparse
import math
import os
from typing import Any

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
    add_confirm_options(check, "also restart each changed job on Spark in a local sandbox, "
                        "each version from its own ref (executes the jobs' code; needs the "
                        "spark extra and Java 17)")


def add_confirm_options(parser: argparse.ArgumentParser, what: str) -> None:
    """`--confirm` (what it does for this command) and its time limit, which `diff` and
    `check` share."""
    parser.add_argument("--confirm", action="store_true", help=what)
    parser.add_argument("--confirm-timeout", type=seconds, default=120.0, metavar="SECONDS",
                        help="with --confirm: stop a job run after this long (default 120)")


def seconds(text: str) -> float:
    """A time limit: refused before Spark starts when it cannot limit anything."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive number of seconds")
    return value


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
