"""The real Spark checkpoints under tests/fixtures/checkpoints, and what Spark reported."""

from __future__ import annotations

import json
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "checkpoints"
# Written by tests/make_checkpoint_fixtures.py (real Spark) for shapes the shared set lacks.
GENERATED = Path(__file__).parent / "fixtures" / "checkpoints-generated"


def fixture_dirs() -> list[Path]:
    """Every `spark-<version>/<query>/` that holds a checkpoint Spark wrote."""
    return sorted(p.parent for root in (FIXTURES, GENERATED)
                  for p in root.glob("spark-*/*/checkpoint"))


def fixture_id(path: Path) -> str:
    mark = "+" if path.is_relative_to(GENERATED) else ""
    return f"{path.parent.name}/{mark}{path.name}"


def expected(path: Path) -> dict:
    return json.loads((path / "query.json").read_text())["expected"]


def state_readers(path: Path) -> tuple[list[dict], list[dict]]:
    """What Spark 4.x's `state-metadata` rows and `statestore` schemas were for this query.

    Only reads that succeeded count (the checkpoint format v2 fixture is readable only in a
    session with the writer's conf; that session's entry is stored under `<query> [...]`).
    """
    readers = json.loads((path.parent / "state-readers.json").read_text())
    rows: list[dict] = []
    stores: list[dict] = []
    for key, value in readers.items():
        if key != path.name and not key.startswith(path.name + " ["):
            continue
        metadata = value.get("state-metadata")
        if isinstance(metadata, dict) and "rows" in metadata and not rows:
            rows = metadata["rows"]
        for read in value.get("statestore") or ():
            if read.get("schema") and read not in stores:
                stores.append(read)
    return rows, stores
