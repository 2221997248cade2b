"""Stand-ins for the platform a job expects around it: dbutils, secrets, environment variables,
command-line arguments, delta-spark, and a query that never started. Each use warns, so the
report says what the run did not really have."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import types
from collections.abc import Callable, Iterator, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamlint.extract.project import project_root
from streamlint.model.identity import run_path
from streamlint.spark.job_modules import import_roots
from streamlint.spark.missing_modules import stand_ins
from streamlint.spark.parameters import ACTIVE, JobParameters, Widgets
from streamlint.spark.patching import current
from streamlint.spark.runtime import is_connect

if TYPE_CHECKING:
    from streamlint.spark.sandbox import Sandbox



class _Placeholder(str):
    """A stubbed command-line argument: the text `streamlint-stub`, which `int()` and
    `float()` read as 1 (a port, a count, a number of seconds)."""

    def __int__(self) -> int:
        return 1

    def __index__(self) -> int:
        return 1

    def __float__(self) -> float:
        return 1.0


STUB = _Placeholder("streamlint-stub")


class NotebookExit(Exception):
    """`dbutils.notebook.exit(value)`: on Databricks the notebook ends there, later cells do
    not run; the runner treats it as the job's normal end."""


class _Stub:
    """Answers any attribute or call with itself or a placeholder string, and warns."""

    def __init__(self, path: str) -> None:
        self._path = path

    def __getattr__(self, name: str) -> _Stub:
        return _Stub(f"{self._path}.{name}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._path.endswith(".notebook.exit"):
            current().warn(f"{self._path}() ended the notebook, as on Databricks")
            raise NotebookExit(args[0] if args else None)
        current().warn(f"{self._path}() was stubbed: it returns a placeholder")
        if self._path.endswith((".get", ".getArgument", ".text", ".dropdown")):
            return STUB
        return _Stub(f"{self._path}()")

    def __str__(self) -> str:
        return STUB

    def __iter__(self) -> Iterator[Any]:
        return iter(())


class _DBUtils(_Stub):
    """`dbutils`, whose widgets take the values the static reading gives them."""

    def __init__(self, widgets: Widgets) -> None:
        super().__init__("dbutils")
        self.widgets = widgets


class _StubEnviron(MutableMapping[str, str]):
    """os.environ where a missing variable read with [] gives a placeholder and a warning
    (`.get(key, default)` keeps its default, as the static analysis assumes)."""

    def __init__(self, real: MutableMapping[str, str], job_dir: Path) -> None:
        self.real, self.job_dir = real, str(job_dir.resolve())

    def __getitem__(self, key: str) -> str:
        try:
            return self.real[key]
        except KeyError:
            # Only the user's code gets placeholders: libraries rely on the KeyError.
            caller = Path(sys._getframe(1).f_code.co_filename)
            if not caller.is_file() or str(caller.resolve().parent) != self.job_dir:
                raise
            current().warn(f"environment variable {key} is not set: stubbed with '{STUB}'")
            return STUB

    def __setitem__(self, key: str, value: str) -> None:
        self.real[key] = value

    def __contains__(self, key: object) -> bool:
        return key in self.real

    def __delitem__(self, key: str) -> None:
        del self.real[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.real)

    def __len__(self) -> int:
        return len(self.real)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return self.real.get(key, default)

    def copy(self) -> dict[str, str]:
        return dict(self.real)


class _StubArgv(list):  # type: ignore[type-arg]
    """sys.argv without arguments, where `sys.argv[i]` past the end gives a placeholder and a
    warning (jobs read their settings positionally); len, slices and iteration stay honest,
    so argparse sees no arguments."""

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, int) and index >= len(self):
            current().warn(f"command-line argument sys.argv[{index}] was stubbed with "
                            f"'{STUB}'")
            return STUB
        return super().__getitem__(index)


class StubQuery:
    """What start() returns when no query runs (plan mode, or Spark refused to start it)."""

    def __init__(self, label: str) -> None:
        self.name = label
        self.id = self.runId = label
        self.isActive = False
        self.lastProgress = None
        self.recentProgress: list[Any] = []
        self.status: dict[str, Any] = {}

    def awaitTermination(self, timeout: Any = None) -> bool:  # noqa: N802 - pyspark's name
        return True

    def stop(self) -> None:
        return None

    def exception(self) -> None:
        return None

    def processAllAvailable(self) -> None:  # noqa: N802 - pyspark's name
        return None


