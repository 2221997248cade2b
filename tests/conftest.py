"""Test-wide settings: the suite keeps its rules cache out of the user's home; one local Spark
session (one JVM) serves every test that runs real Spark.

The expected Spark outcomes are Spark 4's (its error classes), so a Spark test runs on pyspark
4 only, except a test marked `versions`: it asserts what the installed release does, whichever
it is, and the versions lane (bench/versions.py) runs those on each older release, 3.5 included.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# The real-world corpus holds job files, not tests: never collect anything under it.
collect_ignore = ["realworld"]
collect_ignore_glob = ["realworld/*"]


def pytest_configure() -> None:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="streamlint-test-cache-")


@cache
def _pyspark_version() -> str:
    """The installed pyspark's version. pyspark missing is an error, not a skip."""
    try:
        import pyspark
    except ImportError:  # pragma: no cover - depends on the environment
        pytest.fail("pyspark is not installed: pip install -e '.[spark]' "
                    "(or deselect these tests with -m 'not spark')")
    return pyspark.__version__


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A Spark test that expects Spark 4's outcomes fails on another major release."""
    if item.get_closest_marker("spark") is None or item.get_closest_marker("versions"):
        return
    from spark_harness import RECORDED_ON

    version = _pyspark_version()
    if not version.startswith(RECORDED_ON.split(".")[0] + "."):
        pytest.fail(f"the expected outcomes were recorded on Spark {RECORDED_ON}; "
                    f"pyspark {version} reports other error classes (only the tests marked "
                    "`versions` assert per release)")


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkSession]:
    """The session of the whole test run."""
    from spark_harness import start_session

    _pyspark_version()
    session = start_session()
    yield session
    session.stop()
