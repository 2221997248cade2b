"""What each notebook cell is, and the Python a reader of the notebook would run from it.

Shared by the Jupyter and the Databricks front ends: a cell is classified by its first line
(a cell magic `%%sql`, a Databricks language line `%sql`, `%md`, `%scala`, ...), and in a
Python cell every line magic and shell line (`%pip install x`, `!ls`, `files = !ls`,
`%matplotlib inline`, `obj?`) becomes a neutral Python line, one line for one line, so that
locations stay the cell's own. `%run PATH` becomes `__streamlint_run__("PATH")`, which the
interpreter runs as the target's code in the same namespace (see `notebook_run`).
"""

from __future__ import annotations

import ast
import re
import shlex

from streamlint.extract.removals import REMOVE_HOOK, shell_removal

RUN_HOOK = "__streamlint_run__"
MAGIC_VALUE = "__streamlint_magic__"  # an unknown callee: a name bound from a magic is unknown

# A Databricks cell's first line names its language; in a Jupyter notebook exported from
# Databricks the same line starts the cell. `%pip`, `%time` and the like are line magics.
CELL_LANGUAGES = {"md": "markdown", "md-sandbox": "markdown", "sql": "sql", "python": "python",
                  "pyspark": "python", "scala": "scala", "r": "r", "sh": "shell", "fs": "shell"}
# Jupyter cell magics whose body is Python that runs in the notebook's namespace.
PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "python", "python3", "pyspark",
                      "local"}
SQL_CELL_MAGICS = {"sql", "sparksql", "spark_sql"}
# Line magics whose argument is a Python statement that runs.
STATEMENT_MAGICS = ("%time ", "%timeit ", "%prun ")

_MAGIC_ASSIGN = re.compile(r"^(\s*)([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*[%!]")
_HELP = re.compile(r"^\s*(?:\?{1,2}[\w.]+|[\w.]+\?{1,2})\s*$")
_STREAMING = re.compile(r"\b(readStream|writeStream)\b")


def cell_language(lines: list[str]) -> tuple[str, int]:
    """("python" | "sql" | "markdown" | another language, index of the language line).

    The index is -1 when the cell has no language line (a plain Python cell).
    """
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("%%"):
            name = stripped[2:].split(maxsplit=1)[0].lower() if stripped[2:].strip() else ""
            if name in SQL_CELL_MAGICS:
                return "sql", i
            if name in PYTHON_CELL_MAGICS:
                return "python", i
            if name in ("sh", "bash"):
                return "shell", i
            return f"%%{name}", i
        if stripped.startswith("%"):
            name = stripped[1:].split(maxsplit=1)[0].lower() if stripped[1:].strip() else ""
            language = CELL_LANGUAGES.get(name)
            if language is not None:
                return language, i
        return "python", -1
    return "python", -1


def python_lines(lines: list[str]) -> list[str]:
    """The cell's lines with every magic made neutral Python, line for line.

    A cell that is valid Python as written is left alone (a line starting with `%` inside a
    triple-quoted string is text, not a magic).
    """
    if not any(_is_magic(line) for line in lines):
        return lines
    try:
        ast.parse("\n".join(lines))
        return lines
    except (SyntaxError, ValueError):
        pass
    out: list[str] = []
    continued = False
    for line in lines:
        if continued:  # `!pip install a \` goes on in the next line
            out.append("")
            continued = line.rstrip().endswith("\\")
            continue
        if _is_magic(line):
            out.append(neutral(line))
            continued = line.rstrip().endswith("\\")
        else:
            out.append(line)
    return out


def _is_magic(line: str) -> bool:
    stripped = line.lstrip()
    return (stripped.startswith(("%", "!")) or _MAGIC_ASSIGN.match(line) is not None
            or _HELP.match(line) is not None)


def neutral(line: str) -> str:
    """One magic line as the Python statement standing for it (same indentation)."""
    indent = line[: len(line) - len(line.lstrip())]
    stripped = line.strip()
    if stripped.startswith("%run ") or stripped == "%run":
        return indent + run_call(stripped[len("%run"):])
    for magic in STATEMENT_MAGICS:
        if stripped.startswith(magic):  # `%time q = df.writeStream...` runs its statement
            return indent + " " * len(magic) + stripped[len(magic):]
    assign = _MAGIC_ASSIGN.match(line)
    if assign is not None:
        return f"{assign.group(1)}{assign.group(2)} = {MAGIC_VALUE}()"
    paths = _removed(stripped)
    if paths:  # `!rm -rf chk`: a checkpoint cleared before the next query (extract/removals)
        return indent + _removal_call(paths, local=not stripped.startswith("%fs "))
    return indent + "pass"


def _removal_call(paths: list[str], local: bool) -> str:
    """`%fs rm` works on the cluster's file system, `!rm` and `%sh rm` on the driver's disk."""
    return f"{REMOVE_HOOK}({', '.join(repr(p) for p in paths)}, local={local})"


def shell_lines(lines: list[str], at: int) -> list[str]:
    """A `%sh` or `%fs` cell as Python, line for line: its `rm -r` commands become removals
    (a checkpoint cleared before the next query), every other line nothing."""
    out = []
    local = not (0 <= at < len(lines) and lines[at].strip().startswith("%fs"))
    for i, line in enumerate(lines):
        command = line.strip()
        if i == at:
            command = command.split(maxsplit=1)[1] if len(command.split(maxsplit=1)) > 1 else ""
        paths = shell_removal(command) if command else None
        out.append(_removal_call(paths, local) if paths else "")
    return out


def _removed(stripped: str) -> list[str] | None:
    for magic in ("!", "%sh ", "%fs "):
        if stripped.startswith(magic):
            return shell_removal(stripped[len(magic):])
    return None


def run_target(argument: str) -> str:
    """The notebook a `%run` names: `./config`, `"../common/setup"`, `x.py -i` -> the path.

    Options (`-i`, `-n`) and Databricks widget arguments (`$env=prod`) are dropped.
    """
    try:
        words = shlex.split(argument)
    except ValueError:
        words = argument.split()
    words = [w for w in words if not w.startswith(("-", "$"))]
    return words[0] if words else ""


def run_call(argument: str) -> str:
    return f"{RUN_HOOK}({run_target(argument)!r})"


def mentions_streaming(lines: list[str]) -> bool:
    return any(_STREAMING.search(line) for line in lines)


def first_words(lines: list[str], limit: int = 48) -> str:
    """The start of a cell's text, for a message: `SELECT count(*) FROM events…`."""
    words = " ".join(" ".join(lines).split())
    return words if len(words) <= limit else words[: limit - 1].rstrip() + "…"
