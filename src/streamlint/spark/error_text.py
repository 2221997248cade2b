"""What a Spark error says, in one line for a report.

Spark's errors arrive wrapped: in Py4J's message naming the JVM call, in a streaming query's
`terminated with exception`, in the stand-in sink's Python proxy, with the JVM's stack trace
after them. These functions find the sentence and the error class an operator would read.
"""

from __future__ import annotations

import re

_ERROR_CLASS = re.compile(r"\[([A-Z][A-Z0-9_]+(?:\.[A-Z0-9_]+)*)\]")


def error_text(err: BaseException) -> str:
    """The message of a (Py4J-wrapped) Spark error, without the JVM stack trace."""
    text = str(err) or type(err).__name__
    for marker in ("\nJVM stacktrace:", "\n\tat "):
        text = text.split(marker, 1)[0]
    return text.strip()


def error_class(message: str) -> str | None:
    """The innermost error class on the first line (`[STREAM_FAILED] ... [X] ...` gives X)."""
    classes = _ERROR_CLASS.findall(message.split("\n", 1)[0])
    return classes[-1] if classes else None


_TASK_FAILURE = re.compile(r"most recent failure: .*?\): ([^\n]+)")
_PYTHON_ERROR = re.compile(r"^[\w.]*(?:Error|Exception): (?!An error occurred while calling)[^\n]+",
                           re.MULTILINE)


def error_summary(message: str) -> str:
    lines = message.split("\n")
    first = lines[0]
    if first.startswith("An error occurred while calling") and len(lines) > 1:
        # Py4J's own first line names only the JVM call; the Java exception follows it.
        first = lines[1].lstrip(": ").strip() or first
    if "raised by the Python Proxy" in first:
        # A batch failed inside the stand-in sink's collect(): say what failed there, Spark's
        # task or the job's own Python (a stateful function's error).
        failure = _TASK_FAILURE.search(message)
        raised = _PYTHON_ERROR.findall(message)
        if failure:
            first = failure.group(1)
        elif raised:
            first = raised[-1]
    return unwrapped(first)


def first_line(err: BaseException) -> str:
    """An error's first line, or the name of its type when it says nothing."""
    return (str(err).strip() or type(err).__name__).split("\n", 1)[0]


def unwrapped(line: str) -> str:
    """A failed query's message without the `Query ... terminated with exception: ` that
    Spark's StreamingQueryException puts before the cause."""
    return line.split("terminated with exception: ", 1)[-1]
