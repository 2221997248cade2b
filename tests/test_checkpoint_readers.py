"""The readers against every real checkpoint: Spark's own answer comes from query.json.

`expected` in each fixture's query.json holds the batch ids Spark left, the last committed
batch, the raw lines of its offsets file and Spark's progress endOffset per source;
state-readers.json holds what Spark 4.x's state data sources returned. Nothing here is copied
from streamlint's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from checkpoint_fixtures import expected, fixture_dirs, fixture_id, state_readers

from streamlint.checkpoint import read_checkpoint
from streamlint.checkpoint.operators import operator_kind
from streamlint.checkpoint.state_schema import struct_text

FIXTURES = fixture_dirs()


def test_fixtures_are_there() -> None:
    versions = {p.parent.name for p in FIXTURES}
    assert {"spark-3.5.9", "spark-4.3.0"} <= versions
    assert len(FIXTURES) >= 30


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_last_committed_batch_as_spark_left_it(fixture: Path) -> None:
    want = expected(fixture)
    checkpoint = read_checkpoint(str(fixture / "checkpoint"))
    assert checkpoint.query_id == want["query_id"]
    assert checkpoint.last_committed_batch == want["last_committed_batch"]
    assert list(checkpoint.uncommitted_batches) == want["uncommitted_batches"]
    assert checkpoint.offset_batches == (min(want["offsets_batches"]),
                                         max(want["offsets_batches"]))
    assert checkpoint.commit_batches == (min(want["commits_batches"]),
                                         max(want["commits_batches"]))
    assert checkpoint.warnings == ()


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_offsets_file_lines(fixture: Path) -> None:
    lines = expected(fixture)["last_committed_offsets_file_lines"]
    entry = read_checkpoint(str(fixture / "checkpoint")).last_committed
    assert entry is not None
    assert f"v{entry.version}" == lines[0]
    metadata = json.loads(lines[1])
    assert entry.watermark_ms == metadata["batchWatermarkMs"]
    assert entry.timestamp_ms == metadata["batchTimestampMs"]
    assert dict(entry.conf) == metadata["conf"]
    if entry.version == 1:
        assert [s.offset for s in entry.sources] == lines[2:]
        assert all(s.name is None for s in entry.sources)
    else:
        assert [f"{s.name}:{s.offset}" for s in entry.sources] == lines[2:]


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_source_offsets_are_sparks_progress_end_offsets(fixture: Path) -> None:
    progress = expected(fixture)["last_committed_progress_sources"]
    entry = read_checkpoint(str(fixture / "checkpoint")).last_committed
    assert entry is not None
    assert len(entry.sources) == len(progress)
    for source, reported in zip(entry.sources, progress, strict=True):
        assert json.loads(source.offset) == reported["endOffset"]
        kind = "file" if reported["description"].startswith("FileStreamSource") else "number"
        assert source.kind == kind


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if not f.parent.name.startswith(
    "spark-3.")], ids=fixture_id)
def test_operators_match_sparks_state_metadata(fixture: Path) -> None:
    rows, _ = state_readers(fixture)
    operators = read_checkpoint(str(fixture / "checkpoint")).operators
    got = sorted((op.id, op.name, store.name, op.partitions)
                 for op in operators for store in op.stores)
    want = sorted((r["operatorId"], r["operatorName"], r["stateStoreName"], r["numPartitions"])
                  for r in rows)
    assert got == want
    assert all(op.name_source == "metadata" for op in operators)
    for op in operators:
        props = [r["operatorProperties"] for r in rows if r["operatorId"] == op.id][0]
        assert op.properties == (json.loads(props) if props else None)


def _split_statestore_schema(text: str) -> dict[str, str]:
    """`struct<key:struct<...>,value:struct<...>,partition_id:int>` -> top-level fields."""
    inner = text[len("struct<"):-1]
    fields, depth, start = {}, 0, 0
    for i, ch in enumerate(inner + ","):
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "," and depth == 0:
            name, _, type_ = inner[start:i].partition(":")
            fields[name] = type_
            start = i + 1
    return fields


def _schemas_as_spark_reads_them(fixture: Path) -> list[tuple[str, str, str]]:
    """(store or state variable, key struct, value struct) from Spark's statestore reader."""
    _, reads = state_readers(fixture)
    out = []
    for read in reads:
        fields = _split_statestore_schema(read["schema"])
        option = read["option"]
        if "joinSide" in option:
            out.append((f"{option['joinSide']}-join", fields["key"], fields["value"]))
        elif "stateVarName" in option:
            value = fields.get("value") or fields.get("list_element")
            if value:  # map state's value is per user key: not a family's plain value
                out.append((option["stateVarName"], fields["key"], value))
        else:
            out.append((option["storeName"], fields["key"], fields["value"]))
    return sorted(out)


