"""The values a job's parameters take in a `--confirm` run: the ones the static reading gives
them, so that the query the run starts is the one the report names.

* a Databricks widget (`dbutils.widgets.text("chk", "/mnt/chk")`, then `.get("chk")`) is what
  the job's bundle sets it to, else its declared default (extract/platform.py);
* a Spark configuration key the bundle's cluster or pipeline sets (`spark.conf.get(key)`) is
  the bundle's value (extract/bundles.py `setting`);
* the command line of a Python file task the bundle runs is the bundle's (argparse defaults
  stand for what it does not pass);
* `os.environ.get(key, default)` keeps its default unless the variable is set (stubs.py).

A value the bundle's runs disagree on, or one known only at run time, is no single value: the
run takes the code's default, or a placeholder, and says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamlint.extract import bundles
from streamlint.extract.project import DiskFiles, project_root
from streamlint.extract.widgets import WIDGET_DECLARATIONS

Warn = Callable[[str], None]


@dataclass
class JobParameters:
    """What the job's Databricks bundle (if any) gives its parameters."""

    deployment: bundles.Deployment | None = None

    @classmethod
    def of(cls, job: Path) -> JobParameters:
        root = project_root(str(job))
        relative = job.resolve().relative_to(root).as_posix()
        try:
            found = bundles.deployment(DiskFiles(str(root)), relative)
        except Exception:  # noqa: BLE001 - a bundle streamlint cannot read: none, as statically
            found = None
        return cls(found)

    def widget(self, name: str, default: Any) -> Any:
        """The bundle's value (a string), else None; an `Unknown` when its runs disagree."""
        return bundles.setting(self.deployment, "widget", name, default)

    def conf(self, key: str) -> Any:
        return bundles.setting(self.deployment, "conf", key, None)

    def argv(self) -> tuple[list[str] | None, str | None]:
        """The command line every Python file task of the bundle passes alike (None: no
        task passes one), and why none is used where the tasks disagree."""
        lines = {run.argv for run in (self.deployment.runs if self.deployment else ())
                 if run.argv is not None}
        if not lines:
            return None, None
        if len(lines) > 1 or any(item is None for item in next(iter(lines))):
            return None, ("the bundle's tasks pass the job different command lines, or ones "
                          "known only at run time: it ran with its argparse defaults")
        return [str(item) for item in next(iter(lines))], None


@dataclass
class Widgets:
    """`dbutils.widgets`: declared widgets keep their defaults; `get` gives the bundle's value,
    else the default, as the static reading does; an undeclared one gives `placeholder`."""

    parameters: JobParameters
    placeholder: str
    warn: Warn
    defaults: dict[str, Any] = field(default_factory=dict)

    def _declare(self, name: str, defaultValue: Any = None, *args: Any,  # noqa: N803
                 **kwargs: Any) -> None:
        self.defaults[str(name)] = defaultValue

    def __getattr__(self, name: str) -> Any:
        if name in WIDGET_DECLARATIONS:
            return self._declare
        if name in ("remove", "removeAll"):
            return lambda *args, **kwargs: None
        raise AttributeError(name)

    def get(self, name: str) -> Any:
        default = self.defaults.get(name)
        given = self.parameters.widget(name, default)
        if isinstance(given, str):
            if given != default:
                self.warn(f"widget {name} took the value the job's bundle gives it: {given!r}")
            return given
        if isinstance(default, str):
            if given is not None:
                self.warn(f"widget {name}: the job's bundle gives it no single value; it took "
                          f"its default {default!r}")
            return default
        self.warn(f"widget {name} has no default and the job's bundle does not set it: it was "
                  f"given '{self.placeholder}'")
        return self.placeholder

    def getArgument(self, name: str, default: Any = None) -> Any:  # noqa: N802 - Databricks'
        if name not in self.defaults and default is not None:
            self.defaults[name] = default
        return self.get(name)

    def getAll(self) -> dict[str, Any]:  # noqa: N802 - Databricks' name
        return {name: self.get(name) for name in self.defaults}


ACTIVE: list[JobParameters] = []


def current_parameters() -> JobParameters:
    """The parameters of the job running now (none outside a run)."""
    return ACTIVE[-1] if ACTIVE else JobParameters()
