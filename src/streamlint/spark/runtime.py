"""The local Spark that confirms: what it needs (pyspark, Java) and its one session."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from streamlint.errors import UsageError

INSTALL_PYSPARK = ("--confirm needs pyspark, pandas and pyarrow: "
                   "pip install 'streamlint[spark]'")
INSTALL_JAVA = ("--confirm needs Java 17 (Spark runs on the JVM): install a JDK or JRE 17, "
                "e.g. `apt-get install openjdk-17-jre-headless`, or set JAVA_HOME")


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


def start_session() -> Any:
    """local[2] with 2 shuffle partitions, no UI, UTC, quiet: one JVM for the invocation."""
    from pyspark.sql import SparkSession

    # pandas UDF workers (applyInPandasWithState) must run the interpreter that has pandas.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("streamlint-confirm")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.extraJavaOptions", DRIVER_JAVA_OPTIONS)
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel(os.environ.get("STREAMLINT_SPARK_LOG_LEVEL", "OFF"))
    return session