def _lenient_parse(original: Callable[..., Any]) -> Callable[..., Any]:
    """argparse that gives required options and positionals a placeholder, with a warning."""

    def parse_known_args(self: argparse.ArgumentParser, args: Any = None,
                         namespace: Any = None) -> Any:
        for action in self._actions:
            if action.required or (not action.option_strings and action.nargs is None
                                   and action.default is None):
                if action.required or not action.option_strings:
                    current().warn(f"command-line argument {action.dest} was stubbed")
                action.required = False
                if not action.option_strings:
                    action.nargs = "?"
                if action.default is None:
                    action.default = STUB
        return original(self, args, namespace)

    return parse_known_args


def _fake_delta() -> dict[str, types.ModuleType]:
    """`delta` (delta-spark) where it is not installed: jobs import DeltaTable for the merges
    in their foreachBatch functions, which the sandbox does not run."""
    delta = types.ModuleType("delta")
    tables = types.ModuleType("delta.tables")
    tables.DeltaTable = _Stub("DeltaTable")  # type: ignore[attr-defined]
    delta.tables = tables  # type: ignore[attr-defined]
    delta.DeltaTable = tables.DeltaTable  # type: ignore[attr-defined]
    delta.configure_spark_with_delta_pip = (  # type: ignore[attr-defined]
        lambda builder, *args, **kwargs: builder)
    return {"delta": delta, "delta.tables": tables}


def _fake_findspark() -> dict[str, types.ModuleType]:
    """`findspark` where it is not installed: it only locates a Spark installation for a
    plain Python process (`findspark.init()`); the run already has its session."""
    findspark = types.ModuleType("findspark")
    for name in ("init", "find", "add_packages", "add_jars"):
        setattr(findspark, name, lambda *args, **kwargs: None)
    return {"findspark": findspark}


_ARGV_INDEX = re.compile(r"\bargv\[(\d+)\]")
_ARGV_LENGTH = re.compile(r"\blen\(\s*(?:sys\.)?argv\s*\)\s*(<=|<|!=|==|>=|>)\s*(\d+)")


def _arguments_needed(job: Path) -> int:
    """How many command-line arguments the job's own code reads by position, or checks for
    (`sys.argv[3]`, `if len(sys.argv) < 4: sys.exit(usage)`): that many placeholders are
    passed, each use warned about, so the job reaches its queries. A job that reads none gets
    none (argparse then sees no arguments, and its required ones are stubbed)."""
    try:
        text = job.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    needed = max((int(i) for i in _ARGV_INDEX.findall(text)), default=0)
    for op, number in _ARGV_LENGTH.findall(text):
        # The length the check wants to see for the job to go on.
        length = {"<": int(number), "<=": int(number) + 1, "!=": int(number),
                  "==": int(number), ">=": int(number), ">": int(number) + 1}[op]
        needed = max(needed, length - 1)
    return min(needed, 20)


SHADOW_PREFIX = "streamlint-cwd-"


# The repository of the job running now (extract.project.project_root), as platform_stubs
# sets it: where the job's `__file__` lies.
_REPOSITORY: list[str] = []


def stable_path(text: str) -> str:
    """A path under the run's working directory (the job folder's shadow, new for every run)
    as the same relative path in every run: `os.path.abspath("spark-warehouse")` in a job
    names one checkpoint and one source across the runs that `--confirm` compares. A path
    under the job's repository (made from `__file__`) is named by its place there, as the
    static reading names it (model.identity.query_path): the two versions' copies of the
    repository are one repository."""
    cwd = os.getcwd()
    if SHADOW_PREFIX in cwd:
        for prefix in (cwd, "file:" + cwd, "file://" + cwd):
            if text == prefix or text.startswith(prefix + os.sep):
                return "." + text[len(prefix):]
    return run_path(text, _REPOSITORY[-1]) if _REPOSITORY else text


def _shadow_folder(folder: Path) -> str:
    """A temporary folder of links to everything in the job's folder: the job runs there, so
    files it opens by relative paths are found, and a file or folder it creates there (a
    tracker folder, an output) lands in the temporary folder. What it writes *through* a link
    (into an existing file, or inside an existing subfolder) still reaches the user's tree:
    `--confirm` executes the job's own code, as the README says."""
    shadow = tempfile.mkdtemp(prefix=SHADOW_PREFIX)
    with contextlib.suppress(OSError):
        for entry in folder.iterdir():
            with contextlib.suppress(OSError):
                os.symlink(entry.resolve(), os.path.join(shadow, entry.name))
    return shadow


