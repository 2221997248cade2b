"""One directory, however a job spells it: the normal form of a checkpoint or output path.

Hadoop's `Path` drops a trailing slash and collapses `//` inside a path, so `/chk/orders/` and
`/chk/orders` are one directory; `s3a://`, `s3n://` and `s3://` name one bucket (the scheme
picks a client, not a place); on Databricks `dbfs:/x` and the FUSE mount `/dbfs/x` are one
file, and `file:/x`, `file:///x` and `/x` one local file. Every place that compares two paths
(query identity, a moved checkpoint, a moved file sink or file source) compares these forms.
"""

from __future__ import annotations

import posixpath

from streamlint.model import Template, Unknown

# Schemes that are other clients for the same store.
_SAME_STORE = {"s3a": "s3", "s3n": "s3"}


def _collapse(path: str) -> str:
    while "//" in path:
        path = path.replace("//", "/")
    return path


def normal_path(path: str) -> str:
    """The normal form of a path written as text (a path-less string comes back unchanged
    but for surrounding whitespace)."""
    text = path.strip()
    if text == "/dbfs" or text.startswith("/dbfs/"):
        text = "dbfs:" + text[len("/dbfs"):]
    scheme, sep, rest = text.partition("://")
    if sep and scheme and "/" not in scheme:
        scheme = scheme.lower()
        if scheme == "file":
            return _collapse("/" + rest).rstrip("/") or "/"
        if scheme == "dbfs":
            return "dbfs:" + (_collapse("/" + rest).rstrip("/") or "/")
        scheme = _SAME_STORE.get(scheme, scheme)
        return f"{scheme}://{_collapse(rest).rstrip('/')}"
    for prefix in ("file:", "dbfs:"):
        if text.lower().startswith(prefix):
            local = _collapse(text[len(prefix):]).rstrip("/") or "/"
            return local if prefix == "file:" else "dbfs:" + local
    if "/" not in text:
        return text
    return _collapse(text).rstrip("/") or "/"


def normal_value(value: object) -> object:
    """`normal_path` of a path value: a string, or the known ends of a partly-known one
    (`f"s3a://{bucket}/chk/"` keeps its unresolved middle). Anything else is as given."""
    if isinstance(value, str):
        return normal_path(value)
    if isinstance(value, Template) and value.parts:
        parts: list[str | Unknown] = list(value.parts)
        if isinstance(parts[0], str) and "://" in parts[0]:
            scheme, _, rest = parts[0].partition("://")
            parts[0] = f"{_SAME_STORE.get(scheme.lower(), scheme.lower())}://{rest}"
        if isinstance(parts[-1], str) and len(parts) > 1:
            parts[-1] = parts[-1].rstrip("/")
        return Template(tuple(p for p in parts if p != ""))
    return value


def same_path(a: object, b: object) -> bool:
    """Whether two path values name one directory (unknowns compare by their code; two
    choices on one run-time condition, branch by branch)."""
    if a == b or normal_value(a) == normal_value(b):
        return True
    if (isinstance(a, Unknown) and isinstance(b, Unknown) and a.alternatives and a.condition
            and a.condition == b.condition and len(a.alternatives) == len(b.alternatives)):
        return all(same_path(x, y) for x, y in zip(a.alternatives, b.alternatives, strict=True))
    return False


def in_repository(relative: str) -> Unknown:
    """`__file__`, or a path made from it (`relative` to the repository's root)."""
    place = posixpath.normpath(relative) if relative else "."
    return Unknown(f"the path of {place} on the cluster", repository=place)


def repository_place(value: object) -> str | None:
    """The place in the job's repository of a path made from `__file__` (`os.path.join(HERE,
    "chk")`, or `f"{HERE}/chk"`), else None (`streamlint.model.identity` names a query's
    checkpoint by it)."""
    if isinstance(value, Unknown):
        return value.repository or None
    if not isinstance(value, Template) or len(value.parts) != 3:
        return None
    head, base, tail = value.parts
    if head != "" or not isinstance(base, Unknown) or not base.repository \
            or not isinstance(tail, str) or not tail.startswith("/"):
        return None
    return posixpath.normpath(posixpath.join(base.repository, tail.lstrip("/")))
