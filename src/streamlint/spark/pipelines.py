"""A pipeline file (Databricks DLT / Lakeflow, `import dlt`) run as its runtime would run it.

A pipeline file starts nothing itself: the runtime calls its decorated functions and writes
each streaming table. For a confirmation run, `dlt` is a stand-in module that records the
tables, views and flows while the file runs; then `start_flows` calls each function (as the
runtime does, with no arguments) and starts every streaming result as a query whose
checkpoint is the identity the static extraction gives it (`pipeline flow <table>/<flow>`,
`extract/pipelines.py`), so the two are paired. A batch result is a materialized view:
recomputed on every update, no checkpoint, not started. `dlt.read(name)` of another dataset
is a batch read of it (an empty DataFrame of its schema), `dlt.read_stream(name)` its
streaming DataFrame; `expect_or_drop` filters as the runtime does, the other expectations
only report. AUTO CDC flows (`apply_changes`) need the pipeline's runtime: the pair cannot be
confirmed, and the report says so.
"""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from streamlint.spark.sandbox import CannotConfirm

DROP = ("expect_or_drop", "expect_all_or_drop")
REPORT_ONLY = ("expect", "expect_all", "expect_or_fail", "expect_all_or_fail")


@dataclass
class Dataset:
    name: str
    function: Callable[[], Any] | None
    kind: str  # "table", "view" or "flow"
    target: str  # the table a flow writes to (its own name for a table)


@dataclass
class StandIn:
    """What a pipeline file declared while it ran."""

    datasets: list[Dataset] = field(default_factory=list)

    def find(self, name: str) -> Dataset | None:
        name = name.split(".")[-1] if name.lower().startswith("live.") else name
        return next((d for d in self.datasets if d.name == name and d.function), None)

    def module(self) -> types.ModuleType:
        module = types.ModuleType("dlt")
        for kind, names in (("table", ("table", "create_table", "materialized_view")),
                            ("view", ("view", "create_view"))):
            for name in names:
                setattr(module, name, self._declare(kind))
        module.append_flow = self._flow  # type: ignore[attr-defined]
        module.read = self._read  # type: ignore[attr-defined]
        module.read_stream = self._read_stream  # type: ignore[attr-defined]
        for name in ("create_streaming_table", "create_streaming_live_table",
                     "create_target_table"):
            setattr(module, name, lambda *args, **kwargs: None)
        for name in ("apply_changes", "create_auto_cdc_flow", "apply_changes_from_snapshot"):
            setattr(module, name, _cdc)
        for name in DROP:
            setattr(module, name, self._expectation(dropping=True))
        for name in REPORT_ONLY:
            setattr(module, name, self._expectation(dropping=False))
        return module

    def _expectation(self, dropping: bool) -> Callable[..., Any]:
        def expectation(*args: Any, **kwargs: Any) -> Callable[[Any], Any]:
            conditions = _conditions(args, kwargs)

            def wrap(f: Callable[[], Any]) -> Callable[[], Any]:
                if not dropping:
                    return f

                def dropped() -> Any:
                    frame = f()
                    for condition in conditions:
                        frame = frame.filter(condition)
                    return frame

                dropped.__name__ = f.__name__
                for dataset in self.datasets:  # an expectation above the table's decorator
                    if dataset.function is f:
                        dataset.function = dropped
                return dropped

            return wrap

        return expectation

    def _declare(self, kind: str) -> Callable[..., Any]:
        def declare(function: Any = None, **options: Any) -> Any:
            def register(f: Callable[[], Any]) -> Callable[[], Any]:
                name = str(options.get("name") or f.__name__)
                self.datasets.append(Dataset(name, f, kind, name))
                return f

            return register(function) if callable(function) else register

        return declare

    def _flow(self, target: str | None = None, name: str | None = None, **_: Any) -> Any:
        def register(f: Callable[[], Any]) -> Callable[[], Any]:
            self.datasets.append(Dataset(str(name or f.__name__), f, "flow", str(target)))
            return f

        return register

    def _read(self, name: str) -> Any:
        dataset = self.find(name)
        if dataset is None:
            raise CannotConfirm(f"dlt.read({name!r}): no dataset of that name in the file")
        frame = dataset.function()  # type: ignore[misc]
        if not frame.isStreaming:
            return frame
        session = frame.sparkSession
        return session.createDataFrame([], frame.schema)

    def _read_stream(self, name: str) -> Any:
        dataset = self.find(name)
        if dataset is None:
            raise CannotConfirm(f"dlt.read_stream({name!r}): no dataset of that name in the "
                                "file")
        return dataset.function()  # type: ignore[misc]

    def start_flows(self) -> None:
        """Start every streaming table and flow, as the pipeline's update would."""
        for dataset in self.datasets:
            if dataset.kind == "view" or dataset.function is None:
                continue
            frame = dataset.function()
            if frame is None or not getattr(frame, "isStreaming", False):
                continue  # a materialized view
            (frame.writeStream.queryName(dataset.name)
             .option("checkpointLocation", f"pipeline flow {dataset.target}/{dataset.name}")
             .toTable(dataset.target))


def _cdc(*args: Any, **kwargs: Any) -> None:
    raise CannotConfirm("an AUTO CDC flow (dlt.apply_changes / create_auto_cdc_flow) runs only "
                        "in the pipeline's runtime")


def _conditions(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str]:
    """`expect_or_drop("name", "cond")` or `expect_all_or_drop({"name": "cond", ...})`."""
    if args and isinstance(args[0], dict):
        return [str(c) for c in args[0].values()]
    if len(args) > 1:
        return [str(args[1])]
    condition = kwargs.get("constraint") or kwargs.get("inv")
    return [str(condition)] if condition else []


@contextlib.contextmanager
def pipeline_module() -> Iterator[StandIn]:
    """`import dlt` gives the stand-in while the block runs, whatever is installed under that
    name (dltHub's unrelated `dlt`, Databricks' stub package): a run never wants a real
    pipeline runtime."""
    standin = StandIn()
    saved = sys.modules.get("dlt")
    sys.modules["dlt"] = standin.module()
    try:
        yield standin
    finally:
        if saved is None:
            sys.modules.pop("dlt", None)
        else:
            sys.modules["dlt"] = saved
