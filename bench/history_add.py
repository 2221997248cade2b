"""Add mined pairs to the history corpus's manifest (tests/history/PAIRS.toml).

    python bench/history_add.py PART.toml [PART.toml ...] [--mirrors DIR]

Each PART holds `[[pair]]` tables as a miner wrote them (see tests/history/README.md): the
repository, the job file, the parent and the commit, what changed, the expected verdict and
why. This records the sha256 of the job file on each side, read from the local snapshot, and
writes the manifest sorted by repository and commit. A pair already in the manifest (same id)
keeps its recorded fields; a pair whose file cannot be read from the snapshot is refused, with
the reason. The expected verdicts are never touched.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from history_corpus import HISTORY, KINDS, VERDICTS, load_pairs, tomllib  # noqa: E402

FIELDS = ("id", "repo", "license", "path", "old_path", "parent", "commit", "kind", "files",
          "subject", "change", "expected", "why", "old_sha256", "new_sha256")
HEADER = """\
# The history corpus (issue 26): real commits of public streaming jobs, each a job file at a
# commit and at its first parent, taken as they came in each repository's history. `expected`
# was decided from Spark's and Databricks' documentation before streamlint ran, against the
# whole commit (helper modules and config files too), and is never adjusted to the tool's
# output. The repositories' code is not here: `python bench/history_fetch.py` rebuilds both
# trees of every pair from local snapshots, checked against old_sha256 / new_sha256.
"""


def sha256_at(git_dir: Path, commit: str, path: str) -> str | None:
    done = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "blob",
                           f"{commit}:{path}"], capture_output=True, check=False)
    return hashlib.sha256(done.stdout).hexdigest() if done.returncode == 0 else None


def toml_value(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="+", type=Path)
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args(argv)
    manifest = HISTORY / "PAIRS.toml"
    pairs = {p["id"]: p for p in (load_pairs() if manifest.is_file() else [])}
    refused = []
    for part in args.parts:
        with part.open("rb") as handle:
            mined = tomllib.load(handle).get("pair", [])
        for pair in mined:
            if pair["id"] in pairs:
                continue
            if pair.get("expected") not in VERDICTS or pair.get("kind") not in KINDS:
                refused.append(f"{pair.get('id')}: expected or kind not one of the allowed")
                continue
            git_dir = args.mirrors / pair["repo"].replace("/", "+") / "repo"
            old = sha256_at(git_dir, pair["parent"], pair.get("old_path", pair["path"]))
            new = sha256_at(git_dir, pair["commit"], pair["path"])
            if old is None or new is None:
                refused.append(f"{pair['id']}: the job file is not in the snapshot at "
                               f"{'parent' if old is None else 'commit'}")
                continue
            pairs[pair["id"]] = {**pair, "old_sha256": old, "new_sha256": new}
    lines = [HEADER]
    for pair in sorted(pairs.values(), key=lambda p: (p["repo"].lower(), p["id"])):
        lines.append("[[pair]]")
        lines += [f"{key} = {toml_value(pair[key])}" for key in FIELDS if key in pair]
        lines.append("")
    manifest.write_text("\n".join(lines), encoding="utf-8")
    for line in refused:
        print("refused: " + line, file=sys.stderr)
    print(f"{len(pairs)} pairs in {manifest}")
    return 1 if refused else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
