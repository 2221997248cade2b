"""Rebuild the history corpus (tests/history/PAIRS.toml) from local snapshots.

    python bench/history_fetch.py [MIRRORS]

MIRRORS (default /work/.mirror) holds bare snapshots of the repositories as
`<owner>+<name>/repo` (what the search tool's `fetch` brings, with full history). For every pair,
the whole repository tree at the parent and at the commit is written with `git archive` to
tests/history/trees/<owner>__<name>/<commit>/ (git-ignored: other people's code stays out of this
repository), with an empty `.git` folder so streamlint takes it as the repository's root. The job
file on each side is checked against the manifest's sha256. Exit 0 when every pair is in place,
1 otherwise, naming each pair that could not be had and why.
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from history_corpus import job, load_pairs, tree  # noqa: E402


def materialise(git_dir: Path, commit: str, target: Path) -> str | None:
    """Write the tree of `commit` into `target`; None, or why it could not be done."""
    if (target / ".git").is_dir():
        return None
    done = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "--format=tar", commit],
                          capture_output=True, check=False)
    partial = target.with_name(target.name + ".partial")
    partial.mkdir(parents=True, exist_ok=True)
    if done.returncode == 0:
        with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
            members = [m for m in archive.getmembers() if m.isfile() or m.isdir()]
            archive.extractall(partial, members=members, filter="data")
    else:  # a snapshot lacks files of 4 MiB and more: write every blob it has
        why = blob_by_blob(git_dir, commit, partial)
        if why:
            return why
    (partial / ".git").mkdir(exist_ok=True)
    partial.rename(target)
    return None


def blob_by_blob(git_dir: Path, commit: str, target: Path) -> str | None:
    """The tree of `commit` written file by file, leaving out blobs the snapshot lacks."""
    listed = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit],
                            capture_output=True, check=False)
    if listed.returncode != 0:
        return f"git ls-tree {commit[:12]}: {listed.stderr.decode(errors='replace')[:200]}"
    for entry in listed.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, sha = meta.split()
        path = target / name.decode(errors="replace")
        if kind != b"blob" or mode == b"120000" or ".." in path.parts:
            continue
        blob = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "blob",
                               sha.decode()], capture_output=True, check=False)
        if blob.returncode == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(blob.stdout)
    return None


def main(argv: list[str]) -> int:
    mirrors = Path(argv[0] if argv else "/work/.mirror")
    pairs = load_pairs()
    problems = []
    for pair in pairs:
        git_dir = mirrors / pair["repo"].replace("/", "+") / "repo"
        if not git_dir.is_dir():
            problems.append(f"{pair['id']}: no snapshot of {pair['repo']} in {mirrors}")
            continue
        for side, digest in (("old", pair["old_sha256"]), ("new", pair["new_sha256"])):
            why = materialise(git_dir, pair["parent" if side == "old" else "commit"],
                              tree(pair, side))
            path = job(pair, side)
            if why is None and not path.is_file():
                why = f"{path.relative_to(tree(pair, side))} is not in the tree"
            if why is None and hashlib.sha256(path.read_bytes()).hexdigest() != digest:
                why = f"{path.name} at the {side} side does not have the recorded sha256"
            if why:
                problems.append(f"{pair['id']} ({side}): {why}")
    for line in problems:
        print(line, file=sys.stderr)
    print(f"{len(pairs) - len({p.split(' ')[0] for p in problems})} of {len(pairs)} pairs in place")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
