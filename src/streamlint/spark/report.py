"""The static verdict and Spark's outcome in one report (text and JSON).

Each static query pair is matched to the query Spark ran by its checkpoint, then its name, then
its position. Where the static verdict and Spark's disagree the report says so, and the final
verdict (and exit code) is the stricter of the two.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from streamlint.diff import Report
from streamlint.model import Query
from streamlint.model.identity import QueryKey, run_keys
from streamlint.model.schema_text import split_top_level
from streamlint.model.secrets import mask_line
from streamlint.report.json import report_data
from streamlint.report.result import Confirmation as ResultConfirmation
from streamlint.rulebook.change import worst
from streamlint.rulebook.profiles import shown_profile
from streamlint.spark.confirm import Confirmation, QueryConfirmation
from streamlint.spark.intent import with_intent

OUTCOME_TEXT = {
    "restart-fails": "Spark refused the restart",
    "results-differ": "Spark restarted, but the results differ from a fresh run of the new "
                      "code (silent corruption)",
    "differs-as-intended": "Spark restarted; the results differ from a fresh run of the new "
                           "code as the change intends (rows the old code kept in state meet "
                           "the new code's)",
    "same-results": "Spark restarted, and the results equal a fresh run of the new code",
    "no-output": "Spark restarted, but neither run wrote rows, so nothing could be compared "
                 "(no outcome: the static verdict stands)",
    "added": "a new query: it started on its own new checkpoint",
    "removed": "the query is gone from the new code; its checkpoint stays behind",
    "starts-over": "Spark did not restart it: the new code's query has another checkpoint "
                   "(or name), so it started from scratch, and its rows differ from a run "
                   "continuing from the old checkpoint (the stand-in source replays all its "
                   "input; a real one starts where startingOffsets says: from the earliest it "
                   "re-reads, from the latest it skips what arrived meanwhile)",
    "timed-out": "the run did not finish in time: no outcome",
    "cannot-confirm": "cannot confirm",
    "fails-from-scratch": "the new code fails on this Spark even without the old checkpoint",
}

# Why a query the static analysis found has no run: what the sandbox knows in that case.
NOT_RUN = ("neither Spark run of the job started this query (it starts only on a condition "
           "the run did not meet, or the job stopped before reaching it; the warnings say what "
           "was stubbed): no outcome, the static verdict stands")

NO_QUERY = ("neither version started a streaming query on Spark, as the static reading found "
            "none: there is no checkpoint to restart from")


def stricter(*verdicts: str | None) -> str:
    return worst(verdicts)


def pair_confirmations(report: Report, confirmation: Confirmation
                       ) -> list[QueryConfirmation | None]:
    """For each static pair, the query Spark ran for it (None when none matches)."""
    by_key = {q.key: q for q in confirmation.queries}
    used: set[QueryKey] = set()
    out: list[QueryConfirmation | None] = []
    for old, new in report.pairs:
        found = None
        for side, queries in ((new, report.new.queries), (old, report.old.queries)):
            if side is None:
                continue
            for key in run_keys(side, queries.index(side)):
                if key in by_key and key not in used:
                    found = by_key[key]
                    break
            if found:
                break
        if found is not None:
            used.add(found.key)
        out.append(found)
    return out


def intended(report: Report, confirmation: Confirmation) -> Confirmation:
    """Results that differ as a change of the pair intends are no corruption (the oracle)."""
    return with_intent(report, confirmation, pair_confirmations(report, confirmation))


def static_verdict(report: Report, old: Query | None, new: Query | None) -> str:
    labels = {q.label for q in (old, new) if q is not None}
    verdicts = [f.verdict for f in report.findings
                if labels & set(f.labels)]
    return stricter(*verdicts)


def sink_only(report: Report, old: Query | None, new: Query | None) -> bool:
    """Whether every incompatible finding of the pair is about the sink, which the sandbox
    stands in: Spark's run cannot confirm or refute those."""
    labels = {q.label for q in (old, new) if q is not None}
    codes = [f.code for f in report.findings if f.verdict == "incompatible"
             and labels & set(f.labels)]
    return bool(codes) and all(code.startswith("SK") for code in codes)


def final_verdict(report: Report, confirmation: Confirmation) -> str:
    confirmation = intended(report, confirmation)
    spark = [q.verdict for q in confirmation.queries]
    return stricter(report.verdict, *spark)


def disagreements(report: Report, confirmation: Confirmation) -> list[str]:
    confirmation = intended(report, confirmation)
    out = []
    for (old, new), confirmed in zip(report.pairs, pair_confirmations(report, confirmation),
                                     strict=True):
        if confirmed is None or confirmed.verdict is None:
            continue
        static = static_verdict(report, old, new)
        label = (new or old).label  # type: ignore[union-attr]
        if confirmed.verdict == "incompatible" and static != "incompatible":
            out.append(f"query {label}: the static verdict is {static}, but "
                       f"{OUTCOME_TEXT[confirmed.outcome]}: Spark is stricter")
        elif sink_only(report, old, new):
            continue  # the sink is stood in: Spark's run says nothing about it
        elif static == "incompatible" and confirmed.verdict == "compatible" and \
                confirmed.outcome == "same-results":
            out.append(f"query {label}: the static verdict is incompatible, but Spark restarted "
                       "and wrote the same rows as a fresh run on this synthetic input: the "
                       "static rule is stricter (a rule may be wrong, or the input too small "
                       "to show the difference)")
    return out


