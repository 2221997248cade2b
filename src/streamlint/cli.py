"""The command line: `diff` (and `diff --checkpoint`, `--confirm`), `check`, `checkpoint`,
`rules`, `explain`. Each command imports its own modules when it runs.

Exit codes follow griffe and compilers: 0 compatible, 1 incompatible (or review with
--strict), 2 usage or input error. Findings go to stdout, errors to stderr.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from typing import Any, NoReturn

from streamlint import __version__
from streamlint.core import EXIT_ERROR, EXIT_OK, exit_code
from streamlint.errors import InputError, UsageError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message if self.prog == "streamlint" else f"{self.prog}: {message}")


def _seconds(text: str) -> float:
    """A time limit: refused before Spark starts when it cannot limit anything."""
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: give a positive number of seconds")
    return value


def _batch_id(text: str) -> int:
    """Batch ids count from 0 (offsets/0 is the first batch)."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: a batch id is a number from 0 up")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="streamlint", description=(
        "Tells whether a changed Spark Structured Streaming job can restart from the old "
        "job's checkpoint."))
    parser.add_argument("--version", action="version", version=f"streamlint {__version__}")
    # An explicit prog keeps argparse from building a help formatter (and importing shutil)
    # on every run; it costs a few milliseconds of a check that must stay fast.
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser,
                                     prog="streamlint")

    diff = commands.add_parser(
        "diff", help="compare two versions of a job file (or a job with its checkpoint)",
        usage="streamlint diff [options] OLD NEW\n"
              "       streamlint diff [options] --checkpoint PATH NEW")
    diff.add_argument("old", metavar="OLD", help="the job as it runs today (with "
                      "--checkpoint: the changed job, the only file given)")
    diff.add_argument("new", metavar="NEW", nargs="?", help="the changed job")
    diff.add_argument("--checkpoint", metavar="PATH", default=None,
                      help="compare the changed job (the one file given) with what this "
                      "checkpoint holds: `diff --checkpoint PATH NEW`")
    diff.add_argument("--old", metavar="OLD.py", dest="old_code", default=None,
                      help="with --checkpoint: the job as it wrote the checkpoint, for what "
                      "a checkpoint does not record (a window's size, which function wrote "
                      "an aggregate buffer)")
    from streamlint.check_cli import FORMAT_HELP, FORMATS, add_check_parser, add_verdict_options

    diff.add_argument("--format", choices=FORMATS, default="text", help=FORMAT_HELP)
    add_verdict_options(diff)
    diff.add_argument("--confirm", action="store_true",
                      help="also RUN both versions on local Spark (synthetic input, nothing "
                      "external contacted) and report what Spark does on restart; executes "
                      "the job files' code; needs the spark extra and Java 17")
    diff.add_argument("--confirm-timeout", type=_seconds, default=120.0, metavar="SECONDS",
                      help="with --confirm: stop a job run after this long (default 120)")
    diff.add_argument("--remote", metavar="sc://HOST:PORT",
                      help="with --confirm: run it on this Spark Connect server, not on an "
                      "embedded local Spark")
    diff.add_argument("--remote-workdir", metavar="DIR",
                      help="with --remote: the work directory (stand-in input, checkpoints, "
                      "outputs) under DIR, which the server must see at the same path "
                      "(default: a local temp directory, fine for a server on this machine)")

    add_check_parser(commands)

    rules = commands.add_parser("rules", help="list the restart-compatibility rules")
    rules.add_argument("--format", choices=("text", "json", "markdown"), default="text",
                       help="text (a table, the default), json, or markdown (the README's)")
    rules.add_argument("--spark-version", default=None,
                       help="only the rules that hold for this Spark version")

    explain = commands.add_parser("explain", help="explain one rule")
    explain.add_argument("code", help="a code the reports print, e.g. AG01 or SL01")
    _add_checkpoint_parser(commands)
    return parser


def _add_checkpoint_parser(commands: Any) -> None:
    """`streamlint checkpoint show|offsets PATH`."""
    checkpoint = commands.add_parser("checkpoint", help="read a streaming checkpoint")
    checkpoint_commands = checkpoint.add_subparsers(
        dest="checkpoint_command", metavar="COMMAND", parser_class=_Parser,
        prog="streamlint checkpoint")
    show = checkpoint_commands.add_parser("show", help="what the checkpoint holds")
    show.add_argument("path", help="the checkpointLocation (local, s3://, gs://, abfss://)")
    show.add_argument("--format", choices=("text", "json"), default="text",
                      help="text for people (the default) or json for tools")
    offsets = checkpoint_commands.add_parser(
        "offsets", help="the last committed offsets, ready for startingOffsets")
    offsets.add_argument("path", help="the checkpointLocation (local, s3://, gs://, abfss://)")
    offsets.add_argument("--batch", type=_batch_id, default=None,
                         help="another batch than the last committed one")
    offsets.add_argument("--format", choices=("text", "json"), default="text",
                         help="text for people (the default) or json for tools")


