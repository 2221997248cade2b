"""Pipeline flows (SDP, Lakeflow / DLT) in a diff: paired by identity, renames named.

A flow's checkpoint is its target table and its name, nothing else: flows pair only when both
are equal (never by position). What is left over is a flow renamed (same table), the flows of
a table replaced (several on a side), a table renamed (a new table whose flow reads the same
sources as a table that is gone), a flow added or a flow removed. Paired flows are
compared like any query, plus their expectations and AUTO CDC settings; every change carries
the facts `pipeline` (sdp or dlt) and `pipeline_table`, so an incompatible finding's fix says
which table to fully refresh, and how.
"""

from __future__ import annotations

from typing import Any

from streamlint.diff.compare import Change, Code, compare_queries
from streamlint.diff.match import match_queries
from streamlint.diff.render import names_text
from streamlint.model import ChangeFlow, Expectation, JobFile, Loc, Query, show
from streamlint.model.expr import render
from streamlint.model.identity import key_of

FORMAT = "pipeline"
CDC_STATE = ("keys", "sequence_by", "scd_type")
_NOWHERE = Loc("", 0, 0)


def is_flow(query: Query | None) -> bool:
    return query is not None and query.sink.format == FORMAT


def match(old: tuple[Query, ...],
          new: tuple[Query, ...]) -> list[tuple[Query | None, Query | None]]:
    """Jobs' queries as before; pipeline flows only by their identity (table and flow name)."""
    pairs = match_queries(tuple(q for q in old if not is_flow(q)),
                          tuple(q for q in new if not is_flow(q)))
    old_flows = [q for q in old if is_flow(q)]
    taken: set[int] = set()
    for flow in (q for q in new if is_flow(q)):
        wanted = key_of(flow, "checkpoint")  # `pipeline flow <table>/<flow>`
        partner = next((i for i, q in enumerate(old_flows)
                        if i not in taken and key_of(q, "checkpoint") == wanted), None)
        if partner is not None:
            taken.add(partner)
        pairs.append((old_flows[partner] if partner is not None else None, flow))
    pairs.extend((q, None) for i, q in enumerate(old_flows) if i not in taken)
    return pairs


def flow_changes(pairs: list[tuple[Query | None, Query | None]] | tuple, old: JobFile,
                 new: JobFile) -> list[Change]:
    """Every change to the pipeline flows of two versions of a file."""
    api = "dlt" if "dlt" in (new.pipeline_api, old.pipeline_api) else "sdp"
    changes: list[Change] = []
    for before, after in pairs:
        if before is not None and after is not None and is_flow(after):
            found = compare_queries(before, after) + _extra(before, after)
            changes.extend(_tagged(c, api, after) for c in found)
    removed = [b for b, a in pairs if a is None and is_flow(b)]
    added = [a for b, a in pairs if b is None and is_flow(a)]
    old_tables = {_table(q) for q in old.queries if is_flow(q)}
    new_tables = {_table(q) for q in new.queries if is_flow(q)}
    for flow in list(added):
        # The same table, one flow gone and one new: the flow was renamed.
        gone = [b for b in removed if _table(b) == _table(flow)]
        if len(gone) == 1 and sum(1 for a in added if _table(a) == _table(flow)) == 1:
            removed.remove(gone[0])
            added.remove(flow)
            changes.append(_tagged(_change("pipeline.flow_renamed", "the flow's name", gone[0],
                                           flow), api, flow))
    changes.extend(_replaced(removed, added, old_tables & new_tables, api))
    changes.extend(_renamed_tables(removed, added, old_tables, new_tables, api))
    for flow in added:
        change = _change("pipeline.flow_added", "a flow", None, flow)
        change.facts["existing"] = "true" if _table(flow) in old_tables else "false"
        change.facts["materialized"] = "true" if _table(flow) in old.batch_datasets else "false"
        changes.append(_tagged(change, api, flow))
    for flow in removed:
        change = _change("pipeline.flow_removed", "a flow", flow, None)
        change.facts["table_kept"] = "true" if _table(flow) in new_tables else "false"
        change.facts["materialized"] = "true" if _table(flow) in new.batch_datasets else "false"
        changes.append(_tagged(change, api, flow))
    return changes


def _replaced(removed: list[Query], added: list[Query], kept: set[str],
              api: str) -> list[Change]:
    """A table kept whose flows all changed names (more than one on a side): the new flows
    start with empty checkpoints and read their sources from the beginning into the rows the
    old flows wrote. Takes them out of `removed` and `added`."""
    changes: list[Change] = []
    for table in sorted(kept):
        gone = [b for b in removed if _table(b) == table]
        came = [a for a in added if _table(a) == table]
        if not gone or not came:
            continue
        for flow in gone:
            removed.remove(flow)
        for flow in came:
            added.remove(flow)
        change = Change("pipeline.flows_replaced", f"the flows into `{table}`",
                        Code(", ".join(_label(q) for q in gone)),
                        Code(", ".join(_label(q) for q in came)), gone[0].sink.loc,
                        came[0].sink.loc, came[0].label,
                        {"stateful": "true" if any(q.stateful for q in came) else "false"})
        changes.append(_tagged(change, api, came[0]))
    return changes


