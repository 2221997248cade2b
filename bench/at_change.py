"""Measure where findings point on real commits: at a line the commit changed, or not.

    python bench/at_change.py [--src DIR] [--only TEXT] [--list]

A code host shows an annotation in a pull request's diff only on a changed line (issue 31:
findings at the change). For every pair of the history corpus (tests/history, rebuilt by
`python bench/history_fetch.py`) whose job is a Python file, runs `streamlint diff --format
json` as CI does and sorts the findings above note by where they point:

- "job, changed": a line of the job file the commit changed (a line of the new file that
  `difflib` does not match to the old one);
- "other file, changed": a changed line of another file of the repository (a helper module,
  a configuration file), the job's usage then being a related location;
- "job, unchanged" / "other file, unchanged": a line the commit did not touch;
- "gone": no new location (a query the new version no longer has): its old line is shown.

Notebooks in their JSON form are left out. `--list` prints every finding not at a changed
line, with its pair, code and locations.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import history_corpus as hc  # noqa: E402

CATEGORIES = ("job, changed", "other file, changed", "job, unchanged", "other file, unchanged",
              "gone")


def changed_lines(old: Path, new: Path) -> set[int] | None:
    """The lines of `new` that `old` does not have (all of them when `old` does not exist)."""
    try:
        after = new.read_text(encoding="utf-8").splitlines()
        before = old.read_text(encoding="utf-8").splitlines() if old.is_file() else []
    except (OSError, UnicodeDecodeError):
        return None
    changed: set[int] = set()
    opcodes = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    for tag, _, _, first, last in opcodes:
        if tag != "equal":
            changed.update(range(first + 1, last + 1))
    return changed


def _where(pair: dict[str, Any], finding: dict[str, Any]) -> str:
    """The category of a finding above note (see the module's docstring)."""
    loc = finding.get("new")
    if not loc:
        return "gone"
    new_root, old_root = hc.tree(pair, "new").resolve(), hc.tree(pair, "old").resolve()
    path = Path(loc["path"]).resolve()
    job = hc.job(pair, "new").resolve()
    if path == job:
        old = hc.job(pair, "old")
    elif path.is_relative_to(new_root):
        old = old_root / path.relative_to(new_root)
    else:
        return "other file, unchanged"
    changed = changed_lines(old, path)
    side = "job" if path == job else "other file"
    return f"{side}, {'changed' if changed and loc['line'] in changed else 'unchanged'}"


def placed(pair: dict[str, Any], src: Path) -> list[tuple[str, str]]:
    """For each finding above note: its category and how --list shows it."""
    old, new = hc.job(pair, "old"), hc.job(pair, "new")
    if new.suffix == ".ipynb" or not old.is_file() or not new.is_file():
        return []
    done = subprocess.run([sys.executable, "-m", "streamlint", "diff", "--format", "json",
                           "--exit-zero", str(old), str(new)], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(src)))
    try:
        findings = json.loads(done.stdout).get("findings", [])
    except json.JSONDecodeError:
        return []
    out = []
    for finding in findings:
        if finding["verdict"] == "compatible":
            continue
        where = _where(pair, finding)
        locs = [f"{key} {_short(pair, finding[key])}" for key in ("old", "new")
                if finding.get(key)]
        locs += [f"related {_short(pair, loc)}" for loc in finding.get("related", [])]
        out.append((where, f"{pair['id']} {finding['code']} {'; '.join(locs)}"))
    return out


def _short(pair: dict[str, Any], loc: dict[str, Any]) -> str:
    path = Path(loc["path"]).resolve()
    for side in ("new", "old"):
        root = hc.tree(pair, side).resolve()
        if path.is_relative_to(root):
            return f"{side}:{path.relative_to(root)}:{loc['line']}"
    return f"{loc['path']}:{loc['line']}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=hc.ROOT / "src",
                        help="the streamlint source folder to measure (default: this one's)")
    parser.add_argument("--only", default="", help="only the pairs whose id contains TEXT")
    parser.add_argument("--list", action="store_true",
                        help="print every finding not at a changed line")
    args = parser.parse_args()
    pairs = [p for p in hc.load_pairs() if args.only in p["id"]]
    with ThreadPoolExecutor(2) as pool:
        results = [r for rs in pool.map(lambda p: placed(p, args.src), pairs) for r in rs]
    report(results, f"{len(pairs)} pairs", "commit", CATEGORIES, args.list)
    return 0


def report(results: list[tuple[str, str]], head: str, what: str, categories: tuple[str, ...],
           listed: bool) -> None:
    """Print the findings not at a changed line (`listed`), the count at one (`what`
    changed it: the commit, the edit), and each category's."""
    if listed:
        for where, shown in sorted(results):
            if not where.endswith(", changed"):
                print(f"{where}: {shown}")
    at = sum(where.endswith(", changed") for where, _ in results)
    print(f"{head}; findings above note: {len(results)}; at a line the {what} changed: {at} "
          f"({100 * at / max(1, len(results)):.0f} %)")
    for category in categories:
        print(f"  {category}: {sum(where == category for where, _ in results)}")


if __name__ == "__main__":
    sys.exit(main())
