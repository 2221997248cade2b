"""Which state versions a store's partitions hold (HDFS-backed and RocksDB providers).

Batch N commits state version N + 1. HDFS-backed stores write `<v>.delta` and `<v>.snapshot`;
RocksDB writes `<v>.zip` (with `SSTs/`) and, with changelog checkpointing, `<v>.changelog`;
state checkpoint format v2 (Spark 4.0+) adds the commit's unique id: `<v>_<uuid>.changelog`.
Checksum sidecars are not versions: Hadoop's `.3.delta.crc` and Spark 4.1's JSON
`3.delta.crc` both end in `.crc` and are skipped.
"""

from __future__ import annotations

import re

from streamlint.checkpoint.fs import CheckpointFS
from streamlint.model.records import record

_STATE_FILE_RE = re.compile(r"^(\d+)(?:_([0-9a-fA-F-]{36}))?\.(delta|snapshot|zip|changelog)$")


@record
class StoreFiles:
    """What the partitions of one store hold, checked against the last committed batch."""

    partitions_checked: int
    latest_version: int | None  # newest version in partition 0
    committed_version: int | None  # last committed batch + 1
    missing: tuple[int, ...]  # partitions without a file of the committed version
    kinds: tuple[str, ...]  # file kinds of the committed version in partition 0


def versions(names: list[str]) -> dict[int, set[tuple[str, str | None]]]:
    """version -> {(kind, unique id)} for the state files among `names`."""
    found: dict[int, set[tuple[str, str | None]]] = {}
    for name in names:
        match = _STATE_FILE_RE.match(name)
        if match:
            found.setdefault(int(match.group(1)), set()).add((match.group(3), match.group(2)))
    return found


def check_store(fs: CheckpointFS, op_dir: str, store: str, partitions: list[int],
                committed_batch: int | None,
                unique_ids: list[str | None] | None) -> StoreFiles:
    """`unique_ids[p]` is the id checkpoint format v2 recorded for partition p, if any."""
    committed = committed_batch + 1 if committed_batch is not None else None
    latest = None
    kinds: tuple[str, ...] = ()
    missing = []
    for part in partitions:
        directory = fs.join(op_dir, str(part)) if store == "default" else fs.join(
            op_dir, str(part), store)
        held = versions(fs.list_names(directory) or [])
        if part == partitions[0]:
            latest = max(held, default=None)
            kinds = tuple(sorted({k for k, _ in held.get(committed or -1, ())}))
        if committed is None:
            continue
        files = held.get(committed, set())
        wanted = unique_ids[part] if unique_ids and part < len(unique_ids) else None
        if not files or (wanted and all(uid != wanted for _, uid in files)):
            missing.append(part)
    return StoreFiles(len(partitions), latest, committed, tuple(missing), kinds)
