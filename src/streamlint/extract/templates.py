"""Strings built from known text and unresolved values: `f"{root}/orders"`, `root + "/x"`,
`os.path.join(root, "x")`, `"/".join([root, "x"])`, `"{}/x".format(root)`, `"%s/x" % root`.

Each builder returns a plain `str` when every part is known, a `Template` when some text is
known and some is not, an `Unknown` when no text is known, and None when it cannot say what
the string is (a format spec it does not model, a list of unknown length): the caller then
keeps its old, opaque `Unknown`. Adjacent known text is merged and the parts alternate (known
text at even positions), so one string built in two ways is one value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from streamlint.extract.budget import MAX_VALUE
from streamlint.extract.spark_values import Col
from streamlint.extract.values import EnvDefault, PathValue
from streamlint.model import Template, Unknown, code_of, origins_of
from streamlint.model.expr import render
from streamlint.model.values import STARRED

Piece = str | Unknown | Template
MAX_PARTS = 201  # 100 unresolved parts


def is_piece(value: Any) -> bool:
    """A value that can be part of a built string."""
    if isinstance(value, Unknown):
        return not value.text.startswith(STARRED)
    return isinstance(value, str | Template)


def build(pieces: Iterable[Piece]) -> str | Unknown | Template:
    """The string of `pieces` laid end to end, in the simplest form that holds it. A known
    string with a deployment default in it (a widget's, an environment variable's) is itself
    such a default: another deployment may give it other text."""
    pieces = list(pieces)
    built = _build(pieces)
    if isinstance(built, str) and any(isinstance(p, EnvDefault) for p in pieces):
        return EnvDefault(built, tuple(dict.fromkeys(o for p in pieces for o in origins_of(p))))
    return built


def _build(pieces: list[Piece]) -> str | Unknown | Template:
    parts: list[str | Unknown] = [""]
    for piece in pieces:
        for part in piece.parts if isinstance(piece, Template) else (piece,):
            if isinstance(part, str):
                parts[-1] += part
            else:
                parts.extend((part, ""))
    if len(parts) == 1:
        return parts[0]  # type: ignore[return-value]  # one known string
    if not any(parts[0::2]):
        unknowns = parts[1::2]
        if len(unknowns) == 1:
            return unknowns[0]  # f"{x}" is x, as a string
        return Unknown("".join(_piece(u) for u in unknowns),
                       shown="".join("{" + str(u) + "}" for u in unknowns))
    template = Template(tuple(parts))
    if len(parts) > MAX_PARTS or sum(
            len(p) if isinstance(p, str) else len(p.text) for p in parts) > MAX_VALUE:
        # Too big to keep apart (a string grown in a loop): one unknown, named by a digest
        # of all of it, so two different ones never compare equal.
        import hashlib

        digest = hashlib.sha256(repr(template.parts).encode()).hexdigest()[:16]
        return Unknown(f"<a string built from {len(parts) // 2} unresolved parts, #{digest}>",
                       shown=f"a string built from {len(parts) // 2} values known at run time")
    return template


def as_written(value: Any) -> str:
    """A value in a message as the code writes it: a string quoted, a column as its
    expression, a value known only at run time as its code."""
    if isinstance(value, Unknown | Template):
        return code_of(value)
    if isinstance(value, Col):
        return render(value.expr)
    if value is None or isinstance(value, str | int | float | bool | tuple | dict):
        return repr(value)
    return f"a {type(value).__name__}"


def formatted(value: Any, plain: bool, code: Callable[[], str]) -> Piece:
    """One `{...}` of an f-string: its text, or the unresolved value; with a format spec or
    a conversion, the part as written (`{n:03d}` is not `{n:04d}`)."""
    if plain and isinstance(value, EnvDefault):
        return value  # still a deployment's default: `build` keeps it one
    if plain and origins_of(value):
        return EnvDefault(str(value), origins_of(value))  # a number from one
    if plain and isinstance(value, str | int | float):
        return str(value)
    if plain and is_piece(value):
        return value
    if plain and isinstance(value, PathValue):
        return value.text()  # `f"{HERE}/chk"` with HERE = os.path.dirname(__file__)
    if plain:  # an object (a method, an instance): named by what it is, shown as written
        return Unknown(value.text if isinstance(value, Unknown) else repr(value),
                       shown=code())
    return Unknown(code())


def starred(value: Any) -> Any:
    """`*xs` with xs unresolved: any number of values, marked so (`model.values`)."""
    if isinstance(value, Unknown) and not value.text.startswith(STARRED):
        return Unknown(STARRED + value.text, value.unread,
                       STARRED + str(value) if value.shown else "")
    return value


def concat(left: Any, right: Any) -> str | Unknown | Template | None:
    """`left + right` for strings with unresolved parts."""
    if is_piece(left) and is_piece(right):
        return build((left, right))
    return None


def path_join(args: list[Any]) -> str | Unknown | Template | None:
    """`os.path.join(root, "a", "b")` (POSIX, as on a cluster) with an unresolved first part.

    Only the first part may be unresolved: a later unresolved part could be absolute and
    replace everything before it. An unresolved part is taken not to end with "/"; if it
    does, the path has "//" where Hadoop's `Path` (what Spark opens) reads one "/".
    """
    if not args or not is_piece(args[0]) or not all(isinstance(a, str) for a in args[1:]):
        return None
    result: Piece = args[0]
    for part in args[1:]:
        if part.startswith("/"):
            result = part
        elif isinstance(result, str) and (result == "" or result.endswith("/")):
            result += part
        elif isinstance(result, Template) and str(result.parts[-1]).endswith("/"):
            result = build((result, part))
        else:
            result = build((result, "/" + part))
    return build((result,))


def sep_join(sep: str, items: Any) -> str | Unknown | Template | None:
    """`sep.join([a, "b"])` over a list of known length whose elements may be unresolved."""
    if not isinstance(items, tuple) or not all(is_piece(i) for i in items):
        return None
    pieces: list[Piece] = []
    for i, item in enumerate(items):
        if i:
            pieces.append(sep)
        pieces.append(item)
    return build(pieces)


def str_format(text: str, args: list[Any], kwargs: dict[str, Any]
               ) -> str | Unknown | Template | None:
    """`"{}/{name}".format(root, name="x")` with unresolved arguments in plain fields."""
    import string

    pieces: list[Piece] = []
    auto = 0
    try:
        fields = list(string.Formatter().parse(text))
    except ValueError:
        return None
    for literal, field, spec, conversion in fields:
        pieces.append(literal)
        if field is None:
            continue
        if field == "":
            key: int | str = auto
            auto += 1
        else:
            key = int(field) if field.isdigit() else field
        if isinstance(key, str) and not key.isidentifier():
            return None  # "{0.attr}", "{a[0]}": not modelled
        value = (args[key] if isinstance(key, int) and key < len(args)
                 else kwargs.get(key) if isinstance(key, str) else None)
        if isinstance(value, str | int | float) and not spec and not conversion:
            pieces.append(str(value))
        elif is_piece(value) and not spec and not conversion:
            pieces.append(value)
        else:
            return None
    return build(pieces)


def percent_format(text: str, right: Any) -> str | Unknown | Template | None:
    """`"%s/orders" % root` (only `%s` and `%%`) with unresolved arguments."""
    values = list(right) if isinstance(right, tuple) else [right]
    pieces: list[Piece] = []
    chunks = text.split("%")
    pieces.append(chunks[0])
    i = 1
    while i < len(chunks):
        chunk = chunks[i]
        if chunk == "" and i + 1 < len(chunks):  # "%%"
            pieces.append("%" + chunks[i + 1])
            i += 2
            continue
        if not chunk.startswith("s") or not values:
            return None
        value = values.pop(0)
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = str(value)
        if not is_piece(value):
            return None
        pieces.extend((value, chunk[1:]))
        i += 1
    return None if values else build(pieces)


def _piece(value: Unknown) -> str:
    return value.text if value.text.startswith("{") else "{" + value.text + "}"