def _state_lines(confirmed: QueryConfirmation) -> list[str]:
    lines = []
    old = {(s.operator, s.store): s for s in confirmed.old_state}
    new = {(s.operator, s.store): s for s in confirmed.new_state}
    for op, store in sorted(old.keys() | new.keys()):
        before, after = old.get((op, store)), new.get((op, store))
        lines.append(f"    state operator {op} ({store}):")
        for part in ("key", "value"):
            was = getattr(before, part) if before else "-"
            now = getattr(after, part) if after else "-"
            if was == now:
                lines.append(f"      {part}: {_abbreviated(was, was)[0]} (unchanged)")
                continue
            mark = ("   <- changed" if _types(was) != _types(now)
                    else "   (field names only: Spark compares types)")
            shown_was, shown_now = _abbreviated(was, now)
            lines.append(f"      {part}: old {shown_was}")
            lines.append(f"      {' ' * len(part)}  new {shown_now}{mark}")
    return lines


_MANY_FIELDS = 8


def _abbreviated(was: str, now: str) -> tuple[str, str]:
    """Two struct schemas with the fields both share in place collapsed, so a schema of 52
    fields shows the fields that changed and their neighbours, not 52 fields twice."""
    def fields(schema: str) -> list[str] | None:
        if not (schema.startswith("struct<") and schema.endswith(">")):
            return None
        return split_top_level(schema[len("struct<"):-1])

    old, new = fields(was), fields(now)
    if old is None or new is None or max(len(old), len(new)) <= _MANY_FIELDS:
        return was, now
    differ = {i for i in range(max(len(old), len(new)))
              if i >= len(old) or i >= len(new) or old[i] != new[i]}
    keep = {j for i in differ for j in (i - 1, i, i + 1)} if differ else {0, 1}

    def shown(items: list[str]) -> str:
        out: list[str] = []
        hidden = 0
        for i, item in enumerate(items):
            if i in keep:
                if hidden:
                    out.append(f"...{hidden} more...")
                    hidden = 0
                out.append(item)
            else:
                hidden += 1
        if hidden:
            out.append(f"...{hidden} more...")
        return f"struct<{','.join(out)}> ({len(items)} fields)"

    return shown(old), shown(new)


def _types(schema: str) -> str:
    """A simple string without field names: what Spark's schema check compares."""
    return re.sub(r"(?<=[<,])[^:<>,]+:", "", schema)


def render_text(report: Report, confirmation: Confirmation, static_text: str,
                reproduce: Sequence[str]) -> str:
    confirmation = intended(report, confirmation)
    return "\n".join([static_text.rstrip("\n"), *_lines(report, confirmation, reproduce)]) + "\n"


def as_result(report: Report, confirmation: Confirmation, reproduce: Sequence[str]
              ) -> ResultConfirmation:
    """Spark's confirmation of a `diff` as part of its result, for every format."""
    confirmation = intended(report, confirmation)
    queries = []
    notes: list[tuple[str, str]] = []
    for (old, new), confirmed in zip(report.pairs, pair_confirmations(report, confirmation),
                                     strict=True):
        entry = _confirmation_json(confirmed, confirmation.problem)
        entry["static_verdict"] = static_verdict(report, old, new)
        queries.append(entry)
        label = (new or old).label  # type: ignore[union-attr]
        if confirmed is None and confirmation.problem:
            continue  # the problem, noted once below, says why no query ran
        if confirmed is None or confirmed.verdict is None:
            # No outcome is no good news: the static verdict stands, and the note says so.
            what = NOT_RUN if confirmed is None else OUTCOME_TEXT[confirmed.outcome]
            notes.append(("review", f"query {label}: {what}"))
        else:
            message = f": {confirmed.message}" if confirmed.message else ""
            notes.append((confirmed.verdict,
                          f"query {label}: {OUTCOME_TEXT[confirmed.outcome]}{message}"))
    if confirmation.problem:
        notes.insert(0, ("review", confirmation.problem))
    if confirmation.no_query:
        notes.insert(0, ("compatible", NO_QUERY))
    notes += [("review", f"disagreement: {line}") for line in disagreements(report, confirmation)]
    # A Spark error may quote the job's code or options: masked like the static report's.
    return ResultConfirmation(
        f"Spark {confirmation.spark_version} confirmation",
        tuple(mask_line(line) for line in _lines(report, confirmation, reproduce)),
        final_verdict(report, confirmation), _fields(report, confirmation, reproduce),
        tuple(queries), tuple((verdict, mask_line(note)) for verdict, note in notes))


