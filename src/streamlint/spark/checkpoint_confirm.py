"""`diff --checkpoint PATH NEW --confirm`: the state Spark itself derives from the new code.

The new job runs once from scratch in the Spark sandbox (`streamlint.spark.sandbox`: stand-in
sources with a batch of synthetic rows, stand-in sinks, availableNow), with the session settings
the checkpoint pins applied as Spark applies them on restart (they decide state formats, hence
schemas). The state schema files and operator metadata Spark wrote into the sandbox's own
checkpoint are read back with the checkpoint readers and compared with the real checkpoint's:
schemas by Spark's rule (`schema_compat`), stateful operators by count and kind. The user's
checkpoint is only read. Executes the job file's code: opt-in.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from streamlint.checkpoint.compare import state_schema_findings
from streamlint.checkpoint.model import Checkpoint, StatefulOperator
from streamlint.checkpoint.operators import operator_kind
from streamlint.checkpoint.reader import read_checkpoint
from streamlint.checkpoint.state_schema import struct_text
from streamlint.model import Loc
from streamlint.model.identity import QueryKey, owner
from streamlint.model.records import record
from streamlint.policy.config import load_config
from streamlint.report.result import Confirmation
from streamlint.rulebook.matrix import Finding, own_finding
from streamlint.spark.error_text import first_line, unwrapped
from streamlint.spark.runner import run_job
from streamlint.spark.runtime import no_spark_yet, start_session, stdout_to_stderr
from streamlint.spark.sandbox import CannotConfirm, Sandbox
from streamlint.spark.synthetic import kafka_rows, literal_pool, rows

RUN_TIMEOUT_SECONDS = 120.0
# Spark restores these from the offset log on restart; the sandbox keeps its own partition
# count (schemas do not depend on it, and hundreds of partitions make a local run slow).
NOT_APPLIED = frozenset({"spark.sql.shuffle.partitions"})
PROVIDER = "spark.sql.streaming.stateStore.providerClass"
# Where Spark's OffsetSeqMetadata lives (it moved in Spark 4.1).
OFFSET_SEQ_METADATA = ("org.apache.spark.sql.execution.streaming.checkpointing",
                       "org.apache.spark.sql.execution.streaming")


@record
class SparkState:
    """What Spark's run of the new code derived for the query that owns the checkpoint."""

    spark_version: str
    query: QueryKey | None  # the run's key for the matched query
    operators: tuple[StatefulOperator, ...]
    conf: tuple[tuple[str, str], ...]  # the pinned settings the run applied
    warnings: tuple[str, ...]
    problem: str | None = None  # why nothing could be derived


def derive_state(checkpoint: Checkpoint, job: Path, session: Any,
                 tables: Mapping[str, str] | None = None,
                 timeout: float = RUN_TIMEOUT_SECONDS) -> SparkState:
    """Run `job` from scratch in the sandbox and read the state Spark wrote for the query
    whose checkpointLocation is `checkpoint` (matched as the static pairing matches)."""
    import pyspark

    with tempfile.TemporaryDirectory(prefix="streamlint-checkpoint-confirm-") as tmp:
        try:
            return _derive(checkpoint, job, session, dict(tables or {}), timeout, Path(tmp),
                           pyspark.__version__)
        finally:
            _unload_state_stores(session)


