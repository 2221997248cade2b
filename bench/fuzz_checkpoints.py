"""Fuzz the checkpoint readers: corrupted copies of real checkpoints through the CLI.

Usage: python bench/fuzz_checkpoints.py [--inputs N] [--seed S] [--out DIR] [--only I ...]

Each input copies one real checkpoint (tests/fixtures/checkpoints) to a temp dir, corrupts it
(truncations, bit flips, empty or deleted files and folders, unknown log versions, huge batch
ids, JSON values of the wrong kind, symlink loops, unreadable files) and runs, in-process,
`checkpoint show` and `checkpoint offsets` (text and json) and `diff --checkpoint` (static)
with the fixture's own job. A crash is an exception escaping `main`, an exit code other than
0, 1 or 2, a traceback on stderr, or exit 2 without a `path: message` line. The tree is hashed
before and after every command: any change is a write, and a failure.

Unreadable files: root reads a chmod 000 file anyway, so when run as root this script runs
itself again as `nobody` (setpriv) so that the permission mutations really deny; with
--as-root it stays root and says that those mutations proved nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

FIXTURES = ROOT / "tests" / "fixtures" / "checkpoints"
HUGE_IDS = ("99999999999999999999", "9223372036854775807", "9223372036854775808",
            "00000000000000000000001", "1" * 250)
JSON_VALUES: tuple[object, ...] = (None, True, -1, 0, 2**63, -(2**63), 1e308, "", "x", [],
                                   {}, {"a": 1}, [1, 2], "1" * 1000)


def fixtures() -> list[Path]:
    return sorted(p.parent for p in FIXTURES.glob("spark-*/*/checkpoint") if p.is_dir())


def tree_digest(root: Path) -> str:
    """Names, kinds, modes, sizes, contents and link targets of everything under root."""
    digest = hashlib.sha256()
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(dirs + files):
            path = os.path.join(folder, name)
            info = os.lstat(path)
            digest.update(f"{path}\0{info.st_mode}\0{info.st_size}\0{info.st_mtime_ns}\0"
                          .encode("utf-8", "surrogateescape"))
            if stat.S_ISLNK(info.st_mode):
                digest.update(os.readlink(path).encode("utf-8", "surrogateescape"))
            elif stat.S_ISREG(info.st_mode) and info.st_mode & 0o444:
                with contextlib.suppress(PermissionError), open(path, "rb") as handle:
                    digest.update(handle.read())
    return digest.hexdigest()


def _entries(root: Path) -> tuple[list[Path], list[Path]]:
    files, dirs = [], []
    for folder, subdirs, names in os.walk(root):
        dirs.extend(Path(folder, d) for d in sorted(subdirs))
        files.extend(Path(folder, n) for n in sorted(names))
    return files, dirs


def _mutate_json(text: str, rng: random.Random) -> str:
    """Swap one value of a JSON line for a value of another kind (or drop a key)."""
    lines = text.split("\n")
    spots = [i for i, line in enumerate(lines) if line.startswith(("{", "["))]
    if not spots:
        return text
    at = rng.choice(spots)
    try:
        value = json.loads(lines[at])
    except ValueError:
        return text
    holders: list[dict | list] = []

    def walk(node: object) -> None:
        if isinstance(node, (dict, list)):
            holders.append(node)
            for child in (node.values() if isinstance(node, dict) else node):
                walk(child)

    walk(value)
    holder = rng.choice(holders)
    if isinstance(holder, dict) and holder:
        key = rng.choice(sorted(holder, key=str))
        if rng.random() < 0.3:
            del holder[key]
        else:
            holder[key] = rng.choice(JSON_VALUES)
    elif isinstance(holder, list) and holder:
        holder[rng.randrange(len(holder))] = rng.choice(JSON_VALUES)
    else:
        return text
    lines[at] = json.dumps(value)
    return "\n".join(lines)


def mutate(root: Path, rng: random.Random, unreadable_ok: bool) -> list[str]:
    """Corrupt the checkpoint at root in one to three ways; the list says how."""
    done: list[str] = []
    for _ in range(rng.randint(1, 3)):
        with contextlib.suppress(OSError):  # an earlier corruption may stand in the way
            _mutate_once(root, rng, unreadable_ok, done)
    return done


def _mutate_once(root: Path, rng: random.Random, unreadable_ok: bool, done: list[str]) -> None:
    files, dirs = _entries(root)
    logs = [f for f in files if f.name.isdigit() or f.name == "metadata"]
    kind = rng.choice(("truncate", "flip", "byte", "empty", "delete", "rmdir", "version",
                       "huge", "json", "json", "json", "loop", "filelink", "unreadable",
                       "swap", "garbage"))
    pool = logs if logs and rng.random() < 0.5 else files
    target = rng.choice(pool) if pool else None
    if kind in ("truncate", "flip", "byte", "empty", "version", "json",
                "garbage") and (target is None or not target.is_file()
                                or target.is_symlink()):
        return
    if kind == "truncate":
        data = target.read_bytes()
        target.write_bytes(data[: rng.randrange(len(data) + 1)])
    elif kind == "flip":
        data = bytearray(target.read_bytes())
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        target.write_bytes(bytes(data))
    elif kind == "byte":
        data = bytearray(target.read_bytes())
        if data:
            data[rng.randrange(len(data))] = rng.choice((0x00, 0x80, 0xC3, 0xFF, 0x0A,
                                                         0x22, 0x7B, 0x7D))
        target.write_bytes(bytes(data))
    elif kind == "empty":
        target.write_bytes(b"")
    elif kind == "delete" and target is not None:
        target.unlink()
    elif kind == "rmdir" and dirs:
        shutil.rmtree(rng.choice(dirs), ignore_errors=True)
    elif kind == "version":
        data = target.read_bytes()
        head, _, rest = data.partition(b"\n")
        target.write_bytes(rng.choice((b"v99", b"v0", b"v-1", b"v", b"v" + b"9" * 40,
                                       b"V1", b" v1", b"v1 ")) + b"\n" + rest)
    elif kind == "huge":
        batches = [f for f in files if f.name.isdigit()]
        if batches:
            source = rng.choice(batches)
            name = rng.choice(HUGE_IDS)
            if rng.random() < 0.5:
                shutil.copyfile(source, source.with_name(name))
            else:
                source.rename(source.with_name(name))
    elif kind == "json":
        text = target.read_bytes().decode("utf-8", "surrogateescape")
        target.write_bytes(_mutate_json(text, rng).encode("utf-8", "surrogateescape"))
    elif kind == "loop" and dirs:
        folder = rng.choice(dirs)
        shutil.rmtree(folder)
        os.symlink(folder.name if rng.random() < 0.5 else ".", folder)
    elif kind == "filelink" and target is not None:
        target.unlink()
        os.symlink(target.name, target)  # a link to itself: ELOOP on open
    elif kind == "unreadable" and target is not None and unreadable_ok:
        victim = rng.choice([target, *dirs]) if dirs else target
        victim.chmod(0)
    elif kind == "swap" and target is not None:
        target.unlink()
        target.mkdir()
    elif kind == "garbage":
        with open(target, "ab") as handle:
            handle.write(bytes(rng.randrange(256) for _ in range(rng.randint(1, 40))))
    else:
        return
    done.append(kind)


def run_cli(argv: list[str]) -> tuple[int | None, str, str, str | None]:
    from streamlint.cli import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except BaseException as exc:  # noqa: BLE001 - anything escaping main is the finding
        return None, out.getvalue(), err.getvalue(), "".join(
            traceback.format_exception(exc))[-3000:]
    return code, out.getvalue(), err.getvalue(), None


def check(argv: list[str]) -> str | None:
    """The crash of one command, or None."""
    code, _, err, escaped = run_cli(argv)
    if escaped is not None:
        return "exception: " + escaped
    if code not in (0, 1, 2):
        return f"exit code {code!r}"
    if "Traceback" in err:
        return "traceback on stderr: " + err[-2000:]
    if code == 2 and ": " not in err.strip():
        return f"exit 2 without a `path: message` line: {err!r}"
    return None


def commands(checkpoint: str, job: str, rng: random.Random) -> list[list[str]]:
    fmt = rng.choice(("text", "json"))
    offsets = ["checkpoint", "offsets", checkpoint, "--format", fmt]
    if rng.random() < 0.3:
        offsets += ["--batch", str(rng.choice((0, 1, 2, 5, 10**20)))]
    return [["checkpoint", "show", checkpoint, "--format", fmt], offsets,
            ["diff", "--checkpoint", checkpoint, job, "--format", fmt]]


def fuzz_one(index: int, seed: int, work: Path, unreadable_ok: bool,
             sources: list[Path]) -> tuple[list[str], list[str]]:
    """(how it was corrupted, the crashes) of input `index`."""
    from checkpoint_jobs import standalone_job

    rng = random.Random(seed * 1_000_003 + index)
    fixture = sources[rng.randrange(len(sources))]
    case = work / f"case{index}"
    checkpoint = case / "checkpoint"
    shutil.copytree(fixture / "checkpoint", checkpoint, symlinks=True)
    job = case / "job.py"
    job.write_text(standalone_job(fixture, str(checkpoint)))
    how = mutate(checkpoint, rng, unreadable_ok)
    crashes = []
    before = tree_digest(case)
    for argv in commands(str(checkpoint), str(job), rng):
        crash = check(argv)
        if tree_digest(case) != before:
            crash = (crash or "") + " / the command changed the checkpoint tree"
        if crash:
            crashes.append(f"{' '.join(argv[:2])}: {crash}")
    _remove(case)
    return how, crashes


def _remove(path: Path) -> None:
    """Remove a case, chmod 000 folders and all (top-down: a folder is opened before entered)."""
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            entry = os.path.join(folder, name)
            if not os.path.islink(entry):
                with contextlib.suppress(OSError):
                    os.chmod(entry, 0o700)
    shutil.rmtree(path, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", type=int, nargs="*", default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--as-root", action="store_true",
                        help="stay root (chmod 000 then denies nothing)")
    args = parser.parse_args()
    if os.geteuid() == 0 and not args.as_root:
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        env = {**os.environ, "HOME": tempfile.gettempdir()}
        return subprocess.call([*nobody, sys.executable, *sys.argv], env=env)
    unreadable_ok = os.geteuid() != 0
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="streamlint-cpfuzz-cache-")
    work = Path(tempfile.mkdtemp(prefix="streamlint-cpfuzz-"))
    out = args.out or work
    out.mkdir(parents=True, exist_ok=True)
    sources = fixtures()
    began = time.time()
    kinds: dict[str, int] = {}
    crashes: list[dict[str, object]] = []
    indices = args.only or range(args.inputs)
    for done, index in enumerate(indices, 1):
        how, found = fuzz_one(index, args.seed, work, unreadable_ok, sources)
        for kind in how:
            kinds[kind] = kinds.get(kind, 0) + 1
        if found:
            crashes.append({"index": index, "how": how, "crashes": found})
            print(f"CRASH input {index} ({', '.join(how)}): {found[0][-400:]}",
                  file=sys.stderr, flush=True)
        if done % 500 == 0:
            print(f"{done} checkpoints", file=sys.stderr, flush=True)
    summary = {"checkpoints": len(indices), "commands": 3 * len(indices),
               "crashes": len(crashes), "seconds": round(time.time() - began, 1),
               "user": "root (unreadable files not tested)" if not unreadable_ok else
               f"uid {os.geteuid()}", "mutations": dict(sorted(kinds.items())),
               "crash_list": crashes}
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps({k: v for k, v in summary.items() if k != "crash_list"}, indent=2))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
