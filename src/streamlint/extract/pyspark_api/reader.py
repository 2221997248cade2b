"""PySpark's DataStreamReader and DataFrameReader: `spark.readStream.format(...).load()` as a
`Source` and the DataFrame that reads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from streamlint.extract import pipelines, registry
from streamlint.extract.columns import last_wins, option_key, option_value, plain
from streamlint.extract.schemas import FIXED_COLUMNS, schema_columns, schema_of
from streamlint.extract.values import Plan, Reader
from streamlint.model import Loc, Source, Unknown, keep_origins, option
from streamlint.records import replace

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter


IDENTITY_OPTIONS = {
    # kafka.bootstrap.servers is not here: the checkpoint keeps offsets per topic and
    # partition, not per broker list, so a broker added to the list is a review (SO07).
    "subscribe", "subscribepattern", "assign", "path", "table",
    "tablename", "topic", "topics", "stream", "streamname", "eventhubs.connectionstring",
    "cloudfiles.format", "region", "queue", "subscription", "projectid", "bucket",
}


RATE_LIMIT_OPTIONS = {
    "maxoffsetspertrigger", "minoffsetspertrigger", "maxtriggerdelay", "maxfilespertrigger",
    "maxbytespertrigger", "rowspersecond", "rampuptime", "maxrecordspertrigger",
    "cloudfiles.maxfilespertrigger", "cloudfiles.maxbytespertrigger", "maxeventspertrigger",
    "maxratepertrigger", "numpartitions",
}


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
    if name == "option":
        key = option_key(args[0] if args else kwargs.get("key"))
        value = args[1] if len(args) > 1 else kwargs.get("value")
        return replace(reader, options=(*reader.options, (key, value)))
    if name == "options":
        items = list(kwargs.items())
        if args and isinstance(args[0], dict):
            items = list(args[0].items()) + items
        return replace(reader, options=(*reader.options, *items))
    if name == "schema":
        return replace(reader, schema=args[0] if args else kwargs.get("schema"))
    if name == "name":
        return replace(reader, name=args[0] if args else None)
    if name in ("load", "table", *FILE_FORMATS):
        fmt = reader.format
        options = list(reader.options)
        if name in FILE_FORMATS:
            fmt = name
        if name == "table":
            if args and isinstance(args[0], str) and args[0].lower() in interp.views:
                return interp.views[args[0].lower()]  # a temp view of a DataFrame
            if interp.pipeline is not None and args:  # a pipeline's dataset, or its view
                return pipelines.read_dataset(interp, args[0], reader.streaming, reader.loc)
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
                    reader = replace(reader, schema=value)
                else:
                    options.append(("path", value))
        options.extend(kwargs.items())
        if fmt is None:
            fmt = "parquet"
        source = make_source(reader, fmt, options)
        if source.streaming:
            interp.effects.streams.append(source)
        columns = FIXED_COLUMNS.get(str(source.format)) or schema_columns(source.schema)
        if source.format == "kafka" and str(option(source.options, "includeHeaders")) == "true":
            columns = (*columns, "headers")
        return Plan((source,), (), reader.streaming, columns=columns, unresolved=reader.notes)
    return Unknown(f"DataStreamReader.{name}")


def make_source(reader: Reader, fmt: Any, options: list[tuple[Any, Any]]) -> Source:
    identity, limits, others = [], [], []
    for key, value in last_wins(options):
        lowered = str(key).lower()
        value = option_value(value)
        if lowered == "subscribe" and isinstance(value, str):
            # Kafka keeps offsets per topic: "a,b" and "b, a" subscribe to the same thing.
            value = keep_origins(",".join(sorted(t.strip() for t in value.split(",")
                                                 if t.strip())), [value])
        bucket = (identity if lowered in IDENTITY_OPTIONS else
                  limits if lowered in RATE_LIMIT_OPTIONS else others)
        bucket.append((str(key), value))
    # format(...) given a symbolic object (a writer, a column) is a value not known here.
    fmt = fmt.lower() if isinstance(fmt, str) else plain(fmt)
    return Source(
        format=fmt, identity=tuple(sorted(identity)), rate_limits=tuple(sorted(limits)),
        options=tuple(sorted(others)), schema=schema_of(reader.schema), name=plain(reader.name),
        loc=reader.loc, streaming=reader.streaming,
    )