def _derive(checkpoint: Checkpoint, job: Path, session: Any, tables: dict[str, str],
            timeout: float, workdir: Path, version: str) -> SparkState:
    def failed(problem: str, warnings: list[str] | None = None) -> SparkState:
        return SparkState(version, None, (), (), tuple(warnings or ()), problem)

    pool = literal_pool(job.read_text(encoding="utf-8", errors="replace"))
    plan = Sandbox(workdir / "plan", tables, pool, plan=True, session=session.newSession())
    try:
        planned = run_job(plan, job, timeout)
    except CannotConfirm as err:
        return failed(f"{job}: cannot confirm: {err}")
    if planned.error is not None:
        return failed(f"{job}: the job failed before its queries started: "
                      f"{unwrapped(first_line(planned.error))}", plan.warnings)
    match = owner(list(plan.queries.values()), lambda run: run.key, checkpoint.path)
    if match is None:
        return failed(f"{job}: no query of the Spark run writes to the checkpoint "
                      f"{checkpoint.path} (queries: "
                      f"{', '.join(map(str, plan.queries)) or 'none'})", plan.warnings)

    run_session = session.newSession()
    conf = restart_conf(checkpoint, session)
    provider = conf.get(PROVIDER)
    if provider is not None and not _loadable(session, provider):
        del conf[PROVIDER]  # a platform's own store (Databricks): schemas do not depend on it
        plan.warn(f"the checkpoint's state store provider {provider} is not in this Spark; "
                  "the run used Spark's default")
    for key, value in conf.items():
        with contextlib.suppress(Exception):  # a setting this Spark does not know
            run_session.conf.set(key, value)
    sandbox = Sandbox(workdir / "run", tables, pool, session=run_session)
    _land(sandbox, plan)
    try:
        with _pinned(conf):
            run = run_job(sandbox, job, timeout)
    except CannotConfirm as err:
        return failed(f"{job}: cannot confirm: {err}")
    warnings = [*plan.warnings, *(w for w in sandbox.warnings if w not in plan.warnings)]
    started = run.queries.get(match.key)
    error = run.error if started is None else (started.start_error or _exception(started))
    if run.timed_out:
        return failed(f"{job}: the Spark run did not finish in {timeout:.0f} s "
                      "(--confirm-timeout sets the limit)", warnings)
    if error is not None:
        return failed(f"{job}: the new code fails on Spark even from scratch: "
                      f"{unwrapped(first_line(error))}", warnings)
    written = sandbox.checkpoint(match.key)
    operators = read_checkpoint(str(written)).operators if written.is_dir() else ()
    return SparkState(version, match.key, operators, tuple(sorted(conf.items())),
                      tuple(warnings))


def restart_conf(checkpoint: Checkpoint, session: Any) -> dict[str, str]:
    """The settings Spark's restart takes from the offset log (`OffsetSeqMetadata.
    setSessionConf`): the pinned values, and for a setting an older Spark did not pin, the
    value that Spark version behaved with (`relevantSQLConfDefaultValues`)."""
    entry = checkpoint.last_committed or checkpoint.latest_offsets
    pinned = dict(entry.conf) if entry is not None else {}
    out = {k: v for k, v in _legacy_defaults(session).items() if k not in pinned}
    out.update(pinned)
    return {k: v for k, v in out.items() if k not in NOT_APPLIED}


def _legacy_defaults(session: Any) -> dict[str, str]:
    jvm = session.sparkContext._jvm
    for package in OFFSET_SEQ_METADATA:
        try:
            module = jvm.java.lang.Class.forName(f"{package}.OffsetSeqMetadata$").getField(
                "MODULE$").get(None)
            scala_map = module.relevantSQLConfDefaultValues()
        except Exception:  # noqa: S112 - another Spark version keeps it elsewhere
            continue
        iterator = scala_map.iterator()
        out = {}
        while iterator.hasNext():
            pair = iterator.next()
            out[str(pair._1())] = str(pair._2())
        return out
    return {}


def _loadable(session: Any, class_name: str) -> bool:
    try:
        session.sparkContext._jvm.java.lang.Class.forName(class_name)
    except Exception:
        return False
    return True


@contextlib.contextmanager
def _pinned(conf: Mapping[str, str]) -> Iterator[None]:
    """While the job runs, its own `spark.conf.set` of a pinned setting is ignored: on a
    restart Spark overrides it with the checkpoint's value too."""
    from pyspark.sql.conf import RuntimeConfig

    original = RuntimeConfig.set

    def set_unless_pinned(self: Any, key: str, value: Any) -> None:
        if key not in conf:
            original(self, key, value)

    RuntimeConfig.set = set_unless_pinned  # type: ignore[method-assign]
    try:
        yield
    finally:
        RuntimeConfig.set = original  # type: ignore[method-assign]


def _land(sandbox: Any, plan: Any) -> None:
    """One batch of synthetic rows in every stand-in source the plan run saw."""
    value_schema = plan.value_schema()
    for identity, spec in plan.sources.items():
        directory = sandbox.source_dir(identity)
        directory.mkdir(parents=True, exist_ok=True)
        data = (kafka_rows(spec.topic, value_schema, 1, sandbox.pool)
                if spec.kind == "kafka" else rows(spec.schema, 1, sandbox.pool))
        (directory / "batch-1.json").write_text("".join(json.dumps(r) + "\n" for r in data))