def _command_line(job: Path, parameters: JobParameters) -> _StubArgv:
    """sys.argv: what the job's bundle passes, then a placeholder for each further argument
    the job reads by position (each said in a warning)."""
    given, why = parameters.argv()
    if why is not None:
        current().warn(why)
    if given:
        current().warn(f"the job ran with the command line its bundle gives it: {given}")
    given = given or []
    needed = _arguments_needed(job)
    if needed > len(given):
        first = len(given) + 1
        which = (f"sys.argv[{first}]" if needed == first else
                 f"sys.argv[{first}] to sys.argv[{needed}]")
        current().warn(f"command-line arguments {which} were given '{STUB}' (the job reads "
                       "them)")
    return _StubArgv([str(job), *given, *[STUB] * max(0, needed - len(given))])


@contextlib.contextmanager
def platform_stubs(job: Path) -> Iterator[dict[str, Any]]:
    saved_argv, saved_environ = sys.argv, os.environ
    saved_parse = argparse.ArgumentParser.parse_known_args
    dbutils_module = types.ModuleType("pyspark.dbutils")
    parameters = JobParameters.of(job)
    dbutils = _DBUtils(Widgets(parameters, STUB, current().warn))
    dbutils_module.DBUtils = lambda *a, **k: dbutils  # type: ignore[attr-defined]
    saved_module = sys.modules.get("pyspark.dbutils")
    sys.modules["pyspark.dbutils"] = dbutils_module
    fake_delta = _fake_delta() if importlib.util.find_spec("delta") is None else {}
    if importlib.util.find_spec("findspark") is None:
        fake_delta.update(_fake_findspark())
    sys.modules.update(fake_delta)
    sys.argv = _command_line(job, parameters)
    # Replaced, not cleared: the stub reads through to the real environment.
    os.environ = _StubEnviron(saved_environ, job.parent)  # type: ignore[assignment]  # noqa: B003
    argparse.ArgumentParser.parse_known_args = _lenient_parse(  # type: ignore[method-assign]
        saved_parse)
    # As `python job.py` runs it from its folder: helper modules next to the job import, and
    # so do the repository's packages (its root and `src/`, as the static extraction reads
    # them); files the job opens by relative paths are found.
    added = import_roots(job)
    sys.path[:0] = added
    saved_cwd = os.getcwd()
    shadow = _shadow_folder(job.parent)
    with contextlib.suppress(OSError):
        os.chdir(shadow)
    _REPOSITORY.append(str(project_root(str(job))))
    ACTIVE.append(parameters)
    try:
        # Third-party modules the job's code imports and this machine lacks get stand-ins.
        with stand_ins([str(job.parent), *added], current().warn):
            yield {"dbutils": dbutils, "display": lambda *a, **k: None}
    finally:
        _REPOSITORY.pop()
        ACTIVE.pop()
        with contextlib.suppress(OSError):
            os.chdir(saved_cwd)
        shutil.rmtree(shadow, ignore_errors=True)  # its links, never what they point to
        for path in added:
            with contextlib.suppress(ValueError):
                sys.path.remove(path)
        sys.argv, os.environ = saved_argv, saved_environ
        argparse.ArgumentParser.parse_known_args = saved_parse  # type: ignore[method-assign]
        for name in fake_delta:
            sys.modules.pop(name, None)
        if saved_module is None:
            sys.modules.pop("pyspark.dbutils", None)
        else:
            sys.modules["pyspark.dbutils"] = saved_module


def notebook_globals(sandbox: Sandbox, source: str) -> dict[str, Any]:
    """`spark` and `sc` predefined, as in a Databricks notebook, for a job that uses `spark`
    without ever defining it (a notebook exported as a .py file)."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    defined = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
               and not isinstance(n.ctx, ast.Load)}
    defined |= {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
                if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    defined |= {n.name for n in ast.walk(tree)
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    defined |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments)
                for a in [*n.posonlyargs, *n.args, *n.kwonlyargs]}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}
    if "spark" not in used - defined or sandbox.session is None:
        return {}
    sandbox.warn("the job uses `spark` without defining it (a Databricks notebook): "
                 "`spark`, `sc`, `display` and `dbutils` were predefined as Databricks does")
    if is_connect(sandbox.session):  # Spark Connect has no SparkContext
        return {"spark": sandbox.session}
    return {"spark": sandbox.session, "sc": sandbox.session.sparkContext}
