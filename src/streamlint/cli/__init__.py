"""The command line: `diff` (and `diff --checkpoint`, `--confirm`), `check`, `checkpoint`,
`rules`, `explain`. The parser is built here; each command is a module of this package
(`COMMANDS`), imported when it runs: `diff` never loads the checkpoint readers, git or Spark.

Exit codes follow griffe and compilers: 0 compatible, 1 incompatible (or review with
--strict), 2 usage or input error. Findings go to stdout, errors to stderr.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from streamlint import __version__
from streamlint.cli.options import (
    FORMAT_HELP,
    FORMATS,
    add_check_parser,
    add_confirm_options,
    add_verdict_options,
    use_bundle_vars,
)
from streamlint.model.errors import InputError, UsageError
from streamlint.rulebook.change import EXIT_ERROR, EXIT_OK

# Each command (with --confirm or not) -> the module of this package that runs it, and its
# function. `confirm` is the only one that imports spark/.
COMMANDS = {
    ("diff", False): ("diff", "run"),
    ("diff", True): ("confirm", "run_diff"),
    ("diff --checkpoint", False): ("checkpoint", "run_diff"),
    ("diff --checkpoint", True): ("confirm", "run_checkpoint_diff"),
    ("check", False): ("check", "run"),
    ("check", True): ("confirm", "run_check"),
    ("checkpoint", False): ("checkpoint", "run"),
    ("rules", False): ("rules", "run_rules"),
    ("explain", False): ("rules", "run_explain"),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message if self.prog == "streamlint" else f"{self.prog}: {message}")

    def _get_formatter(self) -> argparse.HelpFormatter:
        # `add_argument` builds a formatter to check each option's help; only help that is
        # printed needs the terminal's width (argparse asks `shutil`, which loads the
        # compression modules: 2 ms of every run).
        if self._printing:
            return super()._get_formatter()
        return self.formatter_class(prog=self.prog, width=80)

    _printing = False

    def format_help(self) -> str:
        self._printing = True
        return super().format_help()

    def format_usage(self) -> str:
        self._printing = True
        return super().format_usage()


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
    diff.add_argument("--format", choices=FORMATS, default="text", help=FORMAT_HELP)
    add_verdict_options(diff)
    add_confirm_options(diff, "also RUN both versions on local Spark (synthetic input, nothing "
                        "external contacted) and report what Spark does on restart; executes "
                        "the job files' code; needs the spark extra and Java 17")
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
            use_bundle_vars(args)
        if args.command is None:
            build_parser().print_help()
            return EXIT_ERROR
        return command(args)(args)
    except (InputError, UsageError) as err:
        print(f"streamlint: error: {err}" if isinstance(err, UsageError) else str(err),
              file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_OK


def command(args: argparse.Namespace) -> Callable[[argparse.Namespace], int]:
    """The function that runs the command `args` name."""
    name = args.command
    if name == "diff" and args.checkpoint is not None:
        name = "diff --checkpoint"
    module, function = COMMANDS[(name, bool(getattr(args, "confirm", False)))]
    # The one place a command's module is imported: on its first run, not with the parser,
    # so that each command loads only what it needs (`diff` neither git, the checkpoint
    # readers nor spark/; `rules` no front end).
    return getattr(importlib.import_module(f"streamlint.cli.{module}"), function)
