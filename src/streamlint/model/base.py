"""The model's values: where code was written (`Loc`), what is known only at run time and
where it comes from (`Unknown`, `Origin`, `Template`), the notes on code streamlint could not
read (`Note` and its kinds), and how a value is shown. Records of queries (`streamlint.model`)
are built from these."""

from __future__ import annotations

from typing import Any

from streamlint.model.records import record


@record
class Loc:
    """Where an element was written: 1-based line, 0-based column, like compilers print."""

    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column + 1}"


@record
class Origin:
    """Where a value known only at run time comes from, as data: two values of one origin are
    one value, however the code reads it (`config["topic"]`, `config.get("topic", False)`,
    `json.load(f)["topic"]`; `os.environ["TOPIC"]`, `os.getenv("TOPIC")`).

    kind "file": the key path `key` of the configuration file `name` names (as `Unknown.unread`
    says it); "environment": the environment variable `name`, no default."""

    kind: str
    name: str
    key: tuple[str | int, ...] = ()

    def child(self, key: str | int) -> Origin:
        return Origin(self.kind, self.name, (*self.key, key))


@record
class Unknown:
    """A value that static analysis cannot pin down; `text` is the code that produces it.

    Two unknowns with the same text compare equal: the same expression in both versions is the
    same value, so only a changed expression becomes a finding. Two with the same `origin`
    compare equal whatever their code: the same key of the same file is the same value.
    """

    text: str
    # A value read from a file streamlint could not read (its path unknown, or absent from the
    # repository): what was to be read. Two such values are the same code, never the same
    # value: the file may differ between the versions (`Input`, kind "unread").
    unread: str = ""
    # The code as the user wrote it, where `text` also names what the value depends on (the
    # values an expression reads, a digest of a list): reports show this, never compare it.
    shown: str = ""
    # A path made from `__file__`: where it lies on the cluster is not known, but its place in
    # the job's repository is (root-relative, POSIX; "." for the root). A run of the job
    # (`--confirm`) finds its query by that place (model/identity.py `query_path`).
    repository: str = ""
    origin: Origin | None = None
    # A dict known only at run time whose keys the code limits to these (`{OPTS[k]: v for k,
    # v in args.items() if k in OPTS}` holds only OPTS's values); None: any key. Its text
    # already names what limits them (the known dict it reads), so it is not compared.
    keys: tuple[str, ...] | None = None
    # A value a run-time condition chooses (`"/a" if IS_PROD else "/b"`): the values it may
    # take (each a string, a template or an unknown) and the condition, as its code ("" where
    # nested choices mix conditions). Its text already names them, so they are not compared;
    # the diff reads them to tell a value no branch keeps (model/values.py).
    alternatives: tuple[object, ...] = ()
    condition: str = ""

    __record_compare__ = ("identity", "unread")

    @property
    def identity(self) -> object:
        """What it is compared by: its origin where known, else its code."""
        return self.origin if self.origin is not None else self.text

    def __str__(self) -> str:
        return self.shown or self.text


def branches(first: object, second: object, condition: str) -> dict[str, object]:
    """The values a choice between two strings may take, nested choices opened up, and its
    condition ("" where a nested choice has its own): what the diff compares branch by branch
    (model.values). Nothing for any other value."""
    values: list[object] = []
    mixed = False
    for value in (first, second):
        if isinstance(value, Unknown) and value.alternatives:
            values.extend(value.alternatives)
            mixed = True
        elif isinstance(value, str | Template | Unknown):
            values.append(value)
        else:
            return {}
    return {"alternatives": tuple(values), "condition": "" if mixed else condition}


class Note(str):
    """A note on code streamlint could not read, whose text also names what the code depends
    on (the values it reads, a digest of a branch not read): compared as that text, so a
    change there is a changed note; shown to people as `shown`, the code as written."""

    shown: str

    def __new__(cls, text: str, shown: str = "") -> Note:
        note = super().__new__(cls, text)
        note.shown = shown or text
        return note

    @property
    def text(self) -> str:
        """The text it is compared as (`str()` and f-strings give `shown`)."""
        return str.__str__(self)

    def __str__(self) -> str:
        return self.shown

    def __format__(self, spec: str) -> str:
        return format(self.shown, spec)


