"""Command-line arguments a job declares with argparse, for the interpreter (via `registry`).

`parser.add_argument("--topic", default="orders")` then `args = parser.parse_args()` gives
`args.topic`: the default unless the job is started with another value, like
`os.environ.get(key, default)` (an `Overridable` naming the argument). An argument without a
default is known only at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import bundles, registry
from streamlint.extract.values import EnvDefault, FunctionRef
from streamlint.model import Unknown, origins_of
from streamlint.model.records import factory, record

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter


@record(frozen=False)
class ArgumentParser:
    """An `argparse.ArgumentParser` and the defaults of the arguments declared so far."""

    defaults: dict[str, Any] = factory(dict)
    flags: dict[str, str] = factory(dict)  # dest -> how the command line names it


@record
class Arguments:
    """What `parse_args()` returns: an attribute per argument."""

    parser: ArgumentParser


@registry.library("argparse")
def call_argparse(interp: Interpreter, func: FunctionRef, args: list[Any],
                  kwargs: dict[str, Any], node: cst.Call) -> Any:
    if func.name == "ArgumentParser":
        return ArgumentParser()
    return registry.NEXT


@registry.method(ArgumentParser)
def parser_method(interp: Interpreter, target: ArgumentParser, name: str, args: list[Any],
                  kwargs: dict[str, Any], node: cst.Call) -> Any:
    if name == "add_argument":
        names = [a for a in args if isinstance(a, str)]
        if not names:
            return None
        dest = kwargs.get("dest")
        if not isinstance(dest, str):
            longs = [n for n in names if n.startswith("--")]
            dest = (longs or names)[0].lstrip("-").replace("-", "_")
        target.flags[dest] = (longs[0] if (longs := [n for n in names if n.startswith("--")])
                              else names[0])
        default = kwargs.get("default")
        if isinstance(default, str):
            default = EnvDefault(default, (*origins_of(default),
                                           (f"argument {target.flags[dest]}", str(default))))
        target.defaults[dest] = default
        return None
    if name == "parse_args":
        return Arguments(target)
    if name == "parse_known_args":
        return (Arguments(target), Unknown("the other arguments"))
    if name == "set_defaults":
        target.defaults.update(kwargs)
        return None
    return Unknown(interp.code(node))


@registry.attribute(Arguments)
def argument(interp: Interpreter, target: Arguments, name: str, node: cst.CSTNode) -> Any:
    value = target.parser.defaults.get(name)
    flag = target.parser.flags.get(name, name)
    # A Python file task of the job's bundle passes `--flag value`: its value wins.
    given = bundles.argument(bundles.of_loader(interp.loader), flag, value) \
        if flag.startswith("--") else None
    if isinstance(given, str) and origins_of(value):
        return EnvDefault(given, origins_of(value))
    if given is not None:
        return given
    if value is None:
        return Unknown(f"the argument {flag}")
    return value
