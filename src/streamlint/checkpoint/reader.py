"""Read what a checkpoint says about its last committed batch, the way Spark restarts it.

Spark's `populateStartOffsets`: the latest commit C and the latest offsets L; when C == L the
next batch starts from `offsets/C`; when L == C + 1, batch L is re-run with exactly
`offsets/L`. Only `offsets/C`, `offsets/L` and `commits/C` are read, never the history.
"""

from __future__ import annotations

from streamlint.checkpoint.commit_log import read_commit_entry
from streamlint.checkpoint.errors import CheckpointError
from streamlint.checkpoint.fs import CheckpointFS, open_fs
from streamlint.checkpoint.logs import batch_ids, parse_object, read_text
from streamlint.checkpoint.model import Checkpoint, OffsetEntry
from streamlint.checkpoint.offset_log import read_offset_entry
from streamlint.checkpoint.operators import read_operators

CHECKPOINT_ENTRIES = ("metadata", "offsets", "commits")


def read_checkpoint(path: str, *, with_operators: bool = True) -> Checkpoint:
    fs, root = open_fs(path)
    return read_checkpoint_fs(fs, root, path, with_operators=with_operators)


def read_checkpoint_fs(fs: CheckpointFS, root: str, shown: str, *,
                       with_operators: bool = True) -> Checkpoint:
    entries = fs.list_names(root)
    if entries is None:
        if fs.is_dir(root) is False and _exists_as_file(fs, root):
            raise CheckpointError(shown, "is a file; expected a checkpoint directory")
        raise CheckpointError(shown, "no such checkpoint directory")
    if not any(name in entries for name in CHECKPOINT_ENTRIES):
        raise CheckpointError(shown, "not a Spark checkpoint: no metadata, offsets/ or "
                              "commits/ in it")
    warnings: list[str] = []
    query_id = _query_id(fs, root, entries, warnings)
    offsets_dir, commits_dir = fs.join(root, "offsets"), fs.join(root, "commits")
    offset_ids = batch_ids(fs, offsets_dir) or []
    commit_ids = batch_ids(fs, commits_dir) or []
    last_commit = read_commit_entry(fs, commits_dir, commit_ids[-1]) if commit_ids else None
    last_committed: OffsetEntry | None = None
    if last_commit is not None:
        if last_commit.batch_id in offset_ids:
            last_committed = read_offset_entry(fs, offsets_dir, last_commit.batch_id)
        else:
            warnings.append(f"commits/{last_commit.batch_id} exists but offsets/"
                            f"{last_commit.batch_id} does not: the offsets of the last "
                            "committed batch are gone (deleted by hand?)")
    committed = last_commit.batch_id if last_commit else -1
    uncommitted = tuple(i for i in offset_ids if i > committed)
    latest = last_committed
    if offset_ids and offset_ids[-1] > committed:
        latest = read_offset_entry(fs, offsets_dir, offset_ids[-1])
    if len(uncommitted) > 1:
        warnings.append(f"{len(uncommitted)} planned batches were never committed "
                        f"({_ids(uncommitted)}); normal runs leave at most one (async "
                        "progress tracking, or files deleted by hand?)")
    if offset_ids and commit_ids and commit_ids[-1] > offset_ids[-1]:
        warnings.append(f"commits/{commit_ids[-1]} is newer than the newest offsets file "
                        f"(offsets/{offset_ids[-1]})")
    operators = read_operators(fs, root, last_commit) if with_operators else ()
    for op in operators:
        for store in op.stores:
            if store.files is not None and store.files.missing:
                warnings.append(
                    f"state/{op.id} store {store.name}: partition(s) "
                    f"{_ids(store.files.missing)} hold no state version "
                    f"{store.files.committed_version} (batch {last_commit.batch_id}'s); "
                    "a restart cannot load it")
    if offset_ids and query_id is None and "metadata" not in entries:
        warnings.append("no metadata file: Spark would give this checkpoint a new query id")
    return Checkpoint(
        path=shown,
        query_id=query_id,
        offset_batches=(offset_ids[0], offset_ids[-1]) if offset_ids else None,
        commit_batches=(commit_ids[0], commit_ids[-1]) if commit_ids else None,
        last_committed=last_committed,
        last_commit=last_commit,
        latest_offsets=latest,
        uncommitted_batches=uncommitted,
        operators=operators,
        warnings=tuple(warnings),
    )


def read_batch_offsets(path: str, batch_id: int) -> OffsetEntry:
    """`offsets/<batch_id>` of a checkpoint, or a clear error when it was purged."""
    fs, root = open_fs(path)
    offsets_dir = fs.join(root, "offsets")
    ids = batch_ids(fs, offsets_dir) or []
    if batch_id not in ids:
        kept = f"offsets {ids[0]}-{ids[-1]} are kept" if ids else "no offsets are kept"
        raise CheckpointError(fs.join(offsets_dir, str(batch_id)),
                              f"no such batch ({kept}; older ones are purged)")
    return read_offset_entry(fs, offsets_dir, batch_id)


def _query_id(fs: CheckpointFS, root: str, entries: list[str],
              warnings: list[str]) -> str | None:
    if "metadata" not in entries:
        return None
    path = fs.join(root, "metadata")
    value = parse_object(path, read_text(fs, path).strip(), "the query metadata")
    query_id = value.get("id")
    if not isinstance(query_id, str):
        raise CheckpointError(path, "has no query 'id'")
    return query_id


def _exists_as_file(fs: CheckpointFS, path: str) -> bool:
    try:
        fs.read_bytes(path)
    except CheckpointError:
        return False
    return True


def _ids(ids: tuple[int, ...]) -> str:
    return ", ".join(str(i) for i in ids)