def _exception(run: Any) -> BaseException | None:
    if run.handle is None:
        return None
    try:
        return run.handle.exception()
    except Exception as err:  # the JVM side is gone: report what it said
        return err


def _unload_state_stores(session: Any) -> None:
    with contextlib.suppress(Exception):
        session.sparkContext._jvm.org.apache.spark.sql.execution.streaming.state \
            .StateStore.stop()


# -- findings ----------------------------------------------------------------------------------


def spark_findings(checkpoint: Checkpoint, state: SparkState, query: str) -> list[Finding]:
    """CK02 for state schemas Spark refuses, CK03 for stateful operators that differ, CK04
    when Spark could not derive anything (the static findings stand alone then)."""
    where = Loc(f"{checkpoint.path}/state", 1, 0)
    if state.problem is not None:
        return [own_finding("CK04", query, where, None, problem=state.problem)]
    findings: list[Finding] = []
    stored = [operator_kind(op.name) for op in checkpoint.operators]
    derived = [operator_kind(op.name) for op in state.operators]
    if len(stored) != len(derived) or any(
            a != b for a, b in zip(stored, derived, strict=True)
            if "unknown" not in (a, b)):
        findings.append(own_finding("CK03", query, where, None,
                                    derived=_operators(state.operators),
                                    stored=_operators(checkpoint.operators)))
    schemas = {(op.id, store.name): (store.schemas[0].key, store.schemas[0].value)
               for op in state.operators for store in op.stores if len(store.schemas) == 1}
    findings += state_schema_findings(checkpoint, schemas, query)
    return findings


def _operators(operators: tuple[StatefulOperator, ...]) -> str:
    if not operators:
        return "no stateful operator"
    names = ", ".join(f"state/{op.id} {op.name or 'unknown'}" for op in operators)
    return f"{len(operators)} stateful operator(s) ({names})"


def confirmation_data(state: SparkState) -> dict[str, Any]:
    """The `confirmation` object of the JSON report: what Spark ran and derived."""
    return {
        "spark_version": state.spark_version,
        "query": str(state.query) if state.query is not None else None,
        "problem": state.problem,
        "applied_conf": dict(state.conf),
        "operators": [{"id": op.id, "name": op.name, "stores": [
            {"name": store.name, "key_schema": struct_text(schema.key),
             "value_schema": struct_text(schema.value)}
            for store in op.stores for schema in store.schemas]}
            for op in state.operators],
        "warnings": list(state.warnings),
    }


def confirmation_of(state: SparkState, verdict: str) -> Confirmation:
    """What Spark derived, as part of the result (its findings are the report's already)."""
    lines = tuple(confirmation_text(state).splitlines())
    if state.problem is not None:
        notes = (("review", f"Spark {state.spark_version} could not confirm the state "
                            f"schemas: {state.problem}"),)
    else:
        stores = sum(len(op.stores) for op in state.operators)
        notes = ((verdict,
                  f"Spark {state.spark_version} derived the state schemas of the new code "
                  f"({len(state.operators)} stateful operator(s), {stores} store(s)); the "
                  "findings compare them with the checkpoint's"),)
    return Confirmation(f"Spark {state.spark_version} confirmation", lines, verdict,
                        {"confirmation": confirmation_data(state)}, (), notes)


def confirmation_text(state: SparkState) -> str:
    lines = [f"confirmed with Spark {state.spark_version} (the new code ran once in a local "
             "sandbox; the checkpoint was only read)"]
    if state.problem is not None:
        lines.append(f"  not confirmed: {state.problem}")
    for op in state.operators:
        for store in op.stores:
            for schema in store.schemas:
                lines.append(f"  state/{op.id} {op.name or 'unknown'} {schema.name}: key "
                             f"{struct_text(schema.key)}, value {struct_text(schema.value)}")
    lines += [f"  warning: {w}" for w in state.warnings]
    return "\n".join(lines) + "\n"


def spark_state(checkpoint: Checkpoint, job: Path, timeout: float) -> SparkState:
    """One local Spark session (a caller's active one is reused and left running)."""

    tables = dict(load_config(job.parent).tables)
    ours = no_spark_yet()
    with stdout_to_stderr():  # Spark's Python workers print; the report owns stdout
        session = start_session()
        try:
            return derive_state(checkpoint, job, session, tables, timeout)
        finally:
            if ours:
                session.stop()