def _renamed_tables(removed: list[Query], added: list[Query], old_tables: set[str],
                    new_tables: set[str], api: str) -> list[Change]:
    """A table that is gone, and a new table whose flow reads the same sources (the only one
    each way): the table was renamed, whatever else changed in its query. Takes them out of
    `removed` and `added`."""
    changes: list[Change] = []
    gone = [b for b in removed if _table(b) not in new_tables]
    came = [a for a in added if _table(a) not in old_tables]
    for flow in came:
        same = [b for b in gone if _sources(b) == _sources(flow)]
        if len(same) != 1 or sum(1 for a in came if _sources(a) == _sources(flow)) != 1:
            continue
        gone.remove(same[0])
        removed.remove(same[0])
        added.remove(flow)
        change = _change("pipeline.table_renamed", "the table's name", same[0], flow)
        change.facts["old_table"] = _table(same[0])
        changes.append(_tagged(change, api, flow))
    return changes


def _table(query: Query) -> str:
    target = query.sink.target
    return target if isinstance(target, str) else show(target)


def _label(query: Query) -> str:
    """`table` for a table's own flow, `table/flow` for a named flow into it."""
    flow = query.sink.query_name
    flow = flow if isinstance(flow, str) else show(flow)
    return _table(query) if flow == _table(query) else f"{_table(query)}/{flow}"


def _change(kind: str, subject: str, old: Query | None, new: Query | None) -> Change:
    query = new or old
    assert query is not None
    return Change(kind, subject, Code(_label(old)) if old else None,
                  Code(_label(new)) if new else None, old.sink.loc if old else None,
                  new.sink.loc if new else None, query.label,
                  {"stateful": "true" if query.stateful else "false"})


def _tagged(change: Change, api: str, query: Query) -> Change:
    change.facts.setdefault("pipeline", api)
    change.facts.setdefault("pipeline_table", _table(query))
    flow = query.sink.query_name
    change.facts.setdefault("pipeline_flow", flow if isinstance(flow, str) else show(flow))
    return change


def _sources(query: Query) -> tuple:
    """A flow's sources without their positions (none: never the same as another's)."""
    return tuple(item.unplaced(_NOWHERE) for item in query.sources) or (id(query),)


def _extra(old: Query, new: Query) -> list[Change]:
    """Expectations and AUTO CDC settings, which the generic comparison does not read."""
    changes: list[Change] = []
    before = {(e.name, e.condition): e for e in old.operators if isinstance(e, Expectation)}
    after = {(e.name, e.condition): e for e in new.operators if isinstance(e, Expectation)}
    renamed = {k[0] for k in before} & {k[0] for k in after}
    for key, item in after.items():
        previous = before.get(key)
        if previous is not None and previous.action == item.action:
            continue
        direction = "changed" if previous is not None or key[0] in renamed else "added"
        old_item = previous or next((e for k, e in before.items() if k[0] == key[0]), None)
        changes.append(Change("pipeline.expectation", f"the expectation `{key[0]}`",
                              Code(_expectation(old_item)) if old_item else None,
                              Code(_expectation(item)), old_item.loc if old_item else None,
                              item.loc, new.label,
                              {"action": item.action, "direction": direction}))
    for key, item in before.items():
        if key not in after and key[0] not in {k[0] for k in after}:
            changes.append(Change("pipeline.expectation", f"the expectation `{key[0]}`",
                                  Code(_expectation(item)), None, item.loc, None, new.label,
                                  {"action": item.action, "direction": "removed"}))
    old_cdc = next((o for o in old.operators if isinstance(o, ChangeFlow)), None)
    new_cdc = next((o for o in new.operators if isinstance(o, ChangeFlow)), None)
    if old_cdc is not None and new_cdc is not None:
        for about in CDC_STATE:
            a, b = getattr(old_cdc, about), getattr(new_cdc, about)
            if a != b:
                changes.append(Change("pipeline.cdc", f"the AUTO CDC flow's {about}", _code(a),
                                      _code(b), old_cdc.loc, new_cdc.loc, new.label,
                                      {"about": about}))
        a_opts, b_opts = dict(old_cdc.options), dict(new_cdc.options)
        for key in sorted(set(a_opts) | set(b_opts)):
            if a_opts.get(key) != b_opts.get(key):
                changes.append(Change("pipeline.cdc", f"the AUTO CDC flow's {key}",
                                      a_opts.get(key), b_opts.get(key), old_cdc.loc,
                                      new_cdc.loc, new.label, {"about": key}))
    return changes


def _expectation(item: Expectation) -> str:
    verb = {"warn": "expect", "fail": "expect_or_fail"}.get(item.action, "expect_all")
    return f"{verb}({item.name!r}, {render(item.condition)})"


def _code(value: Any) -> Any:
    if isinstance(value, tuple):
        return names_text(value)
    return Code(value) if isinstance(value, str) else value
