"""Configuration files a job reads: `open`, `pathlib.Path`, json, yaml, tomllib / tomli,
configparser and python-dotenv, for the interpreter (via `registry`).

A file's content is a value like any other: `yaml.safe_load(open("conf/app.yaml"))` is the
dict the file holds, read through the extractor's `Project` (the disk for `diff`, each git
ref for `check`), so a topic renamed in the YAML is a renamed topic. Files are parsed, never
run: YAML only with `safe_load` (whatever loader the job names), INI with configparser's own
parser. A path is resolved as the job would (relative to the repository root, else to the
module's folder; `os.path.dirname(__file__)` is the module's folder). Where the path is not
known, or the file is not in the repository, the value is an `Unknown` whose `unread` names
the file: the same code on both sides is then not the same value, and the diff asks about
every restart-relevant fact it reaches (`model.Input`, kind "unread"). Here are the
libraries' handlers; finding a file, reading it and parsing its text is
`extract/repo_files.py`.
"""

from __future__ import annotations

import posixpath
from types import ModuleType
from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import registry, templates
from streamlint.extract.repo_files import RepoFile, _digest, from_data, load, read_file, unread
from streamlint.extract.values import BoundMethod, FunctionRef, Items, PathValue
from streamlint.model import Origin, Overridable, Unknown, origins_of
from streamlint.model.records import record

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter

# Files a job may read besides its modules: configuration, and SQL to run; `check` hands
# each job those of its ref (check_modules.py).
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml", ".ini", ".cfg", ".conf", ".env", ".sql")


@record(frozen=False)
class Ini:
    """A `configparser.ConfigParser`: the sections of the files it read (None: a file it was
    given could not be read, so any key may come from it)."""

    sections: dict[str, dict[str, str]]
    defaults: dict[str, str]
    unread: str = ""
    raw: str = ""  # the text read so far, for interpolation
    origins: tuple[tuple[str, str], ...] = ()  # as `RepoFile.origins`, of any file read


# -- the libraries ---------------------------------------------------------------------------


@registry.library("json", "yaml", "tomllib", "tomli")
def call_parser(interp: Interpreter, func: FunctionRef, args: list[Any],
                kwargs: dict[str, Any], node: cst.Call) -> Any:
    kind = {"json": "json", "yaml": "yaml", "tomllib": "toml", "tomli": "toml"}[func.module]
    if func.name in ("load", "loads", "safe_load", "full_load", "unsafe_load") and args:
        return load(interp, kind, args[0], node)
    if func.name.endswith("load_all") or func.name in ("parse", "compose"):
        # Content read in a way not followed here: never the same value twice.
        return unread(interp.code(node), f"{interp.code(node)} (not followed)")
    return registry.NEXT


@registry.library("pathlib")
def call_pathlib(interp: Interpreter, func: FunctionRef, args: list[Any],
                 kwargs: dict[str, Any], node: cst.Call) -> Any:
    if func.name in ("Path", "PurePath", "PosixPath") and len(args) >= 1:
        parts = [a.path if isinstance(a, PathValue) else a for a in args]
        if all(isinstance(a, str) and not origins_of(a) for a in parts):
            anchored = any(isinstance(a, PathValue) and a.anchored for a in args)
            return PathValue(posixpath.join(*parts), anchored)
    return registry.NEXT


@registry.attribute(PathValue)
def path_attribute(interp: Interpreter, target: PathValue, name: str,
                   node: cst.CSTNode) -> Any:
    if name == "parent":
        return target.moved(posixpath.dirname(target.path))
    if name == "name":
        return posixpath.basename(target.path)
    return BoundMethod(target, name)


@registry.method(PathValue)
def path_method(interp: Interpreter, target: PathValue, name: str, args: list[Any],
                kwargs: dict[str, Any], node: cst.Call) -> Any:
    if name in ("resolve", "absolute", "expanduser"):
        return target
    if name in ("glob", "rglob", "iterdir"):
        # Which files it finds is known at run time: whatever is read from one is unread.
        return unread(interp.code(node), f"a file of {target.path or '.'} its code finds "
                      f"with .{name}() at run time")
    if name == "with_name" and len(args) == 1 and isinstance(args[0], str):
        return target.moved(posixpath.join(posixpath.dirname(target.path), args[0]))
    if name == "with_suffix" and len(args) == 1 and isinstance(args[0], str):
        return target.moved(posixpath.splitext(target.path)[0] + args[0])
    if name == "joinpath" and all(isinstance(a, str) for a in args):
        return target.moved(posixpath.join(target.path, *args))
    if name in ("as_posix", "__str__", "__fspath__"):
        return target.text()
    if name in ("read_text", "read_bytes", "open"):
        found = read_file(interp, target.path, interp.code(node))
        if name == "open":
            return found
        return found.text if found.text is not None else unread(interp.code(node),
                                                                 found.unread)
    return Unknown(interp.code(node))


