"""Stand-ins for the third-party modules a job imports that are not installed here.

A real job imports its platform's libraries (`google.auth` for a Dataproc template,
`deprecated` for a decorator, `feast`, `kedro`); without them it fails at its first line and
Spark never sees its queries. During a `--confirm` run, a module that no finder can find, and
that the job's own code imports (its file, a module next to it, its repository's packages),
is answered by a stand-in: any name in it is a placeholder class that works as a base class,
a decorator (`@deprecated(reason=...)` leaves the function as it is), a value and a callable.
Each stand-in is named in the report's warnings, so the outcome says what did not really run.

Imports made by anything else (pyspark probing for optional libraries such as pandas) are
left to fail as they would: a stand-in there would change what Spark itself does.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import os
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any

_MISSING = "_streamlint_missing"
_IMPORTLIB = os.path.dirname(importlib.abc.__file__)
_INSTALLED = tuple({os.path.realpath(p) + os.sep for p in (sys.prefix, sys.base_prefix,
                                                             sys.exec_prefix)})


class _Missing(type):
    """The class of placeholder classes: `Placeholder.anything` and `Placeholder(...)` give
    more placeholders; a class the job derives from one behaves as an ordinary class."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return placeholder(f"{cls.__qualname__}.{name}")

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if _MISSING not in cls.__dict__:
            return super().__call__(*args, **kwargs)  # the job's own subclass
        if len(args) == 1 and not kwargs and callable(args[0]):
            return args[0]  # used as a decorator: the function or class stays as written
        return placeholder(f"{cls.__qualname__}()")

    def __iter__(cls) -> Iterator[Any]:
        return iter(())


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    """A placeholder base class takes whatever arguments a subclass passes it."""


def _instance_getattr(self: Any, name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    return placeholder(f"{type(self).__qualname__}().{name}")


def placeholder(name: str) -> type:
    return _Missing(name, (), {_MISSING: True, "__init__": _init,
                               "__getattr__": _instance_getattr,
                               "__module__": name.split(".")[0]})


class _StandIn(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        name = module.__name__

        def attribute(key: str) -> Any:
            if key.startswith("__"):
                raise AttributeError(key)
            return placeholder(f"{name}.{key}")

        module.__getattr__ = attribute  # type: ignore[method-assign]  # PEP 562


class _Finder(importlib.abc.MetaPathFinder):
    """Last on `sys.meta_path`: asked only for modules that nothing else could find."""

    def __init__(self, roots: Sequence[str], warn: Callable[[str], None]) -> None:
        self.roots = tuple(os.path.realpath(r) + os.sep for r in roots)
        self.warn = warn
        self.made: list[str] = []

    def find_spec(self, fullname: str, path: Any = None, target: Any = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if not self._from_the_job():
            return None
        top = fullname.split(".")[0]
        if not any(made.split(".")[0] == top for made in self.made):
            # `google.auth` where `google` is a real (namespace) package: name the part missing.
            shown = fullname if top in sys.modules else top
            self.warn(f"module `{shown}` is not installed here: a stand-in answered the names "
                      "the job takes from it (its code did not run)")
        self.made.append(fullname)
        return importlib.machinery.ModuleSpec(fullname, _StandIn(), is_package=True)

    def _from_the_job(self) -> bool:
        """Whether the `import` statement being run is in the job's own code."""
        frame = sys._getframe(2)
        while frame is not None:
            filename = frame.f_code.co_filename
            if not filename.startswith("<frozen") and filename != __file__ and \
                    not filename.startswith(_IMPORTLIB):
                where = os.path.realpath(filename)
                # An installed library (in a virtualenv inside the repository, too) is not
                # the job's code, wherever it lives.
                return where.startswith(self.roots) and not where.startswith(_INSTALLED) \
                    and f"{os.sep}site-packages{os.sep}" not in where
            frame = frame.f_back  # type: ignore[assignment]
        return False


@contextlib.contextmanager
def stand_ins(roots: Sequence[str], warn: Callable[[str], None]) -> Iterator[None]:
    """Missing modules imported by code under `roots` get stand-ins while the block runs."""
    finder = _Finder(roots, warn)
    sys.meta_path.append(finder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)
        for name in finder.made:
            sys.modules.pop(name, None)
