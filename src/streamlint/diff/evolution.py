"""Facts of Spark 4.2+ query evolution and of Real-Time Mode, read from both versions.

- A source's name (`DataStreamReader.name()`, SQL `STREAM t IDENTIFIED BY n`) added, removed or
  changed: an offsets log v1 checkpoint (unnamed sources) takes no names on Spark 4.3
  (STREAMING_QUERY_EVOLUTION_ERROR.CANNOT_ENABLE_ON_EXISTING_CHECKPOINT), and a v2 one (named
  sources) needs every source named again; a renamed source starts over.
- A switch to Real-Time Mode (`trigger(realTime=...)`) restarts on Spark 4.3 only from a
  checkpoint written with state store checkpoint format 2 (MicroBatchExecution.
  initializeExecution: STREAMING_REAL_TIME_MODE.CHECKPOINT_FORMAT_V1_NOT_SUPPORTED unless
  spark.sql.streaming.realTimeMode.dangerouslyAllowCheckpointV1.enabled is true). The format a
  checkpoint was written with is pinned in its offsets log: setting format 2 in the new version
  does not change it. Both measured on pyspark 4.3.0 (tests/test_query_evolution.py).
"""

from __future__ import annotations

from typing import Any

from streamlint.model import Query

CHECKPOINT_FORMAT = "spark.sql.streaming.stateStore.checkpointFormatVersion"
ALLOW_V1 = "spark.sql.streaming.realTimeMode.dangerouslyAllowCheckpointV1.enabled"


def naming(old: Any, new: Any) -> str:
    """How a source's name changed: "added", "removed" or "renamed"."""
    if old is None:
        return "added"
    return "removed" if new is None else "renamed"


def checkpoint_v1(old: Query, new: Query) -> str:
    """For a trigger change: "refused" when the new version switches to Real-Time Mode on a
    checkpoint the old version wrote with state store checkpoint format 1, "allowed" when the
    new version sets the escape hatch for it, else "no"."""
    if new.sink.trigger[0] != "realTime" or old.sink.trigger[0] == "realTime":
        return "no"
    if _setting(old, CHECKPOINT_FORMAT) not in (None, "1"):
        return "no"  # format 2 (or a value known only at run time: not claimed)
    return "allowed" if _setting(new, ALLOW_V1) == "true" else "refused"


def _setting(query: Query, key: str) -> str | None:
    values = [s.value for s in query.config if s.key == key]
    return str(values[-1]).strip().lower() if values else None
