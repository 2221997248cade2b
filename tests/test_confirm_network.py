"""`--confirm` contacts no host beyond this machine, the JVM included (spark/runtime.py:
every JVM proxy setting points at a closed loopback port, the driver binds loopback).

A listener on this machine's own non-loopback address stands for a real host: it counts
every connection. The control, a bare Spark session, shows the same probes do reach it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parent.parent


def _outside_address() -> str | None:
    """This machine's address toward the outside (a UDP connect sends nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address


class Listener:
    def __init__(self, host: str) -> None:
        self.server = socket.create_server((host, 0))
        self.host, self.port = host, self.server.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()


@pytest.fixture()
def listener() -> Iterator[Listener]:
    host = _outside_address()
    if host is None:
        pytest.skip("this machine has no address beyond loopback to stand for a host")
    found = Listener(host)
    yield found
    found.server.close()


def _probe(mode: str, listener: Listener) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "network" / "probe.py"), mode,
                           listener.host, str(listener.port)], capture_output=True, text=True,
                          env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_confirmation_jvm_reaches_no_host(listener: Listener) -> None:
    out = _probe("guarded", listener)
    assert listener.connections == 0, out
    assert out.count("Connection refused") == 3, out  # refused by the closed proxy port


def test_control_the_same_probes_do_connect_without_the_guard(listener: Listener) -> None:
    _probe("plain", listener)
    assert listener.connections >= 2


def test_a_job_pointing_at_a_host_is_refused_not_attempted(listener: Listener,
                                                           tmp_path: Path) -> None:
    """Through the CLI: a job that fetches a lookup file over http and reads Kafka on a
    real-looking broker. Kafka is replaced by the sandbox; the fetch is refused."""
    job = tmp_path / "job.py"
    job.write_text(
        "from pyspark.sql import SparkSession\n"
        "spark = SparkSession.builder.getOrCreate()\n"
        f"spark.sparkContext.addFile('http://{listener.host}:{listener.port}/lookup.csv')\n"
        "df = (spark.readStream.format('kafka')\n"
        "      .option('kafka.bootstrap.servers', 'broker-1.prod.example.com:9092')\n"
        "      .option('subscribe', 'orders').load())\n"
        "df.groupBy('key').count().writeStream.outputMode('update')"
        ".option('checkpointLocation', '/chk/orders').start()\n")
    done = subprocess.run([sys.executable, "-m", "streamlint", "diff", str(job), str(job),
                           "--confirm"], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode in (0, 1, 2), done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert listener.connections == 0, done.stdout[-2000:]