def _fields(report: Report, confirmation: Confirmation, reproduce: Sequence[str]
            ) -> dict[str, Any]:
    return {
        "static_verdict": report.verdict,
        "spark": {
            "version": confirmation.spark_version,
            "problem": confirmation.problem,
            "no_query": confirmation.no_query,
            "warnings": list(confirmation.warnings),
            "disagreements": disagreements(report, confirmation),
            "reproduce": list(reproduce),
        },
    }


def _lines(report: Report, confirmation: Confirmation, reproduce: Sequence[str]) -> list[str]:
    """The text section: a blank line, then what Spark did to each query."""
    out = ["",
           f"Spark {confirmation.spark_version} confirmation (a local run of both versions on "
           "synthetic input; docs/confirm.md):"]
    if confirmation.problem:
        out.append(f"  {confirmation.problem}")
    if confirmation.no_query:
        out.append(f"  {NO_QUERY}")
    if report.databricks or not confirmation.spark_version.startswith(
            report.spark_version + "."):
        # A Databricks runtime's own restart behaviour (CF08-CF10) is not Apache Spark's.
        out.append(f"  note: the static verdict is for "
                   f"{shown_profile(report.spark_version, report.databricks)}; this run is "
                   f"{'Apache ' if report.databricks else ''}Spark {confirmation.spark_version}"
                   " (--spark-version sets the former)")
    for (old, new), confirmed in zip(report.pairs, pair_confirmations(report, confirmation),
                                     strict=True):
        label = (new or old).label  # type: ignore[union-attr]
        if confirmed is None:
            if not confirmation.problem:  # else the problem said why nothing ran, once
                out.append(f"  query {label}: not run: {NOT_RUN}")
            continue
        what = OUTCOME_TEXT[confirmed.outcome]
        if confirmed.message:
            what += f": {confirmed.message}"
        out.append(f"  query {label}: {what}")
        if confirmed.example_difference:
            out.append(f"    e.g. {confirmed.example_difference}")
        if confirmed.outcome in ("same-results", "results-differ", "differs-as-intended"):
            out.append(f"    rows written after the restart: {confirmed.restarted_rows}, by a "
                       f"fresh run: {confirmed.fresh_rows}")
        out.extend(_state_lines(confirmed))
        static = static_verdict(report, old, new)
        out.append(f"    static: {static}; Spark: {confirmed.verdict or 'no outcome'}")
        if sink_only(report, old, new):
            out.append("    (the static findings are about the sink, which this run stands in "
                       "with its own: Spark's outcome does not cover them)")
    for warning in confirmation.warnings:
        out.append(f"  warning: {warning}")
    disagree = disagreements(report, confirmation)
    for line in disagree:
        out.append(f"DISAGREEMENT: {line}")
    final = final_verdict(report, confirmation)
    if disagree or final != report.verdict:
        out.append(f"reproduce: {' '.join(reproduce)}")
    out.append(f"verdict (stricter of static and Spark): {final}")
    return out


def _confirmation_json(confirmed: QueryConfirmation | None, problem: str | None = None
                       ) -> dict[str, Any]:
    if confirmed is None:
        return {"outcome": "not-run", "verdict": None, "reason": problem or NOT_RUN}

    def schemas(items: Sequence[Any]) -> list[dict[str, Any]]:
        return [{"operator": s.operator, "store": s.store, "key": s.key, "value": s.value}
                for s in items]

    return {
        "outcome": confirmed.outcome,
        "verdict": confirmed.verdict,
        "error_class": confirmed.error_class,
        "message": confirmed.message,
        "rows_after_restart": confirmed.restarted_rows,
        "rows_fresh": confirmed.fresh_rows,
        "example_difference": confirmed.example_difference,
        "state_schemas": {"old": schemas(confirmed.old_state),
                          "new": schemas(confirmed.new_state)},
    }


def as_check_result(confirmed: Sequence[tuple[Report, Confirmation, Sequence[str]]],
                    static: Sequence[str] = ()) -> ResultConfirmation:
    """Spark's confirmation of every changed job of a `check`, for every format: each file's
    text section under its path, its JSON object in `confirmations`, its notes prefixed with
    its path, and the stricter of all verdicts, the `static` ones of every changed file
    included (a file Spark did not run keeps its own: the formats show this verdict)."""
    lines: list[str] = []
    notes: list[tuple[str, str]] = []
    files = []
    verdicts = list(static)
    version = ""
    for report, confirmation, reproduce in confirmed:
        one = as_result(report, confirmation, reproduce)
        version = version or confirmation.spark_version
        lines += ["", f"{report.new.path}:", *one.lines]
        notes += [(verdict, f"{report.new.path}: {note}") for verdict, note in one.notes]
        files.append({"path": report.new.path, **report_data(report, one)})
        verdicts.append(one.verdict)
    if not confirmed:
        none = ("no changed job could be run on Spark (added, deleted, or without a query "
                "on both sides): the static verdicts stand")
        lines += ["", f"Spark confirmation: {none}"]
        notes.append(("review", none))
    title = f"Spark {version} confirmation" if version else "Spark confirmation"
    return ResultConfirmation(title, tuple(lines),
                              stricter(*verdicts), {"confirmations": files}, (), tuple(notes))
