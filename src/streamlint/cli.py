"""The command line: `streamlint diff`, `streamlint rules`, `streamlint explain`.

Exit codes follow griffe and compilers: 0 compatible, 1 incompatible (or review with
--strict), 2 usage or input error. Findings go to stdout, errors to stderr.
"""

from __future__ import annotations

import argparse
import sys

from streamlint import __version__
from streamlint.errors import InputError, UsageError

EXIT_OK = 0
EXIT_INCOMPATIBLE = 1
EXIT_ERROR = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message if self.prog == "streamlint" else f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="streamlint", description=(
        "Tells whether a changed Spark Structured Streaming job can restart from the old "
        "job's checkpoint."))
    parser.add_argument("--version", action="version", version=f"streamlint {__version__}")
    # An explicit prog keeps argparse from building a help formatter (and importing shutil)
    # on every run; it costs a few milliseconds of a check that must stay fast.
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser,
                                     prog="streamlint")

    diff = commands.add_parser("diff", help="compare two versions of a job file")
    diff.add_argument("old", help="the job as it runs today")
    diff.add_argument("new", help="the changed job")
    diff.add_argument("--format", choices=("text", "json", "github", "sarif", "markdown"),
                      default="text")
    diff.add_argument("--spark-version", default=None,
                      help="the Spark version the job runs on (default: spark-version in "
                      "[tool.streamlint] of pyproject.toml, else 3.5)")
    diff.add_argument("--strict", action="store_true",
                      help="exit 1 on findings to review, too")
    diff.add_argument("--exit-zero", action="store_true",
                      help="always exit 0 when the files could be read (for demos and reports)")

    from streamlint.check_cli import add_check_parser

    add_check_parser(commands)

    rules = commands.add_parser("rules", help="list the restart-compatibility rules")
    rules.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    rules.add_argument("--spark-version", default=None,
                       help="only the rules that hold for this Spark version")

    explain = commands.add_parser("explain", help="explain one rule")
    explain.add_argument("code", help="a rule code, e.g. AG01")
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command == "diff":
            return run_diff(args)
        if args.command == "check":
            from streamlint.check_cli import run_check

            return run_check(args)
        if args.command == "rules":
            return run_rules(args)
        if args.command == "explain":
            return run_explain(args)
        build_parser().print_help()
        return EXIT_ERROR
    except (InputError, UsageError) as err:
        print(f"streamlint: error: {err}" if isinstance(err, UsageError) else str(err),
              file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_OK


def run_diff(args: argparse.Namespace) -> int:
    from streamlint.check_cli import diff_report, render_report

    report = diff_report(args.old, args.new, args.spark_version)
    sys.stdout.write(render_report(args.format, report, args.new))
    if args.exit_zero:
        return EXIT_OK
    if report.verdict == "incompatible" or (args.strict and report.verdict == "review"):
        return EXIT_INCOMPATIBLE
    return EXIT_OK


def run_rules(args: argparse.Namespace) -> int:
    from streamlint.docs import rules_json, rules_markdown, rules_text
    from streamlint.rules import load_rules, parse_version, version_in

    rules = load_rules()
    if args.spark_version:
        version = parse_version(args.spark_version)
        rules = tuple(r for r in rules if version_in(version, r.spark))
    render = {"text": rules_text, "json": rules_json, "markdown": rules_markdown}[args.format]
    sys.stdout.write(render(rules))
    return EXIT_OK


def run_explain(args: argparse.Namespace) -> int:
    from streamlint.docs import explain
    from streamlint.rules import load_rules

    code = args.code.upper()
    for rule in load_rules():
        if rule.code == code or rule.name == args.code:
            sys.stdout.write(explain(rule))
            return EXIT_OK
    raise UsageError(f"no rule {args.code!r}; `streamlint rules` lists them")
