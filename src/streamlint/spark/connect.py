"""The Spark Connect server that confirms instead of the local Spark (`--confirm --remote`)."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import warnings
from collections.abc import Iterator
from typing import Any

from streamlint.model.errors import UsageError
from streamlint.spark.error_text import first_line
from streamlint.spark.runtime import SESSION_CONFS

INSTALL_CONNECT = ("--remote needs Spark Connect's Python client: "
                   "pip install 'streamlint[spark]' (pyspark[connect])")
CONNECT_MODULES = ("pyspark", "pandas", "pyarrow", "grpc", "grpc_status", "google.rpc",
                   "zstandard")
# The first call gives up after about a second: pyspark's default policy retries an
# unreachable server for at least ten minutes.
FIRST_CONTACT_RETRIES = 3


def require_connect(url: str) -> None:
    """A UsageError for a URL that is not `sc://HOST:PORT` or a missing Connect client
    (no local Java needed: the server runs the queries)."""
    if not url.startswith("sc://") or not url[len("sc://"):].split("/", 1)[0]:
        raise UsageError(f"{url}: --remote takes a Spark Connect URL, sc://HOST:PORT")
    missing = []
    for name in CONNECT_MODULES:
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            missing.append(name)
    if missing:
        raise UsageError(f"{INSTALL_CONNECT} (missing: {', '.join(missing)})")


def start_remote_session(url: str) -> Any:
    """A new Spark Connect session on `url`, with the local run's settings, or a UsageError
    saying the server cannot be reached.

    pyspark's column functions build Connect expressions only while
    SPARK_CONNECT_MODE_ENABLED is set: the caller sets it for the run (`connect_mode`)."""
    from pyspark.sql.connect.client.retries import DefaultPolicy
    from pyspark.sql.connect.session import SparkSession as RemoteSession


    try:
        session = RemoteSession.builder.remote(url).create()
    except Exception as err:  # a malformed URL: pyspark's message says what is wrong
        raise UsageError(f"{url}: {first_line(err)}") from None
    client = session._client
    policies = client.get_retry_policies()
    client.set_retry_policies([DefaultPolicy(max_retries=FIRST_CONTACT_RETRIES)])
    try:
        with warnings.catch_warnings():  # pyspark warns RETRIES_EXCEEDED besides raising it
            warnings.simplefilter("ignore")
            for key, value in SESSION_CONFS.items():
                session.conf.set(key, value)
    except Exception as err:
        session.release_session_on_close = False  # nothing to release, and no more retries
        with contextlib.suppress(Exception):
            session.stop()
        raise UsageError(f"{url}: cannot reach the Spark Connect server: "
                         f"{_grpc_reason(err)}") from None
    client.set_retry_policies(policies)
    return session


def _grpc_reason(err: BaseException) -> str:
    """grpc's own sentence (`failed to connect to all addresses; ... Connection refused`),
    from the error pyspark raises or the one it wraps."""
    seen: BaseException | None = err
    while seen is not None:
        details = getattr(seen, "details", None)
        if callable(details):
            with contextlib.suppress(Exception):
                text = str(details() or "").strip()
                if text:
                    return text.split("\n", 1)[0]
        seen = seen.__cause__ or seen.__context__
    return first_line(err)


@contextlib.contextmanager
def connect_mode() -> Iterator[None]:
    """pyspark in Spark Connect mode for the duration (restored: an embedded session in the
    same process keeps working afterwards)."""
    saved = os.environ.get("SPARK_CONNECT_MODE_ENABLED")
    os.environ["SPARK_CONNECT_MODE_ENABLED"] = "1"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
        else:
            os.environ["SPARK_CONNECT_MODE_ENABLED"] = saved
