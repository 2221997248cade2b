"""The diff alone, from model records: no file, no parser, no interpreter (issue 28).

`streamlint.diff` reads only `streamlint.model` and the rulebook, so each case here builds the
two versions of a query as records and asks `diff_jobs` for the verdict. The expected verdicts
are Spark's ("Recovery Semantics after Changes in a Streaming Query", Structured Streaming
Programming Guide): a changed checkpoint location, subscribed topic, grouping key or
aggregate function is not allowed; a filter added to a stateless query, a trigger or a rate
limit changed, are.
"""

from __future__ import annotations

import pytest

from streamlint.diff import Report, diff_jobs
from streamlint.model import (
    AggCall,
    Aggregation,
    Filter,
    JobFile,
    Loc,
    Operator,
    Query,
    Sink,
    Source,
)
from streamlint.model.expr import Binary, Column, Literal
from streamlint.model.records import replace
from streamlint.rulebook.book import load_rules

CODES = {rule.name: rule.code for rule in load_rules()}
HERE = Loc("job.py", 1, 0)


def kafka(topic: str = "orders", max_offsets: int | None = None) -> Source:
    return Source(format="kafka", identity=(("subscribe", topic),),
                  rate_limits=(("maxOffsetsPerTrigger", max_offsets),) if max_offsets else (),
                  options=(("kafka.bootstrap.servers", "broker:9092"),), schema=None, name=None,
                  loc=HERE)


def delta_sink(checkpoint: str = "/chk/orders", trigger: str = "1 minute",
               mode: str = "append") -> Sink:
    return Sink(format="delta", options=(), output_mode=mode,
                trigger=("processingTime", trigger), query_name=None, partition_by=(),
                target="/lake/orders", foreach=None, checkpoint=checkpoint, loc=HERE)


def total(function: str = "sum", keys: tuple[str, ...] = ("customer",)) -> Aggregation:
    return Aggregation(method="groupBy", keys=tuple(Column(k) for k in keys),
                       aggregates=(AggCall(function, (Column("amount"),), "total"),),
                       inputs=(), loc=HERE)


def query(*operators: Operator, source: Source | None = None, sink: Sink | None = None
          ) -> Query:
    return Query(sources=(source or kafka(),), operators=operators,
                 sink=sink or delta_sink(), config=())


def diff(old: Query, new: Query) -> Report:
    return diff_jobs(JobFile("old.py", "", (old,)), JobFile("new.py", "", (new,)))


def verdict(report: Report) -> str:
    order = ["compatible", "review", "incompatible"]
    return max((f.verdict for f in report.findings), key=order.index, default="compatible")


def codes(report: Report) -> set[str]:
    return {f.code for f in report.findings}


def test_the_same_records_are_no_change() -> None:
    report = diff(query(total()), query(total()))
    assert report.findings == ()


@pytest.mark.parametrize(("name", "old", "new", "rule"), [
    ("checkpoint moved", query(), query(sink=delta_sink("/chk/orders_v2")),
     "checkpoint-location-changed"),
    ("topic changed", query(), query(source=kafka("payments")), "source-identity-changed"),
    ("grouping key added", query(total()), query(total(keys=("customer", "country"))),
     "grouping-keys-changed"),
    ("sum became max", query(total()), query(total("max")), "aggregate-function-swapped"),
])
def test_a_change_spark_does_not_allow_is_incompatible(name: str, old: Query, new: Query,
                                                       rule: str) -> None:
    report = diff(old, new)
    assert verdict(report) == "incompatible", name
    assert CODES[rule] in codes(report), name


@pytest.mark.parametrize(("name", "old", "new"), [
    ("filter added to a stateless query", query(),
     query(Filter(Binary(">", Column("amount"), Literal(0)), HERE))),
    ("trigger interval changed", query(), query(sink=delta_sink(trigger="5 minutes"))),
    ("rate limit added", query(), query(source=kafka(max_offsets=10_000))),
])
def test_a_change_spark_allows_is_compatible(name: str, old: Query, new: Query) -> None:
    assert verdict(diff(old, new)) == "compatible", name


def test_a_trailing_slash_is_the_same_checkpoint() -> None:
    """One path normalisation for every comparison of checkpoints (issue 28: QY01 on `/chk/g`
    -> `/chk/g/`)."""
    assert diff(query(), query(sink=delta_sink("/chk/orders/"))).findings == ()


def test_each_finding_names_the_query_of_the_records() -> None:
    old = query(total())
    new = replace(old, operators=(total("max"),))
    [finding] = [f for f in diff(old, new).findings if f.verdict == "incompatible"]
    assert finding.labels == (old.label,)
