"""`streamlint diff --confirm --remote sc://...` against a real Spark Connect server.

The server is the one the pyspark wheel ships (SparkConnectServer in jars/), started once for
this test session on a free loopback port with its own defaults (200 shuffle partitions, no
time zone set): streamlint must give every session it uses the local run's settings itself. It
shares this machine's filesystem, so the work directory needs no --remote-workdir. The expected
outcomes are the pairs' case.toml, the same ones tests/test_confirm.py asserts for the
embedded run.

A query start on Connect launches the foreachBatch function's Python worker, which Spark gives
a fixed 10 s to connect back; on a busy machine it misses that now and then (what made the
first version of these tests flaky). The server's Python is a wrapper that can make the next
worker start miss it on purpose, so the retry is tested every time, not by chance.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cases import ROOTS, Case, load_case

from streamlint.cli import main
from streamlint.spark.confirm import confirm_files
from streamlint.spark.connect import connect_mode, start_remote_session
from streamlint.spark.runtime import LOAD_TOLERANT_CONFS, SESSION_CONFS

pytestmark = pytest.mark.spark

JOBS = ROOTS["confirm"]
SERVER_START_SECONDS = 600  # hang guards, not timings: a loaded machine is slow
CLI_SECONDS = 900  # a pair takes 20-80 s here, by load; without its sessions stopped, never
WORKER_DELAY_SECONDS = 12  # past Spark's 10 s for a Python worker to connect back


@dataclass
class ConnectServer:
    url: str
    slow_worker: Path  # while this directory exists, the next Python worker starts late
    log: Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _case(name: str) -> Case:
    return load_case(JOBS / name, "confirm")


@pytest.fixture(scope="session")
def connect_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConnectServer]:
    """A Spark Connect server on loopback, from the installed pyspark (pyspark or Java missing
    fails these tests, never skips them)."""
    import pyspark

    home = Path(pyspark.__file__).parent
    port = _free_port()
    tmp = tmp_path_factory.mktemp("connect-server")
    log, slow, python = tmp / "server.log", tmp / "slow-worker", tmp / "python.sh"
    # foreachBatch functions run in the server's Python workers: this interpreter, late once
    # per `slow` directory (rmdir is atomic: one worker takes it).
    python.write_text(f'#!/bin/sh\nif rmdir "{slow}" 2>/dev/null; then '
                      f'sleep {WORKER_DELAY_SECONDS}; fi\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    env = {**os.environ, "SPARK_HOME": str(home), "PYSPARK_PYTHON": str(python)}
    env.pop("SPARK_CONNECT_MODE_ENABLED", None)
    with log.open("w") as out:
        server = subprocess.Popen(
            [str(home / "bin" / "spark-submit"), "--master", "local[2]",
             "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
             "--conf", f"spark.connect.grpc.binding.port={port}",
             "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
             "--conf", "spark.ui.enabled=false",
             *(arg for key, value in LOAD_TOLERANT_CONFS.items()
               for arg in ("--conf", f"{key}={value}"))],
            stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while not _listening(port):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Spark Connect server did not start (log {log}):\n"
                            f"{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield ConnectServer(f"sc://127.0.0.1:{port}", slow, log)
    finally:  # the server and its Python workers: its own process group
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def test_refused_restart_through_the_cli(connect_server: ConnectServer) -> None:
    """End to end, as a user runs it: Spark's error class in the JSON report, exit 1, and the
    process exits once the report is written, though the first query start's worker missed
    Spark's 10 s to connect back."""
    name = "kafka_agg_count_added"
    case = _case(name)
    connect_url = connect_server.url
    connect_server.slow_worker.mkdir()
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "streamlint", "diff", str(JOBS / name / "old.py"),
         str(JOBS / name / "new.py"), "--confirm", "--remote", connect_url, "--format", "json"],
        capture_output=True, text=True, timeout=CLI_SECONDS)
    seconds = time.monotonic() - started
    seen = f"{done.stderr[-3000:]}\n(server log: {connect_server.log})"
    assert done.returncode == 1, seen
    assert "Traceback" not in done.stderr, seen
    report = json.loads(done.stdout)
    assert report["verdict"] == "incompatible"
    (query,) = report["queries"]
    remote = query["confirmation"]
    # The embedded run gives the same class for this pair (tests/test_confirm.py).
    assert remote["outcome"] == case.outcome == "restart-fails", (remote, seen)
    assert remote["error_class"] == case.error == "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE"
    # The state schemas the server wrote, read back from the work directory: the added
    # aggregate is one more field in the aggregation's state value.
    old, new = remote["state_schemas"]["old"], remote["state_schemas"]["new"]
    assert old and new, remote
    assert " ".join(report["spark"]["reproduce"]).count(f"--remote {connect_url}") == 1
    assert not connect_server.slow_worker.exists()  # a worker did start late
    retried = [w for w in report["spark"]["warnings"] if "did not connect back" in w]
    assert len(retried) == 1, report["spark"]["warnings"]
    print(f"CLI pair through Spark Connect: {seconds:.1f} s")


