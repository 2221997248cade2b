"""`checkpoint offsets`: the offsets a NEW checkpoint should start from, and why.

The offsets of batch N are the end (exclusive) of what batch N read. Kafka's offsets-log JSON
(`JsonUtils.partitionOffsets`: topic -> partition -> next offset) is exactly the form
`startingOffsets` accepts, and `startingOffsets` is inclusive, so the last committed batch's
line can be passed verbatim. Other sources have no such option: say so instead of guessing.
"""

from __future__ import annotations

import json

from streamlint.checkpoint.errors import CheckpointError
from streamlint.checkpoint.model import Checkpoint, OffsetEntry, SourceOffset
from streamlint.checkpoint.source_kinds import kafka_offsets


def choose_batch(checkpoint: Checkpoint, batch: int | None) -> tuple[int, list[str]]:
    """The batch whose offsets to use, and sentences that explain the choice."""
    committed = checkpoint.last_committed_batch
    notes: list[str] = []
    pending = checkpoint.uncommitted_batches
    if batch is None:
        if committed is not None and checkpoint.last_committed is None:
            raise CheckpointError(f"{checkpoint.path}/offsets/{committed}", "no such file, "
                                  f"though commits/{committed} says batch {committed} "
                                  "finished: its offsets are lost")
        if committed is None:
            raise CheckpointError(checkpoint.path, "no committed batch with offsets: nothing "
                                  "was processed for sure; a new checkpoint should use the "
                                  "sources' own startingOffsets")
        batch = committed
        notes.append(f"Batch {batch} is the last committed batch (commits/{batch}); its "
                     f"offsets are where everything it processed ends.")
    elif committed is None or batch > committed:
        notes.append(f"Batch {batch} was planned but never committed: starting a new "
                     f"checkpoint from its offsets SKIPS the data of batch {batch} (whatever "
                     "of it did not reach the sink is lost).")
    elif batch < committed:
        notes.append(f"Batch {batch} is older than the last committed batch {committed}: "
                     f"a new checkpoint from its offsets REPEATS batches {batch + 1}-"
                     f"{committed} (duplicates in the sink unless it is idempotent).")
    for uncommitted in pending:
        if uncommitted > batch and (committed is None or batch <= committed):
            notes.append(
                f"Batch {uncommitted} was planned (offsets/{uncommitted}) but never committed: "
                f"restarting THIS checkpoint re-runs it with exactly those offsets; a NEW "
                f"checkpoint from batch {batch}'s offsets re-reads batch {uncommitted}'s range "
                f"(output it may have partly written is REPEATED, nothing is skipped). Using "
                f"offsets/{uncommitted} instead would SKIP its data if its write failed.")
    return batch, notes


def source_start(source: SourceOffset) -> dict:
    """How a new query can start where this source's offset ends."""
    data: dict = {"index": source.index, "name": source.name, "kind": source.kind,
                  "offset": source.offset, "option": None, "value": None, "note": None}
    if source.kind == "kafka":
        offsets = kafka_offsets(source.offset)
        ordered = {topic: dict(sorted(parts.items(), key=lambda item: int(item[0])))
                   for topic, parts in sorted(offsets.items())}
        data["option"] = "startingOffsets"
        data["value"] = json.dumps(ordered, separators=(",", ":"))
        data["note"] = ("startingOffsets must name every partition the query is assigned: add "
                        "partitions created since (use -2 for earliest) and remove topics no "
                        "longer read")
    elif source.kind == "none":
        data["note"] = "this source had no offset yet: use its own starting option"
    elif source.kind == "file":
        data["note"] = ("the file source has no startingOffsets: a new checkpoint re-reads "
                        "every file in the directory unless the processed ones are moved "
                        "away (they are listed in the old checkpoint's "
                        f"sources/{source.name or source.index}/ log up to {source.offset})")
    elif source.kind == "delta":
        value = json.loads(source.offset)
        data["note"] = (f"Delta has no startingOffsets; the offset is table version "
                        f"{value.get('reservoirVersion')} at file index {value.get('index')}; "
                        "choose startingVersion (whole table versions) yourself")
    elif source.kind == "number":
        data["note"] = ("a counter offset (the rate source: seconds since the stream "
                        "started); rate has no starting option")
    elif source.kind == "unreadable":
        data["note"] = ("the offset is not JSON (a damaged offsets file?): Spark's own sources "
                        "cannot read it back, and no startingOffsets can be derived")
    else:
        data["note"] = "unknown source offset form: no startingOffsets can be derived"
    return data


def offsets_data(checkpoint: Checkpoint, entry: OffsetEntry, notes: list[str]) -> dict:
    starts = [source_start(s) for s in entry.sources]
    return {
        "version": 1,
        "path": checkpoint.path,
        "batch": entry.batch_id,
        "committed": (checkpoint.last_committed_batch is not None
                      and entry.batch_id <= checkpoint.last_committed_batch),
        "last_committed_batch": checkpoint.last_committed_batch,
        "uncommitted_batches": list(checkpoint.uncommitted_batches),
        "notes": notes,
        "sources": starts,
        "snippet": pyspark_snippet(entry.batch_id, starts),
    }


def pyspark_snippet(batch: int, starts: list[dict]) -> str:
    lines = [f"# A NEW checkpoint that starts where batch {batch} of the old one ended."]
    for start in starts:
        label = start["name"] or f"source {start['index']}"
        if start["option"] == "startingOffsets":
            topics = ",".join(sorted(json.loads(start["value"])))
            lines += [
                f"{_identifier(label)} = (",
                "    spark.readStream.format(\"kafka\")",
                "    .option(\"kafka.bootstrap.servers\", ...)  # as in the job",
                f"    .option(\"subscribe\", {topics!r})",
                f"    .option(\"startingOffsets\", {start['value']!r})",
                "    .load()",
                ")",
            ]
        else:
            lines.append(f"# {label} ({start['kind']}): {start['note']}")
    lines.append("# ... the rest of the job unchanged, then:")
    lines.append("# .option(\"checkpointLocation\", \"<a NEW, empty checkpoint directory>\")")
    return "\n".join(lines) + "\n"


def _identifier(label: str) -> str:
    text = "".join(c if c.isalnum() else "_" for c in label).strip("_") or "source"
    return text if not text[0].isdigit() else f"source_{text}"
