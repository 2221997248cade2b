"""Databricks widgets: `dbutils.widgets.text("chk", "/mnt/chk")` declares a notebook parameter
and its default, `dbutils.widgets.get("chk")` reads it (the default, or what the job's bundle
sets). Apart from `display()` (extract/platform.py), which starts a query through PySpark's
writer: PySpark's session reaches widgets through `dbutils`, so this module needs nothing of
PySpark's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import bundles
from streamlint.model import Unknown

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

WIDGET_DECLARATIONS = ("text", "dropdown", "combobox", "multiselect")
WIDGET_READS = ("get", "getArgument")


def widget_call(interp: Interpreter, name: str, args: list[Any], kwargs: dict[str, Any],
                node: cst.Call) -> Any:
    """`dbutils.widgets.text("chk", "/mnt/chk")` declares a parameter and its default, and
    `dbutils.widgets.get("chk")` reads it: the default unless the job is given a value, like
    `os.environ.get(key, default)` (an `EnvDefault`), unless the job's Databricks bundle
    sets it (extract/bundles.py). A widget with no default it can see stays unknown."""
    if name in WIDGET_DECLARATIONS:
        key = args[0] if args else kwargs.get("name")
        default = args[1] if len(args) > 1 else kwargs.get("defaultValue")
        if isinstance(key, str):
            _widgets(interp)[key] = default
        return None
    if name in WIDGET_READS:
        key = args[0] if args else kwargs.get("name")
        default = _widgets(interp).get(key) if isinstance(key, str) else None
        if not isinstance(key, str):
            return Unknown(interp.code(node))
        given = bundles.setting(bundles.of_loader(interp.loader), "widget", key, default)
        return bundles.parameter(given,
                        default, f"widget {key!r}",
                        # However a notebook reaches it (`dbutils.widgets`, `W =
                        # dbutils.widgets`), a widget is one run-time value, named by its key.
                        Unknown(f"dbutils.widgets.get({key!r})"))
    return Unknown(interp.code(node))


def _widgets(interp: Interpreter) -> dict[str, Any]:
    """The widgets a notebook declared in this run, with their defaults (made on first use)."""
    widgets: dict[str, Any] = vars(interp.ext).setdefault("widgets", {})
    return widgets
