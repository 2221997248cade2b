"""Checkpoints damaged on purpose, derived from the real ones (run once; the output is kept).

`spark-4.3.0/agg_hdfs_offset_truncated`: the fixture `agg_hdfs` with the file source's offset
in its newest offsets file cut in half (as a crash during a hand edit or a partial copy would
leave it), and that file's Hadoop checksum removed so that the damage, not the checksum, is
what Spark meets. tests/test_checkpoint_fail_closed.py restarts it on real Spark.

    python tests/make_damaged_fixtures.py
"""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures" / "checkpoints"
DAMAGED = HERE / "fixtures" / "checkpoints-damaged"


def truncated_offset(source: Path, target: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target)
    offsets = target / "checkpoint" / "offsets"
    newest = offsets / str(max(int(p.name) for p in offsets.iterdir() if p.name.isdigit()))
    lines = newest.read_text().split("\n")
    lines[2] = lines[2][: len(lines[2]) // 2]
    newest.write_text("\n".join(lines))
    (offsets / f".{newest.name}.crc").unlink()


if __name__ == "__main__":
    truncated_offset(FIXTURES / "spark-4.3.0" / "agg_hdfs",
                     DAMAGED / "spark-4.3.0" / "agg_hdfs_offset_truncated")
