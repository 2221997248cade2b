"""A rule of the restart-compatibility matrix as a record (`Rule`, its `Example`s), the
runtime a rule is matched against (`Runtime`), and how a Spark version and a version range
are read. `rulebook/book.py` loads the rules into these records."""

from __future__ import annotations

from streamlint.model.errors import UsageError
from streamlint.model.records import record
from streamlint.rulebook.change import Change


@record
class Example:
    """An old/new pair of job snippets and the verdict their diff must get."""

    name: str
    verdict: str
    old: str
    new: str
    spark: str | None = None
    # The Databricks runtime the example is judged for ("18.3"): its Spark is the runtime's
    # (rules/runtimes.toml), so an example names one or the other.
    databricks: str | None = None
    fires: bool = True  # False: an example where the rule must not fire
    # How the example runs (tests/test_rule_examples.py): "diff" (old/new job texts through
    # the diff), or, for the codes streamlint raises itself (streamlint.own_rules): "suppress"
    # (the diff command, suppressions applied), "accept" (git mode with `accept` as the
    # acceptance file), "checkpoint" / "confirm" (`diff --checkpoint` of `new` against the
    # fixture `checkpoint`, with `--confirm`), "judge" (a change of kind `change` judged).
    kind: str = "diff"
    checkpoint: str = ""
    accept: str = ""
    change: str = ""
    # Where the rule fires: a distinctive part of its message, and the line of the finding in
    # the new snippet (in the old one for a finding with no new location).
    message: str | None = None
    line: int | None = None


@record
class Runtime:
    """What a rule is matched against: the Spark version a job runs on, and the release of the
    Databricks runtime that runs it (None on Apache Spark)."""

    spark: tuple[int, ...]
    databricks: tuple[int, ...] | None = None


@record
class Rule:
    """One row of the restart-compatibility matrix."""

    code: str
    name: str
    change: tuple[str, ...]
    verdict: str
    message: str
    why: str
    fix: str
    docs: str
    spark: str
    when: tuple[tuple[str, tuple[str, ...]], ...]
    examples: tuple[Example, ...]
    family: str
    # The rules streamlint raises itself (streamlint.own_rules): where they come from, and
    # the findings they take the place of ({"change": kinds, "verdict": verdicts}).
    raised_by: str = ""
    overrides: tuple[tuple[str, tuple[str, ...]], ...] = ()
    variants: tuple[tuple[str, str], ...] = ()
    # The verdict holds whatever the old and new values are (a filter, a rate limit, a
    # trigger's interval): a change it judges stays its own even when a value is only known
    # at run time, instead of becoming a question (UN02).
    value_free: bool = False
    # The change alters the job's results by design (a filter, a projection): rows that
    # differ between a restart and a fresh run of the new code are what it intends, not
    # silent corruption (`--confirm`, streamlint.spark.intent).
    by_design: bool = False
    # The Databricks runtimes the rule holds on (`>=17.3`), for a restart Databricks documents
    # to differ from Apache Spark's; it then holds on no Apache Spark. Empty: wherever the
    # `spark` range holds, a Databricks runtime judged by the Spark version it runs.
    databricks: str = ""

    def holds_for(self, runtime: Runtime) -> bool:
        """Whether the rule holds on `runtime` (its ranges only, not a change's facts)."""
        if self.databricks and (runtime.databricks is None
                                or not version_in(runtime.databricks, self.databricks)):
            return False
        return version_in(runtime.spark, self.spark)

    def applies(self, change: Change, runtime: Runtime) -> bool:
        if change.kind not in self.change or not self.holds_for(runtime):
            return False
        return all(change.facts.get(key) in values for key, values in self.when)


def parse_version(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.strip().split("."))
    except ValueError:
        raise UsageError(f"not a Spark version: {text!r} (expected e.g. 3.5 or 4.2.0)") from None


def version_in(version: tuple[int, ...], spec: str) -> bool:
    """`>=3.5,<4.2` style ranges; versions compare on the parts both sides give."""
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        op = clause.rstrip("0123456789.")
        bound = parse_version(clause[len(op):])
        mine = version[: len(bound)] + (0,) * max(0, len(bound) - len(version))
        ok = {">=": mine >= bound, ">": mine > bound, "<=": mine <= bound, "<": mine < bound,
              "==": mine == bound, "": mine == bound}.get(op)
        if not ok:
            return False
    return True