def test_compatible_refactor_gives_the_same_results(connect_server: ConnectServer,
                                                     tmp_path: Path) -> None:
    name = "refactor_helper_extracted"
    case = _case(name)
    workdir = tmp_path / "streamlint-confirm-remote"
    workdir.mkdir()
    with connect_mode():
        session = start_remote_session(connect_server.url)
        try:
            confirmation = confirm_files(JOBS / name / "old.py", JOBS / name / "new.py",
                                         session, workdir=workdir)
        finally:
            session.stop()
    assert confirmation.problem is None, (confirmation.problem, connect_server.log)
    (query,) = confirmation.queries
    assert query.outcome == case.outcome == "same-results", (query, connect_server.log)
    # Rows came back from the server's parquet output, or the comparison would be empty.
    assert query.restarted_rows > 0 and query.restarted_rows == query.fresh_rows
    # Every run's Connect session had the local settings, not the server's 200 partitions:
    # Spark pins the value in each checkpoint's first offset log entry.
    offsets = sorted(workdir.glob("*/checkpoints/*/offsets/0"))
    assert len(offsets) == 2, offsets  # the restarted and the fresh deployment
    for entry in offsets:
        conf = json.loads(entry.read_text().splitlines()[1])["conf"]
        assert conf["spark.sql.shuffle.partitions"] == SESSION_CONFS[
            "spark.sql.shuffle.partitions"], entry
    assert "SPARK_CONNECT_MODE_ENABLED" not in os.environ  # embedded runs still work after


def test_unreachable_server_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    pair = [str(JOBS / "kafka_agg_count_added" / f) for f in ("old.py", "new.py")]
    url = f"sc://127.0.0.1:{_free_port()}"  # nothing listens there
    started = time.monotonic()
    assert main(["diff", *pair, "--confirm", "--remote", url]) == 2
    seconds = time.monotonic() - started
    err = capsys.readouterr().err
    assert f"{url}: cannot reach the Spark Connect server: " in err, err
    assert "Traceback" not in err
    # A hang guard, not a timing: a refused connection is an answer however loaded we are.
    assert seconds < 300, f"gave up after {seconds:.1f} s"
    assert "SPARK_CONNECT_MODE_ENABLED" not in os.environ


def test_remote_needs_a_connect_url_and_confirm(capsys: pytest.CaptureFixture[str]) -> None:
    pair = [str(JOBS / "kafka_agg_count_added" / f) for f in ("old.py", "new.py")]
    assert main(["diff", *pair, "--confirm", "--remote", "http://example:15002"]) == 2
    assert "http://example:15002: --remote takes a Spark Connect URL, sc://HOST:PORT" in \
        capsys.readouterr().err
    assert main(["diff", *pair, "--remote", "sc://127.0.0.1:1"]) == 2
    assert "--remote and --remote-workdir go with --confirm" in capsys.readouterr().err
    assert main(["diff", *pair, "--confirm", "--remote-workdir", str(JOBS)]) == 2
    assert "--remote-workdir goes with --remote" in capsys.readouterr().err
    missing = JOBS / "no-such-directory"
    assert main(["diff", *pair, "--confirm", "--remote", "sc://127.0.0.1:1",
                 "--remote-workdir", str(missing)]) == 2
    assert f"{missing}: --remote-workdir is not a directory" in capsys.readouterr().err