def main(argv: list[str] | None = None) -> int:
    saved = dict(os.environ)
    try:
        code = _main(argv)
    finally:
        if os.environ != saved:  # `--var` sets BUNDLE_VAR_*: a caller's process keeps its own
            os.environ.clear()
            os.environ.update(saved)
    if argv is None and not gc.isenabled():  # a static command run as the program (below)
        _exit(code)
    return code


def _exit(code: int) -> NoReturn:
    """End the process now, as mypy's `hard_exit` does: the answer is written, and freeing
    every module and object one by one on the way out (libcst's and sqlglot's too) was 26 ms
    of `streamlint diff`'s 266 ms of CPU on `bench/jobs/payments_*` and 47 ms of 342 ms on
    `sql_*`. Nothing of ours waits for the interpreter's exit (no atexit handler, no
    temporary file); `--confirm`, whose Spark session stops at exit, never comes here."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader left (`| head`): as `_main` answers it
        code = EXIT_OK
    os._exit(code)


def _main(argv: list[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
        # A static command run as the `streamlint` program (argv from the command line,
        # not a caller's list) switches Python's cycle collector off: importing libcst and
        # parsing make hundreds of thousands of small objects that live until the answer is
        # printed and hold no cycles worth collecting. The collector's passes were about 5%
        # of `streamlint diff`'s CPU time (0.58 s against 0.55 s, `bench/jobs/payments_*`);
        # no peak memory changed (`bench/bench_bounds.py` inputs: 816 MB against 820 MB for
        # 50,000 lines, 280 MB for 2,000 queries), and the memory budget and the watchdog
        # still watch the process. `--confirm` keeps it: it holds a Spark session for minutes.
        if argv is None and not getattr(args, "confirm", False):
            gc.disable()
        if getattr(args, "var", None):
            from streamlint.check_cli import use_bundle_vars

            use_bundle_vars(args)
        if args.command == "diff" and args.checkpoint is not None:
            return run_checkpoint_diff(args)
        if args.command == "diff":
            return run_diff(args)
        if args.command == "check":
            from streamlint.check_cli import run_check

            return run_check(args)
        if args.command == "checkpoint":
            return run_checkpoint(args)
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
    from streamlint.report.colour import write

    if args.new is None:
        raise UsageError("diff: give OLD and NEW job files (or --checkpoint PATH NEW)")
    if args.old_code is not None:
        raise UsageError("--old goes with --checkpoint PATH NEW (diff OLD NEW already has it)")
    report = diff_report(args.old, args.new, args.spark_version)
    if (args.remote or args.remote_workdir) and not args.confirm:
        raise UsageError("--remote and --remote-workdir go with --confirm")
    if args.remote_workdir and not args.remote:
        raise UsageError("--remote-workdir goes with --remote")
    if args.confirm:
        from streamlint.spark.command import run_confirm

        return run_confirm(args, report)
    write(args.format, render_report(args.format, report, args.new))
    return exit_code(report.verdict, strict=args.strict, exit_zero=args.exit_zero)


def run_checkpoint(args: argparse.Namespace) -> int:
    from streamlint.checkpoint_cli import run_checkpoint_offsets, run_checkpoint_show

    if args.checkpoint_command == "show":
        return run_checkpoint_show(args.path, args.format)
    if args.checkpoint_command == "offsets":
        return run_checkpoint_offsets(args.path, args.batch, args.format)
    raise UsageError("checkpoint: choose a command: show or offsets")


def run_checkpoint_diff(args: argparse.Namespace) -> int:
    from streamlint.checkpoint_cli import run_checkpoint_diff as run

    if args.new is not None:
        raise UsageError("diff --checkpoint PATH takes one job file, the new one")
    if args.confirm:
        from streamlint.spark.runtime import require_spark

        require_spark()
    verdict = run(args.checkpoint, args.old, args.format, args.spark_version,
                  confirm=args.confirm, timeout=args.confirm_timeout, old_path=args.old_code)
    return exit_code(verdict, strict=args.strict, exit_zero=args.exit_zero)


def run_rules(args: argparse.Namespace) -> int:
    from streamlint.docs import rules_json, rules_markdown, rules_text
    from streamlint.rules import load_rules, parse_version, version_in
    from streamlint.target.profiles import parse_profile

    rules = load_rules()
    if args.spark_version:
        version = parse_version(parse_profile(args.spark_version).spark)
        rules = tuple(r for r in rules if version_in(version, r.spark))
    render = {"text": rules_text, "json": rules_json, "markdown": rules_markdown}[args.format]
    sys.stdout.write(render(rules))
    return EXIT_OK


def run_explain(args: argparse.Namespace) -> int:
    from streamlint.docs import explain
    from streamlint.rules import find_rule

    rule = find_rule(args.code)
    if rule is None:
        raise UsageError(f"no rule {args.code!r}; `streamlint rules` lists them")
    sys.stdout.write(explain(rule))
    return EXIT_OK
