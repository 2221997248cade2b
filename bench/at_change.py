"""Measure where findings point on real commits: at a line the commit changed, or not.

    python bench/at_change.py [--src DIR] [--only TEXT]

A code host shows an annotation in a pull request's diff only on a changed line (issue 31:
findings at the change). For every pair of the history corpus (tests/history, rebuilt by
`python bench/history_fetch.py`) whose job is a Python file, runs `streamlint diff --format
json` as CI does and counts the findings above note that point into the job file itself, and
how many of them point at a line the commit changed (a line of the new file that
`difflib` does not match to the old one). Notebooks in their JSON form are left out.
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


def changed_lines(old: Path, new: Path) -> set[int] | None:
    try:
        before = old.read_text(encoding="utf-8").splitlines()
        after = new.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    changed: set[int] = set()
    opcodes = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    for tag, _, _, first, last in opcodes:
        if tag != "equal":
            changed.update(range(first + 1, last + 1))
    return changed


def placed(pair: dict[str, Any], src: Path) -> list[bool]:
    """For each finding above note in the job file: whether its line changed."""
    old, new = hc.job(pair, "old"), hc.job(pair, "new")
    if new.suffix == ".ipynb" or not old.is_file() or not new.is_file():
        return []
    changed = changed_lines(old, new)
    if changed is None:
        return []
    done = subprocess.run([sys.executable, "-m", "streamlint", "diff", "--format", "json",
                           "--exit-zero", str(old), str(new)], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(src)))
    try:
        findings = json.loads(done.stdout).get("findings", [])
    except json.JSONDecodeError:
        return []
    return [finding["new"]["line"] in changed for finding in findings
            if finding["verdict"] != "compatible" and finding.get("new")
            and Path(finding["new"]["path"]).resolve() == new.resolve()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=hc.ROOT / "src",
                        help="the streamlint source folder to measure (default: this one's)")
    parser.add_argument("--only", default="", help="only the pairs whose id contains TEXT")
    args = parser.parse_args()
    pairs = [p for p in hc.load_pairs() if args.only in p["id"]]
    with ThreadPoolExecutor(2) as pool:
        results = [r for rs in pool.map(lambda p: placed(p, args.src), pairs) for r in rs]
    at = sum(results)
    print(f"{len(pairs)} pairs; findings above note in the job file: {len(results)}; at a line "
          f"the commit changed: {at} ({100 * at / max(1, len(results)):.0f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
