"""The two deployments `--confirm` compares: stand-in source directories and checkpoints
shared by the runs of each (`confirm`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from streamlint.model.identity import QueryKey
from streamlint.spark.runner import JobRun, StartedJob, cancel_job, finish_job, start_job
from streamlint.spark.runtime import run_session
from streamlint.spark.sandbox import Sandbox, SourceSpec
from streamlint.spark.state_schema import StoreSchema, read_state_schemas
from streamlint.spark.synthetic import kafka_rows, rows


def merged_sources(plans: Any) -> dict[str, SourceSpec]:
    """Each source once; a file read with more columns by one version gets them all."""
    from pyspark.sql.types import StructType

    merged: dict[str, SourceSpec] = {}
    for plan in plans:
        for identity, spec in plan.sources.items():
            if identity not in merged:
                merged[identity] = spec
                continue
            known = {f.name for f in merged[identity].schema.fields}
            extra = [f for f in spec.schema.fields if f.name not in known]
            if extra:
                fields = [*merged[identity].schema.fields, *extra]
                merged[identity] = SourceSpec(identity, spec.kind, StructType(fields),
                                              spec.topic)
    return merged


class Deployment:
    """Stand-in source directories and checkpoints shared by the runs of one deployment."""

    def __init__(self, root: Path, tables: Mapping[str, str], pool: tuple[str, ...],
                 sources: Mapping[str, SourceSpec], value_schemas: list[Any],
                 session: Any) -> None:
        self.root, self.tables, self.pool = root, tables, pool
        self.sources, self.value_schemas, self.session = sources, value_schemas, session
        self._sandboxes: list[Sandbox] = []
        self._started: list[StartedJob] = []
        self._layout = Sandbox(root, tables, pool)

    def land(self, batch: int) -> None:
        value_schema = Sandbox(self.root, self.tables, self.pool,
                               json_schemas=list(self.value_schemas)).value_schema()
        for identity, spec in self.sources.items():
            directory = self._layout.source_dir(identity)
            directory.mkdir(parents=True, exist_ok=True)
            data = (kafka_rows(spec.topic, value_schema, batch, self.pool)
                    if spec.kind == "kafka" else rows(spec.schema, batch, self.pool))
            (directory / f"batch-{batch}.json").write_text(
                "".join(json.dumps(row) + "\n" for row in data))

    def run(self, job: Path, timeout: float) -> JobRun:
        return finish_job(self.start(job, timeout))

    def start(self, job: Path, timeout: float) -> StartedJob:
        """Run `job` up to its queries' start; `finish_job` waits for them."""
        sandbox = Sandbox(self.root, self.tables, self.pool, session=run_session(self.session),
                          wait_in_job=False)
        self._sandboxes.append(sandbox)
        started = start_job(sandbox, job, timeout)
        self._started.append(started)
        return started

    def cancel(self) -> None:
        """Stop every query of this deployment's runs (a pair given up half-way)."""
        for started in self._started:
            cancel_job(started)

    @property
    def warnings(self) -> list[str]:
        seen: list[str] = []
        for sandbox in self._sandboxes:
            seen.extend(w for w in sandbox.warnings if w not in seen)
        return seen

    def state(self, key: QueryKey) -> list[StoreSchema]:
        return read_state_schemas(self._layout.checkpoint(key))
