"""A slice of the checkpoint fuzz (bench/fuzz_checkpoints.py), and the crashes it found.

Every corrupted copy of a real checkpoint must give an answer or `path: message` with exit 2,
never a traceback, and no command may change the tree (hashed before and after)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import fuzz_checkpoints as fuzz  # noqa: E402

FIXTURES = fuzz.fixtures()


@pytest.mark.parametrize("index", range(60))
def test_corrupted_checkpoints_give_an_answer_or_an_error(tmp_path: Path, index: int) -> None:
    # As root, chmod 000 denies nothing: those mutations are left out here and tested below.
    how, crashes = fuzz.fuzz_one(index, 11, tmp_path, os.geteuid() != 0, FIXTURES)
    assert crashes == [], how


def test_unreadable_files_as_a_user_they_deny(tmp_path: Path) -> None:
    """Permissions only deny a non-root user: as root, the script reruns itself as nobody."""
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("root without setpriv: chmod 000 would deny nothing, so proves nothing")
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "fuzz_checkpoints.py"),
                           "--inputs", "25", "--seed", "5"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert '"crashes": 0' in done.stdout and '"unreadable"' in done.stdout
    assert '"user": "root' not in done.stdout


def _copy(tmp_path: Path, name: str) -> Path:
    source = next(f for f in FIXTURES if f.name == name and "4.3" in f.parent.name)
    shutil.copytree(source / "checkpoint", tmp_path / "checkpoint")
    return tmp_path / "checkpoint"


def test_a_corrupted_byte_in_a_state_schema_is_a_path_and_a_message(tmp_path: Path,
                                                                    capsys) -> None:  # type: ignore[no-untyped-def]
    from streamlint.cli import main

    checkpoint = _copy(tmp_path, "window_agg")
    schema = checkpoint / "state" / "0" / "0" / "_metadata" / "schema"
    data = bytearray(schema.read_bytes())
    data[len(data) // 2] = 0xFF  # not UTF-8: was a UnicodeDecodeError traceback
    schema.write_bytes(bytes(data))
    assert main(["checkpoint", "show", str(checkpoint)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{schema}: ") and "Traceback" not in err


def test_operator_metadata_of_the_wrong_shape_is_a_path_and_a_message(tmp_path: Path,
                                                                      capsys) -> None:  # type: ignore[no-untyped-def]
    from streamlint.cli import main

    checkpoint = _copy(tmp_path, "agg_hdfs")
    metadata = checkpoint / "state" / "0" / "_metadata" / "metadata"
    lines = metadata.read_text().split("\n")
    lines[1] = lines[1].replace('"operatorName":"stateStoreSave"', '"operatorName":7')
    assert '"operatorName":7' in lines[1]
    metadata.write_text("\n".join(lines))
    job = tmp_path / "job.py"
    job.write_text(_job(checkpoint))
    assert main(["diff", "--checkpoint", str(checkpoint), str(job)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{checkpoint / 'state' / '0' / '_metadata'}: ")


def _job(checkpoint: Path) -> str:
    from checkpoint_jobs import standalone_job

    fixture = next(f for f in FIXTURES if f.name == "agg_hdfs" and "4.3" in f.parent.name)
    return standalone_job(fixture, str(checkpoint))
