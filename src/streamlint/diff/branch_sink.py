"""The sink a branch not read would write: the chosen writer with the settings the branch's own
writer sets by the fork (model.BranchWriter), and whether Spark could start it at all."""

from __future__ import annotations

from streamlint.model import (
    BranchWriter,
    Sink,
)
from streamlint.model.records import replace

# Spark's own file formats: their sink needs a path (DataSource.createSink: "'path' is not
# specified"; tests/test_refused_queries.py). A sink with no format set is "parquet".
_FILE_FORMATS = frozenset({"parquet", "json", "csv", "orc", "text"})


def cannot_start(sink: Sink) -> bool:
    """A sink Spark refuses at start: a file format with no path, and no table either."""
    return (sink.foreach is None and sink.format in _FILE_FORMATS and sink.target is None
            and not any(k.lower() in ("path", "table") for k, _ in sink.options))


def branch_sink(sink: Sink, chosen: object, other: object) -> Sink | None:
    """The query's sink where the run takes the other branch of a fork: what its writer set
    by the fork (`model.BranchWriter`) in place of what the branch read set, wherever the
    code did not set it again after the fork (the query's value is then the one the branch
    read gave). None where it cannot be told: a batch function only the other branch sets
    (its code is not read), or one branch is no writer."""
    if chosen == other:
        return sink
    if not isinstance(chosen, BranchWriter) or not isinstance(other, BranchWriter):
        return None
    if other.foreach is not None and other.foreach != chosen.foreach:
        return None
    options = {k.lower(): (k, v) for k, v in sink.options}
    if sink.checkpoint is not None:
        options["checkpointlocation"] = ("checkpointLocation", sink.checkpoint)
    mine, theirs = _by_key(chosen.options), _by_key(other.options)
    for key in {*mine, *theirs}:
        if _value(options.get(key)) == _value(mine.get(key)):
            if key in theirs:
                options[key] = theirs[key]
            else:
                options.pop(key, None)
    checkpoint = _value(options.pop("checkpointlocation", None))
    fmt = _kept(sink.format, _format(chosen.format), _format(other.format))
    foreach = sink.foreach if other.foreach == chosen.foreach else None
    target = next((v for k, v in (options.get(key, (key, None)) for key in _TARGETS)
                   if v is not None), None)
    if target is None and foreach is not None:
        target = foreach.function
    if target is None and fmt in ("console", "memory", "noop"):
        target = sink.query_name if fmt == "memory" else fmt
    return replace(
        sink, format=fmt, options=tuple(sorted(options.values(), key=lambda item: item[0])),
        output_mode=_kept(sink.output_mode, _lower(chosen.output_mode),
                          _lower(other.output_mode)),
        trigger=_kept(sink.trigger, chosen.trigger, other.trigger),
        query_name=_kept(sink.query_name, chosen.query_name, other.query_name),
        partition_by=_kept(sink.partition_by, chosen.partition_by, other.partition_by),
        target=target, foreach=foreach, checkpoint=checkpoint,
        volatile=sink.volatile if checkpoint == sink.checkpoint else None)


_TARGETS = ("table", "path", "topic", "tablename")


def _by_key(options: tuple[tuple[str, object], ...]) -> dict[str, tuple[str, object]]:
    """Options as Spark keeps them: case-insensitive, the last setting of one wins."""
    return {k.lower(): (k, v) for k, v in options}


def _value(item: tuple[str, object] | None) -> object:
    return None if item is None else item[1]


def _kept(final: object, mine: object, theirs: object) -> object:
    """A setting of the query where the other branch runs: the other's, unless the code set
    it again after the fork (the query's value differs from the branch read's)."""
    return theirs if final == mine else final


def _format(value: object) -> object:
    if isinstance(value, str):
        return value.lower() if value.lower() != "foreachbatch" else "foreachBatch"
    return "parquet" if value is None else value


def _lower(value: object) -> object:
    return value.lower() if isinstance(value, str) else value
