"""Materialise the real-world corpus (tests/realworld/MANIFEST.toml) from local snapshots.

    python bench/realworld_fetch.py [MIRRORS]

MIRRORS (default /work/.mirror) holds bare snapshots of the corpus's repositories as
`<owner>+<repo>/repo` (what the search tool's `fetch` brings). Each file is read at its
recorded commit (else at the snapshot's HEAD), checked against the manifest's sha256, and
written to tests/realworld/<owner>__<repo>/<path>, which git ignores: the jobs are other
people's code and stay out of this repository. Exit 0 when every file is there, 1 otherwise,
naming each file that could not be had and why.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realworld_corpus import REALWORLD, load_manifest  # noqa: E402


def blob(git_dir: Path, rev: str, path: str) -> bytes | None:
    done = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "blob", f"{rev}:{path}"],
                          capture_output=True, check=False)
    return done.stdout if done.returncode == 0 else None


def main(argv: list[str]) -> int:
    mirrors = Path(argv[0] if argv else "/work/.mirror")
    problems = []
    for entry in load_manifest():
        target = REALWORLD / entry["path"]
        if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == entry["sha256"]:
            continue
        git_dir = mirrors / entry["repo"].replace("/", "+") / "repo"
        if not git_dir.is_dir():
            problems.append(f"{entry['path']}: no snapshot of {entry['repo']} in {mirrors}")
            continue
        data = None
        for rev in (entry["commit"], "HEAD"):
            candidate = blob(git_dir, rev, entry["repo_path"])
            if candidate is not None and hashlib.sha256(candidate).hexdigest() == entry["sha256"]:
                data = candidate
                break
        if data is None:
            problems.append(f"{entry['path']}: not in the snapshot with the recorded sha256")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for line in problems:
        print(line, file=sys.stderr)
    print(f"{len(load_manifest()) - len(problems)} of {len(load_manifest())} corpus files in place")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
