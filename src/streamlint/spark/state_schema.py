"""The state key/value schemas Spark wrote into a checkpoint, per stateful operator.

Finds Spark's schema files in a run's temporary checkpoint (v1/v2 `state/<op>/0/[<store>/]
_metadata/schema`, v3 `state/<op>/_stateSchema/<store>/<batch>_<uuid>` for transformWithState,
the newest per store) and parses them with `streamlint.checkpoint.state_schema`. Shown without
nullability: Spark 4.3 writes nullable fields where 3.5-4.1 wrote non-nullable ones.
"""

from __future__ import annotations

from pathlib import Path

from streamlint.checkpoint.state_schema import parse_state_schema, struct_text
from streamlint.model.records import record


@record
class StoreSchema:
    operator: int
    store: str  # the store or (v3) column family name
    key: str  # Spark's simpleString of the key schema, nullability left out
    value: str


def read_schema_file(path: Path, operator: int, store: str) -> list[StoreSchema]:
    """One schema file, parsed by the checkpoint readers (one parser of Spark's format)."""
    return [StoreSchema(operator, schema.name, struct_text(schema.key) or "",
                        struct_text(schema.value) or "")
            for schema in parse_state_schema(str(path), path.read_bytes(), store)
            if not schema.name.startswith("$")]  # timers and row counters are Spark's own


def read_state_schemas(checkpoint: Path) -> list[StoreSchema]:
    """Every stateful operator's schemas in `checkpoint` (the newest v3 file per store)."""
    state = checkpoint / "state"
    if not state.is_dir():
        return []
    out: list[StoreSchema] = []
    for op_dir in sorted((d for d in state.iterdir() if d.name.isdigit()), key=lambda d:
                         int(d.name)):
        operator = int(op_dir.name)
        v3 = op_dir / "_stateSchema"
        if v3.is_dir():
            for store_dir in sorted(v3.iterdir()):
                files = sorted(store_dir.iterdir(), key=lambda p: (_batch(p.name), p.name))
                files = [f for f in files if not f.name.startswith(".")]
                if files:
                    out.extend(read_schema_file(files[-1], operator, store_dir.name))
            continue
        part0 = op_dir / "0"
        for schema in sorted(part0.glob("**/_metadata/schema")):
            parent = schema.parent.parent
            store = "default" if parent == part0 else parent.name
            out.extend(read_schema_file(schema, operator, store))
    return out


def _batch(name: str) -> int:
    head = name.split("_", 1)[0]
    return int(head) if head.isdigit() else -1
