"""Ground truth for `diff --checkpoint --confirm`: restart real Spark on a COPY of a fixture
checkpoint with a job, and return what Spark said (None when the restart ran a batch fine).

The copy's file source logs are pointed at fresh input directories, each holding one new
event, so that the restart plans a batch (Spark checks state schemas when it plans one).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from checkpoint_jobs import standalone_job

NEW_EVENT = {"id": 99, "key": "a", "value": 5, "ts": "2024-01-01T00:10:00.000Z"}
# The fixtures' input directories and the column prefix of their schemas (query.py: EVENT,
# LEFT and RIGHT_SCHEMA).
PREFIX = {"input": "", "input_left": "l", "input_right": "r"}


def restart_error(spark: Any, fixture: Path, old: str, new: str, tmp: Path) -> str | None:
    """Spark's error message when it restarts `fixture`'s job edited `old` -> `new` on a copy
    of its checkpoint."""
    checkpoint, inputs = tmp / "restart-checkpoint", tmp / "restart-input"
    shutil.copytree(fixture / "checkpoint", checkpoint)
    root = json.loads((fixture / "query.json").read_text())["paths"]["root"]
    for path in (checkpoint / "sources").rglob("*"):
        if path.is_file() and path.name.endswith(".crc"):
            path.unlink()  # the rewritten logs below would fail their Hadoop checksums
        elif path.is_file():
            path.write_text(path.read_text().replace(f"{root}/", f"{inputs}/"))
    text = standalone_job(fixture, str(checkpoint))
    assert old in text, f"{old!r} not in the job of {fixture}"
    for directory, prefix in PREFIX.items():
        if repr(f"{root}/{directory}") in text:
            (inputs / directory).mkdir(parents=True)
            event = {prefix + k: v for k, v in NEW_EVENT.items()}
            (inputs / directory / "new.json").write_text(json.dumps(event) + "\n")
    text = text.replace(old, new).replace(f"'{root}/", f"'{inputs}/")
    text = text.replace(".start())", ".trigger(availableNow=True).start())")
    namespace: dict[str, Any] = {"spark": spark}
    exec(compile(text, f"{fixture.name}-restart", "exec"), namespace)  # noqa: S102
    query = namespace["query"]
    try:
        query.awaitTermination()
    except Exception as err:  # Spark refused the restart: its own words are the ground truth
        return str(err).split("\n", 1)[0]
    finally:
        query.stop()
    return None
