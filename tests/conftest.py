"""Test-wide settings: the suite keeps its rules cache out of the user's home; one local Spark
session (one JVM) serves every test that runs real Spark."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# The real-world corpus holds job files, not tests: never collect anything under it.
collect_ignore = ["realworld"]
collect_ignore_glob = ["realworld/*"]


def pytest_configure() -> None:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="streamlint-test-cache-")


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """The session of the whole test run. pyspark missing is an error, not a skip."""
    from spark_harness import RECORDED_ON, start_session

    try:
        import pyspark
    except ImportError:  # pragma: no cover - depends on the environment
        pytest.fail("pyspark is not installed: pip install -e '.[spark]' "
                    "(or deselect these tests with -m 'not spark')")
    if not pyspark.__version__.startswith(RECORDED_ON.split(".")[0] + "."):
        pytest.fail(f"the expected outcomes were recorded on Spark {RECORDED_ON}; "
                    f"pyspark {pyspark.__version__} reports other error classes")
    session = start_session()
    yield session
    session.stop()
