"""PySpark's DataStreamReader and DataFrameReader: `spark.readStream.format(...).load()` as a
`Source` and the DataFrame that reads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import registry
from streamlint.extract.columns import last_wins, option_key, option_value, plain
from streamlint.extract.schemas import (
    FIXED_COLUMNS,
    as_read_by_a_file_source,
    schema_columns,
    schema_of,
)
from streamlint.extract.spark_values import Plan, Reader
from streamlint.model import Loc, Source, Unknown, keep_origins, option
from streamlint.model.records import replace
from streamlint.model.secrets import is_credential, mask_line, masked
from streamlint.rulebook.options import option_class

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter


# Which bucket of a Source an option goes to, by its class (rules/options.toml): what is read
# (a change is SO04), rate limits (SO05), and the rest (judged by class, `source.option`).
IDENTITY_CLASSES = frozenset({"what-is-read"})
RATE_LIMIT_CLASSES = frozenset({"rate-limit"})
# Parts of an Event Hubs connection string that name the hub, not the key to it.
HUB_PARTS = ("endpoint", "entitypath")


FILE_FORMATS = ("json", "parquet", "csv", "orc", "text", "avro", "xml", "binaryfile")


# A reader's methods return it configured (`reader.option(...)` as a statement configures it),
# and a run-time choice between readers follows the first, noting the other's shape on the
# DataFrame it loads (a source changed in the other branch is then a finding).
registry.builder(Reader)
registry.followed(Reader, lambda reader, note: replace(reader, notes=(*reader.notes, note)),
                  lambda reader: (reader.streaming, reader.format, reader.options, reader.schema,
                                  reader.name))


def static_source(fmt: str, identity: tuple, loc: Loc) -> Source:
    return Source(fmt, identity, (), (), None, None, loc, streaming=False)


@registry.method(Reader)
def reader_method(interp: Interpreter, reader: Reader, name: str, args: list[Any],
                  kwargs: dict[str, Any], node: cst.Call) -> Any:
    return reader_call(interp, reader, name, args, kwargs, interp.loc(node))


def reader_call(
    interp: Interpreter, reader: Reader, name: str, args: list[Any], kwargs: dict[str, Any],
    loc: Loc,
) -> Any:
    if name == "format":
        return replace(reader, format=args[0] if args else kwargs.get("source"))
    if name in ("option", "options"):
        return _configured(reader, name, args, kwargs, loc)
    if name == "schema":
        return replace(reader, schema=args[0] if args else kwargs.get("schema"),
                       schema_loc=loc)
    if name == "name":
        return replace(reader, name=args[0] if args else None)
    if name in ("load", "table", *FILE_FORMATS):
        fmt = reader.format
        options = list(reader.options)
        given = len(options)
        if name in FILE_FORMATS:
            fmt = name
        if name == "table":
            if args and isinstance(args[0], str) and args[0].lower() in interp.ext.views:
                return interp.ext.views[args[0].lower()]  # a temp view of a DataFrame
            if args:  # a dataset a library defines (a pipeline's table, or its view)
                found = registry.read_table(interp, args[0], reader.streaming, reader.loc)
                if found is not registry.NEXT:
                    return found
            # DataStreamReader.table() reads the catalog's table and ignores format():
            # `format("delta").table(t)` and `table(t)` are one source.
            fmt = "table"
            if args:
                options.append(("table", args[0]))
        elif args:
            options.append(("path", args[0]))
        for key in ("path", "format", "schema"):
            if key in kwargs:
                value = kwargs.pop(key)
                if key == "format":
                    fmt = value
                elif key == "schema":
                    reader = replace(reader, schema=value, schema_loc=loc)
                else:
                    options.append(("path", value))
        options.extend(kwargs.items())
        if fmt is None:
            fmt = "parquet"
        # What load(...) / table(...) gave was given at that call.
        reader = replace(reader, option_locs=(*reader.option_locs, *(
            (str(key).lower(), loc) for key, _ in options[given:])))
        source = make_source(reader, fmt, options)
        if source.streaming:
            interp.effects.streams.append(source)
        columns = FIXED_COLUMNS.get(str(source.format)) or schema_columns(source.schema)
        if source.format == "kafka" and str(option(source.options, "includeHeaders")) == "true":
            columns = (*columns, "headers")
        return Plan((source,), (), reader.streaming, columns=columns, unresolved=reader.notes)
    return Unknown(f"DataStreamReader.{name}")


def _configured(reader: Reader, name: str, args: list[Any], kwargs: dict[str, Any],
                loc: Loc) -> Reader:
    """`.option(key, value)` or `.options(...)`: the options added, and where each was given."""
    if name == "option":
        items = [(option_key(args[0] if args else kwargs.get("key")),
                  args[1] if len(args) > 1 else kwargs.get("value"))]
    else:
        items = list(kwargs.items())
        if args and isinstance(args[0], dict):
            items = list(args[0].items()) + items
    return replace(reader, options=(*reader.options, *items),
                   option_locs=(*reader.option_locs, *((str(k).lower(), loc) for k, _ in items)))


def make_source(reader: Reader, fmt: Any, options: list[tuple[Any, Any]]) -> Source:
    identity, limits, others = [], [], []
    # format(...) given a symbolic object (a writer, a column) is a value not known here.
    fmt = fmt.lower() if isinstance(fmt, str) else plain(fmt)
    for key, value in last_wins(options):
        lowered = str(key).lower()
        value = option_value(value)
        if lowered == "subscribe" and isinstance(value, str):
            # Kafka keeps offsets per topic: "a,b" and "b, a" subscribe to the same thing.
            value = keep_origins(",".join(sorted(t.strip() for t in value.split(",")
                                                 if t.strip())), [value])
        if lowered == "eventhubs.connectionstring" and isinstance(value, str):
            hub, rest = _hub(value)
            if hub:  # the hub it names is what is read; the key is a credential
                identity.append((str(key), hub))
                value = rest
        elif lowered == "eventhubs.connectionstring" and value is not None:
            # Known only at run time (`EventHubsUtils.encrypt(conn)`): which hub it names is
            # not known either, so its code stands for it (another code is a review, UN02).
            identity.append((str(key), Unknown(mask_line(str(getattr(value, "text", value))))))
        kind = option_class(fmt, str(key))
        bucket = (identity if kind in IDENTITY_CLASSES and not is_credential(key) else
                  limits if kind in RATE_LIMIT_CLASSES else others)
        bucket.append((str(key), masked(key, value)))
    return Source(
        format=fmt, identity=tuple(sorted(identity)), rate_limits=tuple(sorted(limits)),
        options=tuple(sorted(others)),
        schema=(as_read_by_a_file_source(schema_of(reader.schema)) if fmt in FILE_FORMATS
                else schema_of(reader.schema)), name=plain(reader.name),
        loc=reader.loc, streaming=reader.streaming,
        option_locs=tuple(dict(reader.option_locs).items()), schema_loc=reader.schema_loc,
    )


def _hub(connection: str) -> tuple[str, str]:
    """An Event Hubs connection string split in the hub it names (`Endpoint=sb://ns.../;
    EntityPath=orders`) and the rest (the key's name and the key)."""
    parts = [part.strip() for part in connection.split(";") if part.strip()]
    named = [p for p in parts if p.split("=", 1)[0].strip().lower() in HUB_PARTS]
    return ";".join(named), ";".join(p for p in parts if p not in named)
