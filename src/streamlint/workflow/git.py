"""Git as a read-only source of file versions: changed paths between two refs, and old text.

Old versions are read with `git cat-file --batch` (`REF:path`, all in one process); nothing
is ever checked out, stashed or written, so the check runs on a dirty working tree and in
CI's detached checkouts alike.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from streamlint.model.errors import UsageError
from streamlint.model.records import record


@record
class Change:
    """One path git reports as changed, with its status letter reduced to words."""

    status: str  # "added", "deleted", "modified", "renamed"
    old_path: str | None
    new_path: str | None


def run_git(root: Path, *args: str) -> bytes:
    try:
        result = subprocess.run(["git", *args], cwd=root, capture_output=True, check=False)
    except FileNotFoundError:
        raise UsageError("git is not installed (streamlint check reads versions with git)") \
            from None
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise UsageError(f"git {' '.join(args[:2])}: {message[-1] if message else 'failed'}")
    return result.stdout


def repo_root(start: Path) -> Path:
    """The top of the working tree that holds `start`."""
    try:
        out = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=start,
                             capture_output=True, check=False)
    except FileNotFoundError:
        raise UsageError("git is not installed (streamlint check reads versions with git)") \
            from None
    if out.returncode != 0:
        raise UsageError(f"{start}: not inside a git repository")
    return Path(out.stdout.decode().strip())


def verify_ref(root: Path, ref: str) -> str:
    """The commit a ref names, or a usage error that names the ref."""
    out = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                         cwd=root, capture_output=True, check=False)
    if out.returncode != 0:
        raise UsageError(f"--base/--head: no commit {ref!r} in this repository "
                         "(in CI, fetch it first, e.g. `git fetch origin main`)")
    return out.stdout.decode().strip()


def changed_files(root: Path, base: str, head: str | None) -> list[Change]:
    """Paths changed from `base` to `head` (a ref, or the working tree when None).

    Renames follow git's own similarity detection (`-M`), so a job moved to another folder
    is compared with its old self instead of reported as one job deleted and one added.
    """
    args = ["diff", "--name-status", "-z", "-M", "--no-ext-diff", "--no-textconv"]
    args.append(base)
    if head is not None:
        args.append(head)
    fields = run_git(root, *args, "--").decode("utf-8", errors="surrogateescape").split("\0")
    changes: list[Change] = []
    i = 0
    while i < len(fields) and fields[i]:
        letter = fields[i][0]
        if letter in "RC":
            old, new = fields[i + 1], fields[i + 2]
            i += 3
            changes.append(Change("renamed" if letter == "R" else "added",
                                  old if letter == "R" else None, new))
            continue
        path = fields[i + 1]
        i += 2
        if letter == "A":
            changes.append(Change("added", None, path))
        elif letter == "D":
            changes.append(Change("deleted", path, None))
        elif letter in "MT":
            changes.append(Change("modified", path, path))
    if head is None:
        # `git diff base` leaves out files git does not track yet; a new job is still a job.
        others = run_git(root, "ls-files", "--others", "--exclude-standard", "-z")
        for path in others.decode("utf-8", errors="surrogateescape").split("\0"):
            if path:
                changes.append(Change("added", None, path))
    return changes


def tree_files(root: Path, ref: str | None) -> list[str]:
    """Every file at `ref`, or in the working tree (tracked or not ignored) when it is None."""
    if ref is None:
        listed = run_git(root, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
    else:
        listed = run_git(root, "ls-tree", "-r", "--name-only", "-z", ref)
    return [p for p in listed.decode("utf-8", errors="surrogateescape").split("\0") if p]


def head_exists(root: Path) -> bool:
    """False before the first commit."""
    out = subprocess.run(["git", "rev-parse", "--verify", "--quiet", "HEAD"], cwd=root,
                         capture_output=True, check=False)
    return out.returncode == 0


def show_many(root: Path, ref: str, paths: list[str]) -> dict[str, bytes]:
    """Many files at one ref in a single `git cat-file --batch` process.

    One `git show` per file costs a process start each (a few ms); on a pull request that
    changes hundreds of jobs, one batch is what keeps the check within seconds.
    """
    if not paths:
        return {}
    # The batch protocol is line-based: a path with a line break in its name is read alone
    # (else its old version silently went missing and every query looked new).
    texts = {path: blob for path in paths if "\n" in path
             for blob in [_show_one(root, ref, path)] if blob is not None}
    paths = [path for path in paths if "\n" not in path]
    if not paths:
        return texts
    request = "".join(f"{ref}:{path}\n" for path in paths).encode("utf-8", "surrogateescape")
    try:
        # --follow-symlinks: a job that is a symlink is read at its target, as Spark runs it
        # (else the old side was the link's text and a retargeted link passed as compatible).
        result = subprocess.run(["git", "cat-file", "--batch", "--follow-symlinks"], cwd=root,
                                input=request,
                                capture_output=True, check=False)
    except FileNotFoundError:
        raise UsageError("git is not installed") from None
    if result.returncode != 0:
        raise UsageError(f"git cat-file: {result.stderr.decode(errors='replace').strip()}")
    out = result.stdout
    pos = 0
    for path in paths:
        end = out.index(b"\n", pos)
        header = out[pos:end].split(b" ")
        pos = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            texts[path] = out[pos:pos + size]
            pos += size + 1  # the content ends with one newline of the protocol
        elif len(header) == 2 and header[0] in _UNFOLLOWED:
            pos += int(header[1]) + 1  # a link out of the tree, dangling or looping: no file
    return texts


# `git cat-file --batch --follow-symlinks` answers "<kind> <size>" and <size> bytes of detail
# for a link it cannot resolve to a blob in the tree.
_UNFOLLOWED = {b"symlink", b"dangling", b"loop", b"notdir"}


def _show_one(root: Path, ref: str, path: str) -> bytes | None:
    """One blob at a ref, or None when the path is not a file there (a submodule, say)."""
    spec = f"{ref}:{path}".encode("utf-8", "surrogateescape")
    result = subprocess.run([b"git", b"cat-file", b"blob", spec], cwd=root,
                            capture_output=True, check=False)
    return result.stdout if result.returncode == 0 else None
