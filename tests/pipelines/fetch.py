"""Download the real pipelines listed in README.md into files/ (never committed).

    python tests/pipelines/fetch.py              # from GitHub (raw.githubusercontent.com)
    python tests/pipelines/fetch.py MIRROR.git   # from a local git mirror of dbdemos-notebooks
"""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.request
from pathlib import Path

HERE = Path(__file__).parent
ROW = re.compile(r"^\| (\S+\.py) \| (\S+) \| (\S+) \| ([0-9a-f]{40}) \|", re.MULTILINE)


def main(mirror: str | None) -> None:
    (HERE / "files").mkdir(exist_ok=True)
    for name, repo, path, commit in ROW.findall((HERE / "README.md").read_text()):
        if mirror:
            data = subprocess.run(["git", "-C", mirror, "show", f"{commit}:{path}"],
                                  capture_output=True, check=True).stdout
        else:
            url = f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"
            with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310
                data = response.read()
        (HERE / "files" / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes from {repo}@{commit[:8]}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