class External(Note):
    """A note that a DataFrame comes from code streamlint cannot follow (a library's helper, a
    module outside the repository): compared as its text, which names that code."""


class Outcome(str):
    """A run-time condition the run itself decides (whether an exception is raised), never a
    deployment's setting: no deployment keeps to one of its branches (diff/forks.py)."""


class Fork(Note):
    """A note that a run-time condition chooses the DataFrame and streamlint read one branch.

    It is compared as its text (which names the condition and a digest of the branch not
    read, so a change there makes the note differ) and shown as a `Note` is. It also carries
    that branch as data (`other`: its sources, operators, output columns, notes, and what a
    writer of it has set by the fork, a `BranchWriter`, or () for a DataFrame), so the diff
    compares the branch not read with its old self rather than asking about every edit
    there: a filter changed on a branch of a stateless query is no question. `other` is None
    when the branch is not a DataFrame it can compare.
    """

    condition: str
    which: str
    other: tuple[Any, ...] | None
    chosen: tuple[Any, ...] | None  # the branch read, at the fork, in the same form
    # Where the other branches write the very DataFrame of the one read: the settings they
    # set differently ("format", "option `path`"); None otherwise (diff/forks.py).
    settings: frozenset[str] | None

    def __new__(cls, text: str, condition: str, which: str, other: tuple[Any, ...] | None,
                chosen: tuple[Any, ...] | None = None,
                settings: frozenset[str] | None = None, shown: str = "") -> Fork:
        made = super().__new__(cls, text, shown)
        made.condition, made.which, made.other, made.chosen = condition, which, other, chosen
        made.settings = settings
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Fork, (self.text, self.condition, self.which, self.other, self.chosen,
                       self.settings, self.shown))


def same_dataframe_settings(note: str) -> frozenset[str] | None:
    """The settings a branch writing the same DataFrame sets differently, as the note carries
    them (`model.Fork.settings`); None for any other note."""
    return note.settings if isinstance(note, Fork) else None


@record
class BranchWriter:
    """What a writer has set on one branch of a run-time fork, by the fork: values as Spark
    stores them (`plain`, credentials masked), options in the order set (a later one wins),
    `checkpointLocation` among them; None where a setting is not set. `foreach`: the batch
    function's fingerprint (a digest: its code is compared only where it is the query's)."""

    format: Any
    options: tuple[tuple[str, Any], ...]
    output_mode: Any
    trigger: tuple[str, Any]
    query_name: Any
    partition_by: tuple[Any, ...]
    foreach: str | None


class Failure(Note):
    """A call or read that raises every time it runs, on the way to a query's start:
    `df.orderby(...)`, a name no supported pyspark has on a DataFrame (AttributeError, or a
    Column called), or `self.name` that nothing sets on the job's own object. The query can
    never start. Compared as its text, like a `Note`; what fails is data: the receiver's
    class, the name called or read and the error it raises."""

    receiver: str
    method: str
    error: str

    def __new__(cls, receiver: str, method: str, error: str, said: str = "") -> Failure:
        # `said`: the failure in other words than a missing pyspark method's (an attribute of
        # the job's own object that nothing sets).
        made = super().__new__(cls, said or f"`{receiver}` has no method `{method}` in any "
                                            f"supported pyspark: the call raises {error}")
        made.receiver, made.method, made.error = receiver, method, error
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return (Failure, (self.receiver, self.method, self.error, str(self)))


class Overridable(str):
    """A default a deployment may override: `os.environ.get("X", "d")`, a widget's default,
    an argparse argument's default. It reads as its text everywhere (the value when nothing
    overrides it); `origins` names where it comes from, each with its default, for the diff
    (`Input`). String methods return plain text: only building a string keeps it one."""

    origins: tuple[tuple[str, str], ...]

    def __new__(cls, text: str, origins: tuple[tuple[str, str], ...] = ()) -> Overridable:
        made = super().__new__(cls, text)
        made.origins = tuple(origins)
        return made

    def __reduce__(self) -> tuple[type, tuple[str, tuple[tuple[str, str], ...]]]:
        return (Overridable, (str(self), self.origins))


class OverridableNumber(int):
    """A number computed from an `Overridable` (a window's length from its default text)."""

    origins: tuple[tuple[str, str], ...]

    def __new__(cls, value: int, origins: tuple[tuple[str, str], ...] = ()
                ) -> OverridableNumber:
        made = super().__new__(cls, value)
        made.origins = tuple(origins)
        return made

    def __reduce__(self) -> tuple[type, tuple[int, tuple[tuple[str, str], ...]]]:
        return (OverridableNumber, (int(self), self.origins))