def _path_divide(op: str, left: Any, right: Any) -> Any:
    if op == "Divide" and isinstance(left, PathValue) and isinstance(right, str):
        return left.moved(posixpath.join(left.path, right))
    if op == "Add":
        # `HERE + "/chk"` with HERE = os.path.dirname(__file__): text, built as f"{HERE}/chk".
        joined = templates.concat(*(v.text() if isinstance(v, PathValue) else v
                                    for v in (left, right)))
        if joined is not None:
            return joined
    return Unknown(f"{left} {_SYMBOLS.get(op, op)} {right}")


_SYMBOLS = {"Divide": "/", "Add": "+"}


registry.operators(PathValue, _path_divide, lambda op, value: Unknown(str(value)))


def open_file(interp: Interpreter, args: list[Any], kwargs: dict[str, Any],
              node: cst.Call) -> Any:
    """The builtin `open(path)`: the repository's file (what the parsers above read)."""
    path = args[0] if args else kwargs.get("file")
    return read_file(interp, path, interp.code(node))


@registry.method(RepoFile)
def file_method(interp: Interpreter, target: RepoFile, name: str, args: list[Any],
                kwargs: dict[str, Any], node: cst.Call) -> Any:
    code = interp.code(node)
    if name in ("close", "__exit__"):
        return None
    if name == "__enter__":
        return target
    if target.text is None:
        return unread(code, target.unread)
    if name == "read" and not args:
        return target.text
    if name == "readlines" and not args:
        return Items(target.text.splitlines(keepends=True))
    # Read some other way (`readline()`, a size): still the file's content, not followed.
    return unread(code, f"{target.path} (read with .{name}(), which streamlint does not follow)")


# -- configparser ----------------------------------------------------------------------------


@registry.library("configparser")
def call_configparser(interp: Interpreter, func: FunctionRef, args: list[Any],
                      kwargs: dict[str, Any], node: cst.Call) -> Any:
    if func.name in ("ConfigParser", "RawConfigParser", "SafeConfigParser"):
        return Ini({}, {})
    return registry.NEXT


def _configparser() -> ModuleType:
    """The standard library's INI parser, imported for a job that reads an INI file: it is
    about 1 ms of every `diff` otherwise (bench/bench_diff.py), where no job uses it."""
    import configparser

    return configparser


def _parse_ini(ini: Ini, text: str) -> bool:
    configparser = _configparser()
    parser = configparser.ConfigParser(interpolation=configparser.BasicInterpolation())
    try:
        parser.read_string(ini.raw + "\n" + text)
        sections = {name: dict(parser.items(name)) for name in parser.sections()}
        defaults = dict(parser.defaults())
    except (configparser.Error, ValueError):
        return False
    ini.raw += "\n" + text
    ini.sections, ini.defaults = sections, defaults
    return True


@registry.method(Ini)
def ini_method(interp: Interpreter, target: Ini, name: str, args: list[Any],
               kwargs: dict[str, Any], node: cst.Call) -> Any:
    code = interp.code(node)
    if name in ("read", "read_file", "read_string"):
        given = args[0] if args else None
        if name == "read_string":
            files = [RepoFile(code, None, given) if isinstance(given, str) else
                     RepoFile(code, None, None, f"{code} (text known only at run time)")]
        else:
            paths = list(given) if isinstance(given, tuple) else [given]
            files = [read_file(interp, p, code) for p in paths]
        for found in files:
            if found.text is None or not _parse_ini(target, found.text):
                target.unread = target.unread or found.unread or f"{found.path} (not INI)"
            target.origins += found.origins
        return Items(f.path for f in files if f.text is not None)
    if name == "sections":
        return _or_unread(target, Items(target.sections), code)
    if name in ("get", "getint", "getfloat", "getboolean"):
        section = args[0] if args else kwargs.get("section")
        option = args[1] if len(args) > 1 else kwargs.get("option")
        return _ini_get(target, section, option, name, kwargs.get("fallback", _NONE), code)
    if name in ("has_section", "has_option"):
        return _or_unread(target, _has(target, args), code)
    return Unknown(code)


_NONE: Any = object()


def _has(target: Ini, args: list[Any]) -> Any:
    if not args or not isinstance(args[0], str):
        return Unknown("has_option")
    section = target.sections.get(args[0])
    if len(args) == 1:
        return section is not None
    return section is not None and isinstance(args[1], str) and args[1].lower() in section


def _or_unread(target: Ini, value: Any, code: str) -> Any:
    return unread(code, target.unread) if target.unread else value


def _ini_get(target: Ini, section: Any, option: Any, how: str, fallback: Any,
             code: str) -> Any:
    if not (isinstance(section, str) and isinstance(option, str)):
        return unread(code, target.unread) if target.unread else Unknown(code)
    values = target.sections.get(section)
    text = values.get(option.lower()) if values is not None else None
    if text is None and section == _configparser().DEFAULTSECT:
        text = target.defaults.get(option.lower())
    if text is None:
        if target.unread:
            return unread(code, target.unread)
        return Unknown(code) if fallback is _NONE else fallback
    converted: Any = text
    try:
        if how == "getint":
            converted = int(text)
        elif how == "getfloat":
            converted = float(text)
        elif how == "getboolean":
            converted = _configparser().ConfigParser.BOOLEAN_STATES[text.lower()]
    except (ValueError, KeyError):
        return Unknown(code)
    return Overridable(converted, target.origins) if isinstance(
        converted, str) and target.origins else converted


