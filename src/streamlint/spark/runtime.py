"""The local Spark that confirms: what it needs (pyspark, Java) and its one session."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from streamlint.model.errors import UsageError

INSTALL_PYSPARK = ("--confirm needs pyspark, pandas and pyarrow: "
                   "pip install 'streamlint[spark]'")
INSTALL_JAVA = ("--confirm needs Java 17 (Spark runs on the JVM): install a JDK or JRE 17, "
                "e.g. `apt-get install openjdk-17-jre-headless`, or set JAVA_HOME")


# Every job run's session has these: few state store partitions (hundreds would make a run of
# a few rows take minutes), one time zone for the synthetic timestamps, plans as written.
SESSION_CONFS = {
    "spark.sql.shuffle.partitions": "2",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.adaptive.enabled": "false",
}


def is_connect(session: Any) -> bool:
    """A Spark Connect session (`--remote sc://...`), not the embedded JVM's."""
    return type(session).__module__.startswith("pyspark.sql.connect")


def java_executable() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


def require_spark() -> None:
    """A UsageError naming what to install when pyspark or Java is missing."""
    missing = [name for name in ("pyspark", "pandas", "pyarrow")
               if importlib.util.find_spec(name) is None]
    if missing:
        raise UsageError(f"{INSTALL_PYSPARK} (missing: {', '.join(missing)})")
    if java_executable() is None:
        raise UsageError(INSTALL_JAVA)


# The JVM of a confirmation runs a few tiny batches and exits: C1 alone compiles what it needs
# without C2's background compilations, and one GC thread is plenty for a 2g heap (measured on
# the bench/bench_confirm.py pairs: 45% less CPU for the further pairs, 40% less for JVM
# start). A stopped query's thread matches the Python error text with a recursive regex
# (StreamExecution.isInterruptionException) that overflows the default 1 MB stack and prints
# thousands of lines to stderr: 16 MB of stack holds it. Logging is off from the first line.
LOG4J_CONFIG = Path(__file__).with_name("log4j2.properties")
DRIVER_JAVA_OPTIONS = (f"-Duser.timezone=UTC -Xss16m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC "
                       f"-Dlog4j2.configurationFile={LOG4J_CONFIG.as_uri()}")


# Nothing a confirmation runs may reach beyond this machine: every proxy the JVM's own
# networking honours (java.net.Socket for SOCKS, URLConnection for http/https/ftp: Hadoop's
# http filesystem, Ivy fetching spark.jars.packages, JDBC drivers on plain sockets) points at
# port 1 of loopback, where nothing listens, so such a connection is refused at once instead
# of attempted. Loopback itself is exempt (the JVMs' default nonProxyHosts), and Spark's own
# driver binds and advertises loopback only. NIO channels (Netty, Kafka's client) ignore these
# proxies: the sandbox replaces every Kafka source and sink (spark/sandbox.py).
CLOSED_PORT = "1"
NO_NETWORK_JAVA_OPTIONS = " ".join(
    f"-D{scheme}.proxyHost=127.0.0.1 -D{scheme}.proxyPort={CLOSED_PORT}"
    for scheme in ("http", "https", "ftp")) + (
    f" -DsocksProxyHost=127.0.0.1 -DsocksProxyPort={CLOSED_PORT}"
    " -Djava.net.preferIPv4Stack=true")
LOOPBACK_CONFS = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
# Spark's own timeouts that a loaded machine trips though nothing is wrong: the Python side's
# connection to a socket the JVM serves (collect, createDataFrame, a pandas UDF worker's
# authentication: 15 s by default), the driver's RPC and heartbeats (120 s). A run is bounded
# by --confirm-timeout instead. (A Connect foreachBatch worker's 10 s to connect back is fixed
# in Spark's code: the sandbox retries that start.) The tests' sessions and Connect server
# take the same.
LOAD_TOLERANT_CONFS = {
    "spark.python.authenticate.socketTimeout": "600s",
    "spark.network.timeout": "600s",
    "spark.executor.heartbeatInterval": "60s",
    "spark.sql.broadcastTimeout": "1200",
}


def start_session() -> Any:
    """local[2] with 2 shuffle partitions, no UI, UTC, quiet: one JVM for the invocation."""
    from pyspark.sql import SparkSession

    # pandas UDF workers (applyInPandasWithState) must run the interpreter that has pandas.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("streamlint-confirm")
        .config(map=SESSION_CONFS)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config(map=LOOPBACK_CONFS)
        .config(map=LOAD_TOLERANT_CONFS)
        .config("spark.driver.extraJavaOptions",
                f"{DRIVER_JAVA_OPTIONS} {NO_NETWORK_JAVA_OPTIONS}")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel(os.environ.get("STREAMLINT_SPARK_LOG_LEVEL", "OFF"))
    return session


_RUN_SESSIONS: list[Any] = []  # the job runs' Spark Connect sessions, until the pair is judged


def run_session(session: Any) -> Any:
    """A new session for one job run, so that settings a job makes do not leak into the next.

    A local newSession() keeps the builder's SESSION_CONFS; a Spark Connect one starts from the
    server's defaults (200 shuffle partitions, the server's time zone), so they are set again.
    """
    new = session.newSession()
    if is_connect(new):
        _RUN_SESSIONS.append(new)
        for key, value in SESSION_CONFS.items():
            new.conf.set(key, value)
    return new


def close_run_sessions() -> None:
    """Release the job runs' Spark Connect sessions once the pair is judged (their queries'
    errors are read until then). Left to the garbage collector, grpc's close waits forever at
    interpreter exit and the command never exits."""
    while _RUN_SESSIONS:
        with contextlib.suppress(Exception):
            _RUN_SESSIONS.pop().stop()


def no_spark_yet() -> bool:
    """Whether this process has no SparkContext yet: then the session a command starts is its
    own to stop. A caller's (a notebook's, a test run's) is left running, even when no session
    is active in this thread: stopping the session stops the one SparkContext under it."""
    from pyspark import SparkContext

    return SparkContext._active_spark_context is None


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Spark's Python workers print to the process's stdout; the report owns it."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
