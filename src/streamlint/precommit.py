"""The pre-commit hook: each staged job file against its version in HEAD, statically.

pre-commit stashes unstaged changes before running hooks, so the working tree holds exactly
what is being committed. The old version is read with `git show HEAD:path`; nothing is
checked out and nothing is written.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from streamlint.errors import InputError, UsageError


def _head_version(path: str) -> str | None:
    result = subprocess.run(
        ["git", "show", f"HEAD:./{path}"], capture_output=True, check=False
    )
    if result.returncode != 0:
        return None  # a new file: nothing to restart from
    return result.stdout.decode("utf-8", errors="replace")


def main(argv: list[str] | None = None) -> int:
    from streamlint.config import load_config
    from streamlint.diff import diff_jobs
    from streamlint.extract import extract_file, extract_text
    from streamlint.report.text import render
    from streamlint.rules import DEFAULT_SPARK_VERSION

    paths = sys.argv[1:] if argv is None else argv
    worst = 0
    for path in paths:
        try:
            new = extract_file(path)
            if not new.queries:
                continue
            old_text = _head_version(path)
            if old_text is None:
                continue
            version = load_config(Path(path).parent).spark_version or DEFAULT_SPARK_VERSION
            report = diff_jobs(extract_text(old_text, f"HEAD:{path}"), new, version)
        except (InputError, UsageError) as err:
            print(str(err), file=sys.stderr)
            worst = max(worst, 2)
            continue
        if report.findings:
            sys.stdout.write(render(report))
        if report.verdict == "incompatible":
            worst = max(worst, 1)
    return worst


if __name__ == "__main__":
    sys.exit(main())
