"""Checkpoints on S3, read through fsspec/s3fs from moto's real S3 server on loopback.

Nothing here mocks fsspec: s3fs speaks HTTP to a local S3 API (moto's server mode), which
holds a copy of real Spark checkpoints uploaded with boto3.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from checkpoint_fixtures import FIXTURES, expected
from checkpoint_jobs import standalone_job

from streamlint.cli import main

BUCKET = "streamlint-checkpoints"
QUERIES = [("spark-4.3.0", "agg_hdfs"), ("spark-4.3.0", "uncommitted_batch"),
           ("spark-4.3.0", "transform_with_state_in_pandas"), ("spark-3.5.9", "join_inner"),
           ("spark-4.3.0", "named_sources")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    import boto3
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    try:
        client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                              aws_access_key_id="testing", aws_secret_access_key="testing")
        client.create_bucket(Bucket=BUCKET)
        for version, query in QUERIES:
            root = FIXTURES / version / query / "checkpoint"
            for path in root.rglob("*"):
                if path.is_file():
                    key = f"{version}/{query}/checkpoint/{path.relative_to(root).as_posix()}"
                    client.put_object(Bucket=BUCKET, Key=key, Body=path.read_bytes())
        yield endpoint
    finally:
        server.stop()


@pytest.fixture
def s3_env(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", s3_endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    return s3_endpoint


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code = main([*argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return json.loads(out)


@pytest.mark.slow
@pytest.mark.parametrize(("version", "query"), QUERIES, ids=[f"{v}/{q}" for v, q in QUERIES])
def test_show_and_offsets_on_s3(version: str, query: str, s3_env: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    url = f"s3://{BUCKET}/{version}/{query}/checkpoint"
    local = FIXTURES / version / query / "checkpoint"
    want = expected(local.parent)
    remote = run_json(capsys, "checkpoint", "show", url)
    assert remote["query_id"] == want["query_id"]
    assert remote["last_committed_batch"] == want["last_committed_batch"]
    assert remote["uncommitted_batches"] == want["uncommitted_batches"]
    assert [json.loads(s["offset"]) for s in remote["sources"]] == [
        p["endOffset"] for p in want["last_committed_progress_sources"]]
    # Everything else equals the local reading of the same checkpoint, but for the paths.
    mine = run_json(capsys, "checkpoint", "show", str(local))
    # Remotely only partition 0's state files are listed (one request per directory).
    for data in (remote, mine):
        for op in data["operators"]:
            for store in op["stores"]:
                files = store.pop("state_files")
                assert files["partitions_missing_committed_version"] == []
                assert files["committed_version"] == want["last_committed_batch"] + 1
    assert json.dumps(remote).replace(url, "<root>") == json.dumps(mine).replace(
        str(local), "<root>")
    offsets = run_json(capsys, "checkpoint", "offsets", url)
    assert offsets["batch"] == want["last_committed_batch"]


def test_diff_against_an_s3_checkpoint(s3_env: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    fixture = FIXTURES / "spark-4.3.0" / "agg_hdfs"
    url = f"s3://{BUCKET}/spark-4.3.0/agg_hdfs/checkpoint"
    job = tmp_path / "job.py"
    job.write_text(standalone_job(fixture, checkpoint=url))
    assert run_json(capsys, "diff", "--checkpoint", url, str(job))["findings"] == []
    job.write_text(standalone_job(fixture, checkpoint=url).replace(
        'groupBy("key")', 'groupBy("key", "id")'))
    assert main(["diff", "--checkpoint", url, str(job)]) == 1
    assert "AG01" in capsys.readouterr().out


def test_missing_remote_checkpoint_is_a_clean_error(s3_env: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    url = f"s3://{BUCKET}/nowhere/checkpoint"
    assert main(["checkpoint", "show", url]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"{url}: ") and "Traceback" not in err


def test_local_paths_do_not_import_fsspec() -> None:
    local = FIXTURES / "spark-4.3.0" / "agg_hdfs" / "checkpoint"
    code = ("import sys\nfrom streamlint.cli import main\n"
            f"main(['checkpoint', 'show', {str(local)!r}])\n"
            f"main(['checkpoint', 'offsets', {str(local)!r}])\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('fsspec', 's3fs', 'pyspark', 'boto3')))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"
