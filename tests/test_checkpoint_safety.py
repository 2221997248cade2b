"""Checkpoints are read, never written; broken ones give `path: message` and exit 2."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from checkpoint_fixtures import FIXTURES, expected, fixture_dirs, fixture_id

from streamlint.cli import main

ALL = fixture_dirs()


def tree_digest(root: Path) -> str:
    """Names, sizes, modification times and contents of every file and directory."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames.sort()
        digest.update(dirpath.encode())
        for name in sorted(filenames):
            path = Path(dirpath) / name
            stat = path.stat()
            digest.update(f"{name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def commands(checkpoint: Path, job: Path) -> list[list[str]]:
    path = str(checkpoint)
    return [
        ["checkpoint", "show", path],
        ["checkpoint", "show", path, "--format", "json"],
        ["checkpoint", "offsets", path],
        ["checkpoint", "offsets", path, "--format", "json"],
        ["checkpoint", "offsets", path, "--batch", "0"],
        ["diff", "--checkpoint", path, str(job)],
        ["diff", "--checkpoint", path, str(job), "--format", "json"],
    ]


@pytest.mark.parametrize("fixture", ALL, ids=fixture_id)
def test_no_command_writes_into_the_checkpoint(fixture: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # The fixture's job as a real job file: query.py itself holds only a function, so
    # `diff --checkpoint` stopped at "no streaming query found" (exit 2) before reading
    # any state schema, and the comparison was never checked for writes.
    from checkpoint_jobs import write_job

    checkpoint = fixture / "checkpoint"
    job = write_job(tmp_path, fixture)
    before = tree_digest(checkpoint)
    for argv in commands(checkpoint, job):
        status = main(argv)
        _, err = capsys.readouterr()
        # Only `offsets` may refuse (a checkpoint with no committed batch, or batch 0 purged).
        assert status == 0 or (argv[:2] == ["checkpoint", "offsets"] and status == 2), \
            (argv, err)
        assert tree_digest(checkpoint) == before, argv


def broken_copy(tmp_path: Path, name: str = "agg_hdfs") -> tuple[Path, dict]:
    fixture = FIXTURES / "spark-4.3.0" / name
    copy = tmp_path / "checkpoint"
    shutil.copytree(fixture / "checkpoint", copy)
    return copy, expected(fixture)


def assert_clean_error(capsys: pytest.CaptureFixture[str], argv: list[str],
                       names: str, says: str) -> None:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert out == ""
    assert err.startswith(names), err
    assert says in err
    assert "Traceback" not in err


def test_truncated_offsets_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, want = broken_copy(tmp_path)
    batch = want["last_committed_batch"]
    path = copy / "offsets" / str(batch)
    path.write_text(path.read_text()[:120])
    for command in ("show", "offsets"):
        assert_clean_error(capsys, ["checkpoint", command, str(copy)], f"{path}: ",
                           "is not valid JSON")


def test_unknown_log_version(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, want = broken_copy(tmp_path)
    path = copy / "commits" / str(want["last_committed_batch"])
    path.write_text("v99\n" + path.read_text().split("\n", 1)[1])
    assert_clean_error(capsys, ["checkpoint", "show", str(copy)], f"{path}: ",
                       "log version v99")


def test_not_a_version_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, want = broken_copy(tmp_path)
    path = copy / "offsets" / str(want["last_committed_batch"])
    path.write_text("hello\nworld")
    assert_clean_error(capsys, ["checkpoint", "offsets", str(copy)], f"{path}: ",
                       "is not a log version")


def test_empty_offsets_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, want = broken_copy(tmp_path)
    path = copy / "offsets" / str(want["last_committed_batch"])
    path.write_bytes(b"")
    assert_clean_error(capsys, ["checkpoint", "show", str(copy)], f"{path}: ", "empty file")


def test_committed_batch_without_offsets(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    copy, want = broken_copy(tmp_path)
    batch = want["last_committed_batch"]
    (copy / "offsets" / str(batch)).unlink()
    assert_clean_error(capsys, ["checkpoint", "offsets", str(copy)],
                       f"{copy}/offsets/{batch}: ", f"though commits/{batch}")
    assert main(["checkpoint", "show", str(copy)]) == 0
    assert f"offsets/{batch} does not" in capsys.readouterr().out


def test_truncated_query_metadata(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, _ = broken_copy(tmp_path)
    (copy / "metadata").write_text('{"id":"ab')
    assert_clean_error(capsys, ["checkpoint", "show", str(copy)], f"{copy / 'metadata'}: ",
                       "not valid JSON")


def test_truncated_state_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, _ = broken_copy(tmp_path)
    path = copy / "state" / "0" / "0" / "_metadata" / "schema"
    path.write_bytes(path.read_bytes()[:40])
    assert_clean_error(capsys, ["checkpoint", "show", str(copy)], f"{path}: ", "truncated")


def test_truncated_operator_metadata(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    copy, _ = broken_copy(tmp_path)
    path = copy / "state" / "0" / "_metadata" / "metadata"
    path.write_text(path.read_text()[:50])
    assert_clean_error(capsys, ["checkpoint", "show", str(copy)], f"{path}: ",
                       "not valid JSON")


def test_not_a_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    assert_clean_error(capsys, ["checkpoint", "show", str(tmp_path)], f"{tmp_path}: ",
                       "not a Spark checkpoint")
    assert_clean_error(capsys, ["checkpoint", "show", str(tmp_path / "missing")],
                       f"{tmp_path / 'missing'}: ", "no such checkpoint directory")
    assert_clean_error(capsys, ["checkpoint", "offsets", str(tmp_path / "notes.txt")],
                       f"{tmp_path / 'notes.txt'}: ", "is a file")


def test_nothing_committed_yet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, _ = broken_copy(tmp_path)
    shutil.rmtree(copy / "commits")
    assert_clean_error(capsys, ["checkpoint", "offsets", str(copy)], f"{copy}: ",
                       "no committed batch")
    assert main(["checkpoint", "show", str(copy)]) == 0
    assert "last committed batch: none" in capsys.readouterr().out


def test_errors_without_traceback_from_the_script(tmp_path: Path) -> None:
    copy, want = broken_copy(tmp_path)
    path = copy / "offsets" / str(want["last_committed_batch"])
    path.write_text("v1\n{\"batchWatermarkMs\":")
    result = subprocess.run([sys.executable, "-m", "streamlint", "checkpoint", "show",
                             str(copy)], capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert result.stderr.startswith(f"{path}: ")
    assert "Traceback" not in result.stderr


def state_copy(tmp_path: Path, name: str) -> tuple[Path, int]:
    copy, want = broken_copy(tmp_path, name)
    return copy, want["last_committed_batch"] + 1


def test_missing_state_of_the_committed_batch_is_reported(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, version = state_copy(tmp_path, "agg_hdfs")
    deleted = list((copy / "state" / "0" / "1").glob(f"{version}.*"))  # delta and snapshot
    assert deleted
    for path in deleted:
        path.unlink()
    assert main(["checkpoint", "show", str(copy)]) == 0
    out = capsys.readouterr().out
    assert f"partition(s) 1 hold no state version {version}" in out


def test_checkpoint_format_v2_needs_the_committed_unique_id(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy, version = state_copy(tmp_path, "agg_rocksdb_ckpt_v2")
    part0 = copy / "state" / "0" / "0"
    [committed] = part0.glob(f"{version}_*.changelog")
    committed.rename(part0 / f"{version}_00000000-0000-4000-8000-000000000000.changelog")
    assert main(["checkpoint", "show", str(copy)]) == 0
    assert f"partition(s) 0 hold no state version {version}" in capsys.readouterr().out


def test_json_checksum_sidecars_are_not_state_versions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spark 4.1 writes `<v>.delta.crc` JSON checksums next to state files (FORMAT.md §8.7)."""
    copy, version = state_copy(tmp_path, "agg_hdfs")
    for part in (copy / "state" / "0").glob("[0-9]*"):
        (part / f"{version + 5}.delta.crc").write_text(
            '{"algorithm":"CRC32C","value":1,"mainFileSize":103,"timestampMs":1}')
        (part / f".{version + 5}.delta.crc.crc").write_bytes(b"crc\x00")
    assert main(["checkpoint", "show", str(copy), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    files = data["operators"][0]["stores"][0]["state_files"]
    assert files["latest_version_partition_0"] == version
    assert data["warnings"] == []


@pytest.mark.spark
def test_confirm_does_not_write_into_the_checkpoint(spark: object, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """`diff --checkpoint PATH NEW --confirm` runs Spark, but on its own sandbox checkpoint."""
    from checkpoint_jobs import write_job

    fixture = FIXTURES / "spark-4.3.0" / "agg_rocksdb_changelog"
    checkpoint = fixture / "checkpoint"
    job = write_job(tmp_path, fixture)
    before = tree_digest(checkpoint)
    for extra in ([], ["--format", "json"]):
        assert main(["diff", "--checkpoint", str(checkpoint), str(job), "--confirm",
                     *extra]) == 0
        assert tree_digest(checkpoint) == before, extra
    assert "confirmed with Spark" in capsys.readouterr().out


def test_a_timestamp_that_is_no_date(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A Long beyond year 9999 made `show` end in an OSError traceback (exit 1).
    copy, want = broken_copy(tmp_path)
    path = copy / "offsets" / str(want["last_committed_batch"])
    version, metadata, *sources = path.read_text().split("\n")
    meta = json.loads(metadata)
    meta["batchTimestampMs"] = meta["batchWatermarkMs"] = 99_999_999_999_999_999
    path.write_text("\n".join([version, json.dumps(meta), *sources]))
    assert main(["checkpoint", "show", str(copy)]) == 0
    out = capsys.readouterr().out
    assert "planned at 99999999999999999 ms, not a date" in out
    assert "watermark: 99999999999999999 ms (not a date)" in out
    assert main(["checkpoint", "show", str(copy), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["last_committed_timestamp_ms"] == 99_999_999_999_999_999
    assert data["last_committed_timestamp"] is None
