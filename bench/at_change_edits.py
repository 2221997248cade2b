"""Where findings point on the real-world corpus's edits: at the line the edit changed, or not.

    python bench/at_change_edits.py [--src DIR] [--list]

The companion of bench/at_change.py (real commits) for tests/realworld/EDITS.toml: each edit
of a Python job (`python bench/realworld_fetch.py` materialises the files) is applied in a
copy of its repository folder and diffed as `streamlint diff` does (settled: findings placed
at the change), and every finding above note is sorted by where it points:

- "job, changed": a line of the edited file that the edit changed (`difflib`, as
  bench/at_change.py counts them);
- "job, unchanged": another line of the edited file;
- "other file": a file the edit did not touch (an edit changes one file);
- "gone": no new location (a query the edit removed): its old line is shown.

Notebooks in their JSON form are left out, as in bench/at_change.py. `--list` prints every
finding not at a changed line.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import realworld_corpus as rw  # noqa: E402
from at_change import changed_lines, report  # noqa: E402

CATEGORIES = ("job, changed", "job, unchanged", "other file", "gone")


def placed(edit: dict[str, Any]) -> list[tuple[str, str]]:
    """For each finding above note of one edit: its category and how --list shows it."""
    # streamlint is imported here, once main() has put the --src folder first on the path
    from streamlint.diff import diff_jobs
    from streamlint.policy.config import Config
    from streamlint.policy.settle import settle

    with tempfile.TemporaryDirectory(prefix="at-change-edit-") as tmp:
        original, edited = rw.apply_edit(edit, Path(tmp))
        report = settle(diff_jobs(rw.load_job(original), rw.load_job(edited)), Config())
        changed = changed_lines(original, edited) or set()
        out = []
        for finding in report.findings:
            if finding.verdict == "compatible":
                continue
            if finding.new is None:
                where = "gone"
            elif Path(finding.new.path).resolve() != edited.resolve():
                where = "other file"
            else:
                where = f"job, {'changed' if finding.new.line in changed else 'unchanged'}"
            at = f"{finding.new.line}" if finding.new is not None else "-"
            out.append((where, f"{edit['id']} {finding.code} new line {at}"))
        return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", type=Path, default=ROOT / "src",
                        help="the streamlint source folder to measure (default: this one's)")
    parser.add_argument("--list", action="store_true",
                        help="print every finding not at a changed line")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src))

    edits = [e for e in rw.load_edits() if e["file"].endswith(".py")
             and (rw.REALWORLD / e["file"]).is_file()]
    skipped = sum(1 for e in rw.load_edits() if e["file"].endswith(".py")) - len(edits)
    results = [r for edit in edits for r in placed(edit)]
    report(results, f"{len(edits)} edits of Python jobs ({skipped} not materialised)", "edit",
           CATEGORIES, args.list)
    return 0


if __name__ == "__main__":
    sys.exit(main())
