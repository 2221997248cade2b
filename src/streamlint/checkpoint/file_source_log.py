"""`sources/<i>/`: the file source's own log of the files it took (`FileStreamSourceLog`).

Only the newest entry is read, to learn which directory the checkpoint's files came from.
"""

from __future__ import annotations

import json

from streamlint.checkpoint.fs import CheckpointFS
from streamlint.checkpoint.logs import read_text, split_version
from streamlint.model.paths import normal_path


def latest_file_path(fs: CheckpointFS, root: str, source: str) -> str | None:
    """The path of the newest file the file source recorded, or None when it has none."""
    directory = fs.join(root, "sources", source)
    names = fs.list_names(directory) or []
    ids = [(int(n.split(".")[0]), n) for n in names
           if n.isdigit() or (n.endswith(".compact") and n[:-8].isdigit())]
    if not ids:
        return None
    path = fs.join(directory, max(ids)[1])
    _, lines = split_version(path, read_text(fs, path), 1)
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            return entry["path"]
    return None


def same_directory(recorded_file: str, new_path: str) -> bool:
    """Whether a recorded file URI lies under the path the new code reads."""
    recorded, wanted = normal_path(recorded_file), normal_path(new_path)
    return recorded == wanted or recorded.startswith(wanted + "/")
