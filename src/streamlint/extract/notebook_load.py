"""A Jupyter notebook's JSON, read and checked before any of its cells is.

What is refused, each as an `InputError` where it applies: text that is not JSON (at the
JSON error), an nbformat 3 notebook or JSON with no list of cells, a notebook nbformat's
schema rejects (at the cell it names), and a notebook whose kernel is not Python.
"""

from __future__ import annotations

import json

from streamlint.extract import notebook_json
from streamlint.model.errors import InputError


def load(text: str, path: str) -> dict:
    """The notebook's JSON, checked against nbformat's schema; errors as `InputError`."""
    try:
        data = notebook_json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(path, err.lineno, err.colno - 1,
                         f"not a readable notebook: invalid JSON ({err.msg})") from None
    except RecursionError:
        raise InputError(path, 1, 0, "not a readable notebook: nested too deeply") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        major = data.get("nbformat") if isinstance(data, dict) else None
        if isinstance(major, int) and major < 4:
            raise InputError(path, 1, 0, f"an nbformat {major} notebook: streamlint reads "
                             "nbformat 4 (open and save it with a current Jupyter)")
        raise InputError(path, 1, 0, "not a Jupyter notebook: no list of cells")
    major, minor = data.get("nbformat"), data.get("nbformat_minor")
    if type(major) is int and major < 4:
        raise InputError(path, 1, 0, f"an nbformat {major} notebook: streamlint reads "
                         "nbformat 4 (open and save it with a current Jupyter)")
    if type(major) is not int or type(minor) is not int or major != 4:
        # nbformat's own validator asserts (or imports a `v99` module) on these: a clear
        # refusal here, never its traceback.
        raise InputError(path, 1, 0, "not a valid notebook: `nbformat` must be 4 and "
                         f"`nbformat_minor` a number (found {major!r} and {minor!r})")
    _validate(data, path, text)
    language = _language(data)
    if language is not None and language.lower() not in ("python", "python3", "pyspark"):
        raise InputError(path, 1, 0, f"a {language} notebook: streamlint reads Python "
                         "notebooks only")
    return data


def _validate(data: dict, path: str, text: str) -> None:
    import warnings

    import nbformat

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nbformat.validate(data)
    except nbformat.ValidationError as err:
        where = list(getattr(err, "absolute_path", ()) or ())
        line, column = 1, 0
        if len(where) >= 2 and where[0] == "cells" and isinstance(where[1], int) and (
                where[1] < len(data["cells"])):
            cell = data["cells"][where[1]]
            if isinstance(cell, notebook_json.AtDict):
                line, column = notebook_json.Positions(text).at(cell.start)
        message = str(getattr(err, "message", err)).splitlines()[0]
        raise InputError(path, line, column, f"not a valid notebook: {message}") from None
    except (AssertionError, ImportError, TypeError, ValueError, KeyError) as err:
        # What the schema check itself chokes on, as a refusal rather than its traceback.
        raise InputError(path, 1, 0, f"not a valid notebook: {err}") from None


def _language(data: dict) -> str | None:
    """The notebook's kernel language, from any of the places tools write it."""
    metadata = data.get("metadata")
    if not isinstance(metadata, dict):
        return None
    databricks = metadata.get("application/vnd.databricks.v1+notebook")
    for holder, key in ((metadata.get("kernelspec"), "language"),
                        (metadata.get("language_info"), "name"), (databricks, "language")):
        if isinstance(holder, dict) and isinstance(holder.get(key), str):
            return holder[key]
    return None
