"""`streamlint diff --confirm --remote sc://...` against a real Spark Connect server.

The server is the one the pyspark wheel ships (SparkConnectServer in jars/), started once on
loopback for these tests: it shares this machine's filesystem, so the work directory (stand-in
input, checkpoints, outputs) needs no --remote-workdir. The expected outcomes are the pairs'
case.toml (Spark's guide and measured cases), the same ones the embedded run must give.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from streamlint.cli import main
from streamlint.spark.confirm import confirm_files
from streamlint.spark.connect import connect_mode, start_remote_session

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = pytest.mark.spark

JOBS = Path(__file__).parent / "confirm_jobs"
SERVER_START_SECONDS = 180


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture(scope="session")
def connect_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Spark Connect server on loopback, from the installed pyspark (not skipped: pyspark
    or Java missing fails the test)."""
    import pyspark

    home = Path(pyspark.__file__).parent
    port = _free_port()
    log = tmp_path_factory.mktemp("connect-server") / "server.log"
    env = {**os.environ, "SPARK_HOME": str(home), "PYSPARK_PYTHON": sys.executable,
           "SPARK_CONNECT_MODE": "0"}
    env.pop("SPARK_CONNECT_MODE_ENABLED", None)
    with log.open("w") as out:
        server = subprocess.Popen(
            [str(home / "bin" / "spark-submit"), "--master", "local[2]",
             "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
             "--conf", f"spark.connect.grpc.binding.port={port}",
             "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
             "--conf", "spark.ui.enabled=false",
             "--conf", "spark.driver.extraJavaOptions=-Duser.timezone=UTC"],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while not _listening(port):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Spark Connect server did not start: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield f"sc://127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_incompatible_pair_fails_with_the_same_error_class_as_embedded(
        connect_url: str, spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    name = "kafka_agg_count_added"
    case = tomllib.loads((JOBS / name / "case.toml").read_text())
    old, new = JOBS / name / "old.py", JOBS / name / "new.py"
    code = main(["diff", str(old), str(new), "--confirm", "--remote", connect_url,
                 "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    (query,) = report["queries"]
    remote = query["confirmation"]
    assert remote["outcome"] == case["spark"] == "restart-fails", remote
    embedded = confirm_files(old, new, spark).queries[0]
    assert embedded.error_class == remote["error_class"] == case["error"]
    # The state schemas were read from the work directory the server wrote to.
    assert remote["state_schemas"]["old"] and remote["state_schemas"]["new"]
    assert f"--remote {connect_url}" in " ".join(report["spark"]["reproduce"])


def test_compatible_refactor_gives_the_same_results_through_connect(connect_url: str) -> None:
    name = "refactor_helper_extracted"
    case = tomllib.loads((JOBS / name / "case.toml").read_text())
    with connect_mode():
        session = start_remote_session(connect_url)
        try:
            confirmation = confirm_files(JOBS / name / "old.py", JOBS / name / "new.py",
                                         session)
        finally:
            session.stop()
    assert confirmation.problem is None, confirmation.problem
    (query,) = confirmation.queries
    assert query.outcome == case["spark"] == "same-results", query
    # Rows came back from the server's parquet output, or the comparison would be empty.
    assert query.restarted_rows > 0 and query.restarted_rows == query.fresh_rows
    assert "SPARK_CONNECT_MODE_ENABLED" not in os.environ  # embedded runs still work after


def test_remote_needs_a_connect_url(capsys: pytest.CaptureFixture[str]) -> None:
    pair = [str(JOBS / "kafka_agg_count_added" / f) for f in ("old.py", "new.py")]
    assert main(["diff", *pair, "--confirm", "--remote", "http://example:15002"]) == 2
    assert "sc://HOST:PORT" in capsys.readouterr().err
    assert main(["diff", *pair, "--remote", "sc://127.0.0.1:1"]) == 2
    assert "--confirm" in capsys.readouterr().err