def _schemas_as_streamlint_reads_them(fixture: Path) -> list[tuple[str, str, str]]:
    out = []
    for op in read_checkpoint(str(fixture / "checkpoint")).operators:
        stores = {s.name: s for s in op.stores}
        if op.name == "symmetricHashJoin":
            # The reader shows the join key (keyToNumValues) and the buffered row
            # (keyWithIndexToValue) without its internal `matched` flag.
            for side in ("left", "right"):
                key = stores[f"{side}-keyToNumValues"].schemas[0].key
                value = tuple(f for f in stores[f"{side}-keyWithIndexToValue"].schemas[0].value
                              if f.name != "matched")
                out.append((f"{side}-join", struct_text(key), struct_text(value)))
            continue
        for store in op.stores:
            for schema in store.schemas:
                if len(store.schemas) > 1:  # transformWithState: one family per variable
                    if not schema.name.startswith("$"):  # internal timer/counter families
                        out.append((schema.name, struct_text(schema.key),
                                    struct_text(schema.value)))
                else:
                    out.append((store.name, struct_text(schema.key), struct_text(schema.value)))
    return sorted(out)


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if state_readers(f)[1]], ids=fixture_id)
def test_state_schemas_match_sparks_statestore_reader(fixture: Path) -> None:
    want = _schemas_as_spark_reads_them(fixture)
    got = [g for g in _schemas_as_streamlint_reads_them(fixture)
           if g[0] in {w[0] for w in want}]
    assert got == want


def _same_query_in_spark_4(fixture: Path) -> Path:
    return fixture.parent.parent / "spark-4.3.0" / fixture.name


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if f.parent.name.startswith("spark-3.")
                                     and state_readers(_same_query_in_spark_4(f))[0]],
                         ids=fixture_id)
def test_spark_3_5_operators_inferred_without_metadata(fixture: Path) -> None:
    """3.5 writes no operator metadata: the inferred kind and stores must match what Spark 4
    recorded for the same query, and the schemas what Spark 4's statestore reader returned."""
    rows, _ = state_readers(_same_query_in_spark_4(fixture))
    operators = read_checkpoint(str(fixture / "checkpoint")).operators
    assert all(op.name_source == "inferred" for op in operators)
    got = sorted((op.id, operator_kind(op.name), s.name, op.partitions)
                 for op in operators for s in op.stores)
    want = sorted((r["operatorId"], operator_kind(r["operatorName"]), r["stateStoreName"],
                   r["numPartitions"]) for r in rows)
    assert got == want
    assert (_schemas_as_streamlint_reads_them(fixture)
            == _schemas_as_spark_reads_them(_same_query_in_spark_4(fixture)))


@pytest.mark.parametrize("fixture", [f for f in FIXTURES if (f / "checkpoint" / "state").exists()],
                         ids=fixture_id)
def test_every_partition_holds_the_committed_state_version(fixture: Path) -> None:
    """Batch N commits state version N + 1 (FORMAT.md §1), in every partition and store."""
    want = expected(fixture)["last_committed_batch"] + 1
    for op in read_checkpoint(str(fixture / "checkpoint")).operators:
        for store in op.stores:
            assert store.files.committed_version == want
            assert store.files.partitions_checked == op.partitions
            assert store.files.missing == ()
            assert store.files.kinds
            assert store.files.latest_version >= want


@pytest.mark.parametrize("name", ["agg_hdfs", "union_rate_file"])
def test_a_final_line_break_adds_no_source(tmp_path: Path, name: str) -> None:
    # Spark reads logs with getLines(), so an offsets file that gained a final "\n" (an
    # editor, a copy through another tool) still holds the same sources; it used to show an
    # extra, empty source that no startingOffsets could be derived for.
    import shutil

    fixture = next(f for f in FIXTURES if f.parent.name == "spark-4.3.0" and f.name == name)
    lines = expected(fixture)["last_committed_offsets_file_lines"]
    copy = tmp_path / "checkpoint"
    shutil.copytree(fixture / "checkpoint", copy)
    batch = max(expected(fixture)["commits_batches"])
    offsets = copy / "offsets" / str(batch)
    offsets.write_bytes(offsets.read_bytes() + b"\n")
    entry = read_checkpoint(str(copy)).last_committed
    assert entry is not None
    assert [s.offset for s in entry.sources] == lines[2:]
    offsets.write_text("\r\n".join(lines) + "\r\n")
    entry = read_checkpoint(str(copy)).last_committed
    assert entry is not None
    assert [s.offset for s in entry.sources] == lines[2:]