@registry.subscript(Ini)
def ini_section(target: Ini, key: Any) -> Any:
    if isinstance(key, str) and key in target.sections and not target.unread:
        return from_data({**target.defaults, **target.sections[key]}, target.origins)
    if isinstance(key, str) and target.unread:
        return unread(f"[{key!r}]", target.unread)
    return registry.NEXT


# -- python-dotenv ---------------------------------------------------------------------------


@registry.library("dotenv")
def call_dotenv(interp: Interpreter, func: FunctionRef, args: list[Any],
                kwargs: dict[str, Any], node: cst.Call) -> Any:
    """`load_dotenv()` puts a .env file's values in the environment, unless the environment
    already has them: each is a default a deployment overrides (`os.getenv`). `dotenv_values`
    is the file's content."""
    if func.name not in ("load_dotenv", "dotenv_values"):
        return registry.NEXT
    given = args[0] if args else kwargs.get("dotenv_path")
    found = read_file(interp, given, interp.code(node)) if given is not None else _find_env(
        interp)
    if found.text is None:
        return unread(interp.code(node), found.unread) if func.name == "dotenv_values" else \
            False
    values = parse_env(found.text)
    if func.name == "dotenv_values":
        return values
    interp.dotenv.update({k: v for k, v in values.items() if
                          kwargs.get("override") is True or k not in interp.dotenv})
    return True


def _find_env(interp: Interpreter) -> RepoFile:
    """python-dotenv's `find_dotenv()`: `.env` in the module's folder or one above it."""
    if interp.loader is None:
        return RepoFile(".env", None, None, ".env (no repository to read it from)")
    folder = posixpath.dirname(interp.context.relpath or interp.loader.project.job)
    while True:
        found = read_file(interp, posixpath.join(folder, ".env") if folder else ".env", ".env")
        if found.text is not None or not folder:
            return found
        folder = posixpath.dirname(folder)


def parse_env(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        value = value.strip()
        if value[:1] in ("'", '"') and value.endswith(value[0]) and len(value) > 1:
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values[key.strip()] = value
    return values


# -- what a file that could not be read gives ------------------------------------------------


@registry.subscript(Unknown)
def unread_item(target: Unknown, key: Any) -> Any:
    """`config["kafka"]["topic"]` of a file not read: still from that file."""
    if target.unread and isinstance(key, str | int):
        return unread(f"{target.text}[{key!r}]", target.unread, _child(target, key))
    return registry.NEXT


def _child(target: Unknown, key: str | int) -> Origin | None:
    """The origin of `target[key]`: that key of the file; unknown below what is not the
    file's content (`text.split(",")[0]`)."""
    return target.origin.child(key) if target.origin is not None else None


@registry.subscript(BoundMethod)
def unread_attribute_item(target: BoundMethod, key: Any) -> Any:
    """`config.kafka["topic"]` of a file not read."""
    owner = target.target
    if isinstance(owner, Unknown) and owner.unread and isinstance(key, str | int):
        return unread(f"{owner.text}.{target.name}[{key!r}]", owner.unread,
                      Origin("file", owner.unread, ("code", owner.text, target.name, key)))
    return registry.NEXT


def unread_attribute(target: Unknown, name: str) -> Any:
    """`config.kafka.topic`, `config.get(...)`, `text.strip()` of a file not read (pyspark_api.
    session hands an `Unknown` with `unread` here first): a method waiting to be called, or,
    used as a value, the attribute (`columns.plain`); either way still from that file."""
    return BoundMethod(target, name)


def unread_method(interp: Interpreter, target: Unknown, node: cst.Call, name: str = "",
                  args: tuple[Any, ...] = ()) -> Any:
    """A method `name` of a file's content not read: `config.get("topic")` is
    `config["topic"]` (with a default too: the version whose `[]` ran had the key, and the
    file itself stays a question, UN06); any other is known by its code."""
    if name == "get" and args and isinstance(args[0], str | int):
        return unread(interp.code(node), target.unread, _child(target, args[0]))
    return unread(interp.code(node), target.unread,
                  Origin("file", target.unread, ("code", interp.code(node))))


# -- a file handed to code streamlint cannot follow ------------------------------------------

@registry.handed
def handed_a_file(interp: Interpreter, result: Unknown, args: list[Any],
                  kwargs: dict[str, Any]) -> Unknown:
    """Code streamlint cannot follow, given the path of a configuration file: its result is
    unknown, but depends on the file. A file of the repository is named in the result with a
    digest of its text (an edit to it is a changed value); any other is not read."""
    for value in (*args, *kwargs.values()):
        path = value.path if isinstance(value, PathValue) else value
        if not (isinstance(path, str) and path.endswith(CONFIG_SUFFIXES)) or result.unread:
            continue
        found = read_file(interp, value, result.text)
        if found.text is None:
            return Unknown(result.text, found.unread, result.shown)
        return Unknown(f"{result.text} (reading {found.found} #{_digest(found.text)})",
                       shown=str(result))
    return result
