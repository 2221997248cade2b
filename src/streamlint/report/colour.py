"""Colours for the text report on a terminal: severities, the verdict, the next step.

Only for a person at a terminal: never when the output is piped or redirected, never when
`NO_COLOR` is set to anything (https://no-color.org). Added after rendering, so the text a
tool reads is the same with colours stripped.
"""

from __future__ import annotations

import os
import re
from typing import TextIO

RESET = "\x1b[0m"
STYLE = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m",
         "incompatible": "\x1b[1;31m", "review": "\x1b[1;33m", "compatible": "\x1b[1;32m",
         "next": "\x1b[1m", "removed": "\x1b[31m", "added": "\x1b[32m", "dim": "\x1b[2m"}
SEVERITY = re.compile(r"^(.*?)\b(error|warning|note)(\[[A-Z]+\d+\])")
VERDICT = re.compile(r"^(incompatible|review|compatible|no verdict)(:)")


def on_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def wanted(stream: TextIO) -> bool:
    """Colours for this stream: a terminal, and NO_COLOR unset or empty."""
    return not os.environ.get("NO_COLOR") and on_terminal(stream)


def _paint(text: str, style: str) -> str:
    return f"{STYLE[style]}{text}{RESET}"


def colourise(report: str) -> str:
    out = []
    for line in report.split("\n"):
        severity = SEVERITY.match(line)
        verdict = VERDICT.match(line)
        if severity:
            start, word, code = severity.groups()
            line = (start + _paint(word + code, word) + line[severity.end():])
        elif verdict and verdict.group(1) in STYLE:
            line = _paint(verdict.group(1), verdict.group(1)) + line[verdict.end(1):]
        elif line.startswith("  next: "):
            line = "  " + _paint(line[2:], "next")
        elif line.startswith("    -    "):
            line = _paint(line, "removed")
        elif line.startswith("    +    "):
            line = _paint(line, "added")
        elif line.startswith(("    | ", "  see: ")):
            line = _paint(line, "dim")
        out.append(line)
    return "\n".join(out)


def fit(report: str, width: int) -> str:
    """Lines longer than the terminal wrapped at word boundaries, the continuation indented
    under the line's own text; quoted source (`    | `) and patches stay as written."""
    import textwrap

    if width < 40:
        return report
    out = []
    for line in report.split("\n"):
        if len(line) <= width or line.lstrip().startswith(("| ", "+ ", "- ")):
            out.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip()))
        out.extend(textwrap.wrap(line, width=width, initial_indent="",
                                 subsequent_indent=indent + "  ", break_long_words=False,
                                 break_on_hyphens=False) or [line])
    return "\n".join(out)


def write(fmt: str, text: str) -> None:
    """A report on stdout; a text report in colour, and fitted to the terminal's width, when
    a person reads it there."""
    import sys

    if fmt == "text":
        if on_terminal(sys.stdout):  # a person reads it: lines fit the terminal's width
            # Imported here: shutil loads the compression modules (2 ms), for a terminal only.
            import shutil

            text = fit(text, shutil.get_terminal_size().columns)
        if wanted(sys.stdout):
            text = colourise(text)
    sys.stdout.write(text)