def origins_of(value: object) -> tuple[tuple[str, str], ...]:
    """Where a deployment may override a value (none for a value of the code itself)."""
    found = getattr(value, "origins", ())
    return found if isinstance(value, Overridable | OverridableNumber) else ()


def keep_origins(text: str, pieces: list[object]) -> str:
    """Text made from deployment defaults (joined, normalised) is itself one."""
    found = tuple(dict.fromkeys(o for p in pieces for o in origins_of(p)))
    return Overridable(text, found) if found else text


@record
class Input:
    """A restart-relevant fact of a query (its checkpoint, a topic or path it reads, a grouping
    key, a window) that takes its value from outside the job's code.

    kind "override": `origin` (an environment variable, a widget, an argument) gives the value
    unless the deployment sets another; `default` is the one the code gives. kind "unread": a
    file streamlint could not read gives it (`origin` names the file); its value is unknown."""

    kind: str
    origin: str
    default: str | None
    fact: str  # in words: "the kafka source option `subscribe`", "checkpointLocation"
    loc: Loc
    # Which fact, for the diff: "checkpoint", "source", "window", "grouping", "dedup", "join".
    about: str = ""


@record
class Template:
    """A string whose parts are partly known: `f"{root}/orders"`, `root + "/orders"`,
    `os.path.join(root, "orders")` are ("", Unknown("root"), "/orders"). Two templates whose
    unresolved parts are the same code but whose known parts differ are certainly different
    values (a checkpoint moved from `{root}/orders` to `{root}/orders_v2`)."""

    parts: tuple[str | Unknown, ...]

    def __str__(self) -> str:
        return "".join(p if isinstance(p, str) else "{" + p.text + "}" for p in self.parts)


Value = str | int | float | bool | None | Unknown | Template | tuple


# How an unresolved part is written inside an expression's text: `window(ts, ⟨?WINDOW⟩)`.
# The brackets are ones no job writes in its strings (a `"<?xml"` literal must stay known).
UNRESOLVED_MARK = "\u27e8?"


def is_known(value: object) -> bool:
    """True when a value (and everything inside it) was resolved statically."""
    if isinstance(value, Unknown | Template):
        return False
    if isinstance(value, str):
        return UNRESOLVED_MARK not in value
    if isinstance(value, tuple):
        return all(is_known(v) for v in value)
    return True


def code_of(value: Unknown | Template) -> str:
    """A value known only at run time as the code writes it: `checkpoint_path`,
    `{bookstore.checkpoint_path}/orders_silver` (an f-string's parts in braces)."""
    if isinstance(value, Unknown):
        return str(value)
    return "".join(p if isinstance(p, str) else "{" + str(p) + "}" for p in value.parts)


def show(value: object) -> str:
    """Render a value the way the user wrote it."""
    if isinstance(value, str):
        return repr(str(value))  # a note: its words, not what names it
    if isinstance(value, tuple):
        return "(" + ", ".join(show(v) for v in value) + ")"
    if isinstance(value, Unknown | Template):
        return code_of(value)
    return str(value)


Options = tuple[tuple[str, Value], ...]


def option(options: Options, key: str) -> Value:
    """Look an option up case-insensitively, as Spark does."""
    for k, v in options:
        if k.lower() == key.lower():
            return v
    return None


def placed(places: tuple[tuple[str, Loc], ...], other: tuple[tuple[str, Loc], ...], key: str,
           fallback: Loc) -> Loc:
    """Where an option was given (`places`: each option's place); for one this version lacks
    (an option removed), where the options the other version gave with it (`other`) are
    given now, if in one place (a loop of `.option(key, value)`, one `.options(**opts)`),
    else `fallback`."""
    found = option(places, key)
    there = option(other, key)
    if isinstance(found, Loc) or not isinstance(there, Loc):
        return found if isinstance(found, Loc) else fallback
    beside = {k.lower() for k, loc in other if loc == there} - {key.lower()}
    found_at = {loc for k, loc in places if k.lower() in beside}
    return found_at.pop() if len(found_at) == 1 else fallback
