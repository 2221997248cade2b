"""`streamlint checkpoint show|offsets` end to end, on real checkpoints and a Kafka one.

Expected values come from each fixture's query.json (what Spark wrote and reported) and,
for Kafka (no broker here), from the offsets-log form documented in Spark's source
(`JsonUtils.partitionOffsets`: topic -> partition as a JSON string key -> offset).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from checkpoint_fixtures import expected, fixture_dirs, fixture_id

from streamlint.cli import main

FIXTURES = fixture_dirs()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_show_json_is_sparks_answer(fixture: Path, capsys: pytest.CaptureFixture[str]) -> None:
    want = expected(fixture)
    code, out, err = run(capsys, "checkpoint", "show", str(fixture / "checkpoint"),
                         "--format", "json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["query_id"] == want["query_id"]
    assert data["last_committed_batch"] == want["last_committed_batch"]
    assert data["uncommitted_batches"] == want["uncommitted_batches"]
    lines = want["last_committed_offsets_file_lines"]
    assert data["conf"] == json.loads(lines[1])["conf"]
    assert data["last_committed_timestamp_ms"] == json.loads(lines[1])["batchTimestampMs"]
    assert [s["index"] for s in data["sources"]] == list(range(len(lines) - 2))
    raw = [f"{s['name']}:{s['offset']}" if s["name"] else s["offset"] for s in data["sources"]]
    assert raw == lines[2:]
    progress = want["last_committed_progress_sources"]
    assert [json.loads(s["offset"]) for s in data["sources"]] == [
        p["endOffset"] for p in progress]
    for op in data["operators"]:
        assert {"id", "name", "partitions", "stores"} <= set(op)
        for store in op["stores"]:
            assert {"key_schema", "value_schema"} <= set(store)


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_show_text(fixture: Path, capsys: pytest.CaptureFixture[str]) -> None:
    want = expected(fixture)
    code, out, _ = run(capsys, "checkpoint", "show", str(fixture / "checkpoint"))
    assert code == 0
    assert f"query id: {want['query_id']}" in out
    assert f"last committed batch: {want['last_committed_batch']} " in out
    for batch in want["uncommitted_batches"]:
        assert f"uncommitted batch {batch}:" in out


@pytest.mark.parametrize("fixture", FIXTURES, ids=fixture_id)
def test_offsets_are_the_last_committed_batch(fixture: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    want = expected(fixture)
    code, out, _ = run(capsys, "checkpoint", "offsets", str(fixture / "checkpoint"),
                       "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["batch"] == want["last_committed_batch"]
    assert data["committed"] is True
    assert [json.loads(s["offset"]) for s in data["sources"]] == [
        p["endOffset"] for p in want["last_committed_progress_sources"]]


def test_offsets_explain_an_uncommitted_last_batch(capsys: pytest.CaptureFixture[str]) -> None:
    uncommitted = [f for f in FIXTURES if f.name == "uncommitted_batch"]
    assert uncommitted  # else the loop below checks nothing and passes
    for fixture in uncommitted:
        want = expected(fixture)
        pending = want["uncommitted_batches"][0]
        code, out, _ = run(capsys, "checkpoint", "offsets", str(fixture / "checkpoint"))
        assert code == 0
        assert f"offsets of batch {want['last_committed_batch']}:" in out
        assert f"Batch {pending} was planned (offsets/{pending}) but never committed" in out
        assert "REPEATED, nothing is skipped" in out
        code, out, _ = run(capsys, "checkpoint", "offsets", str(fixture / "checkpoint"),
                           "--batch", str(pending), "--format", "json")
        data = json.loads(out)
        assert (code, data["batch"], data["committed"]) == (0, pending, False)
        assert "SKIPS the data" in data["notes"][0]


def test_offsets_of_a_purged_batch_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    fixture = next(f for f in FIXTURES if f.name == "file_compact_purge")
    kept = expected(fixture)["offsets_batches"]
    code, out, err = run(capsys, "checkpoint", "offsets", str(fixture / "checkpoint"),
                         "--batch", str(min(kept) - 1))
    assert (code, out) == (2, "")
    assert f"offsets/{min(kept) - 1}: no such batch" in err


# ---- Kafka: the offsets-log form from Spark's source, in a checkpoint built here ----

KAFKA_OFFSETS = {"orders": {"0": 1234, "1": 1187}, "payments": {"0": 7}}
METADATA_LINE = json.dumps({"batchWatermarkMs": 0, "batchTimestampMs": 1700000000000,
                            "conf": {"spark.sql.shuffle.partitions": "8"}})


def kafka_checkpoint(root: Path) -> Path:
    """Batch 4 committed, batch 5 planned only; a Kafka source then a file source.

    The Kafka line is written with partitions and topics out of order, as Spark's hash maps
    may write them (FORMAT.md §7.3, §13.12).
    """
    (root / "offsets").mkdir(parents=True)
    (root / "commits").mkdir()
    (root / "sources" / "0").mkdir(parents=True)
    (root / "metadata").write_text('{"id":"0a0b0c0d-0000-4000-8000-000000000001"}')
    committed = '{"payments":{"0":7},"orders":{"1":1187,"0":1234}}'
    planned = '{"payments":{"0":9},"orders":{"1":1300,"0":1400}}'
    for batch, kafka, file_offset in ((3, committed, 1), (4, committed, 2),
                                      (5, planned, 3)):
        (root / "offsets" / str(batch)).write_text(
            f'v1\n{METADATA_LINE}\n{kafka}\n{{"logOffset":{file_offset}}}')
    for batch in (3, 4):
        (root / "commits" / str(batch)).write_text('v1\n{"nextBatchWatermarkMs":0}')
    (root / "sources" / "0" / "0").write_bytes(b"\x00v1\n" + committed.encode())
    return root


def test_kafka_offsets_ready_for_starting_offsets(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = str(kafka_checkpoint(tmp_path / "chk"))
    code, out, _ = run(capsys, "checkpoint", "offsets", path, "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert (data["batch"], data["uncommitted_batches"]) == (4, [5])
    kafka, files = data["sources"]
    assert kafka["kind"] == "kafka" and kafka["option"] == "startingOffsets"
    assert json.loads(kafka["value"]) == KAFKA_OFFSETS
    assert files["kind"] == "file" and files["option"] is None
    # The snippet is valid Python that passes the same JSON to startingOffsets.
    compile(data["snippet"].replace("...", "None"), "snippet", "exec")
    assert f".option(\"startingOffsets\", {kafka['value']!r})" in data["snippet"]
    code, text, _ = run(capsys, "checkpoint", "offsets", path)
    assert "Batch 5 was planned (offsets/5) but never committed" in text


def test_kafka_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(kafka_checkpoint(tmp_path / "chk"))
    code, out, _ = run(capsys, "checkpoint", "show", path, "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert data["last_committed_batch"] == 4
    assert data["sources"][0]["kind"] == "kafka"
    assert json.loads(data["sources"][0]["offset"]) == KAFKA_OFFSETS
    assert json.loads(data["uncommitted_sources"][0]["offset"])["orders"] == {
        "0": 1400, "1": 1300}
    assert data["conf"] == {"spark.sql.shuffle.partitions": "8"}


def test_named_sources_show_their_names(capsys: pytest.CaptureFixture[str]) -> None:
    fixture = next(f for f in FIXTURES if f.name == "named_sources")
    lines = expected(fixture)["last_committed_offsets_file_lines"][2:]
    code, out, _ = run(capsys, "checkpoint", "show", str(fixture / "checkpoint"),
                       "--format", "json")
    assert [s["name"] for s in json.loads(out)["sources"]] == [
        line.split(":", 1)[0] for line in lines]


def test_named_sink_of_commit_log_v3(capsys: pytest.CaptureFixture[str]) -> None:
    fixture = next(f for f in FIXTURES if f.name == "named_sink")
    batch = expected(fixture)["last_committed_batch"]
    version, metadata = (fixture / "checkpoint" / "commits" / str(batch)).read_text().split(
        "\n", 1)
    code, out, _ = run(capsys, "checkpoint", "show", str(fixture / "checkpoint"),
                       "--format", "json")
    data = json.loads(out)
    assert code == 0 and version == "v3"
    assert data["commit_log_version"] == 3
    assert data["sinks"] == sorted(json.loads(metadata)["sinkMetadataMap"])


@pytest.mark.parametrize("batch", ["-1", "1.5", "two"])
def test_a_batch_that_is_no_batch_id_is_a_usage_error(batch: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # -1 used to be looked up as offsets/-1 ("no such batch ... purged").
    fixture = FIXTURES[0]
    code, out, err = run(capsys, "checkpoint", "offsets", str(fixture / "checkpoint"),
                         f"--batch={batch}")
    assert (code, out) == (2, "")
    assert "--batch" in err and repr(batch) in err and "offsets/" not in err
