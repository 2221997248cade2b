"""Test-wide settings: the suite keeps its rules cache out of the user's home."""

from __future__ import annotations

import os
import tempfile


def pytest_configure() -> None:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="streamlint-test-cache-")
