"""The `versions` lane: the version-dependent Spark evidence on each older pyspark.

    python bench/versions.py [VERSION ...] [--tests FILE ...] [--table FILE]

CI runs the whole suite on the newest pyspark (the test extra's pin). The rules that say
"from Spark 4.1 on" or "before 4.1" are also tested on the versions they speak about: this
script makes one virtual environment per version (under `$XDG_CACHE_HOME/streamlint/versions`,
made once and reused), installs the project's, the `spark` and the `test` extras' packages
with that pyspark release, and runs, with this checkout's `src/` first on the path, the Spark
tests that assert per version (marked `versions`: each reads the installed pyspark's version,
expects what that version does and asserts streamlint's verdict for it). Prints one line a
version (what pytest counted, and the time), then the table of every pair the tests recorded:
pair x pyspark x what Spark did x streamlint's findings for that version (`--table FILE`
writes it as markdown too). Exits 1 if any version failed.

VERSION is a Spark minor version streamlint has a profile for (rules/runtimes.toml), 3.5
included (the tests expect what 3.5 says where it differs). Default: every profile older
than the newest.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
# The tests that assert what each Spark version does on a restart.
TESTS = ("tests/test_spark_versions.py", "tests/test_spark_context.py",
         "tests/test_spark_stream_facts.py")


def profiles() -> list[str]:
    data = tomllib.loads((ROOT / "rules" / "runtimes.toml").read_text(encoding="utf-8"))
    return [entry["version"] for entry in data["spark"]]


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _requirements() -> list[str]:
    """The project's dependencies and its `spark` and `test` extras' packages, pyspark left
    out: each environment names its own release (the `test` extra asks for Spark 4, the
    CI's newest; the lane also runs 3.5)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["spark"],
              *project["optional-dependencies"]["test"]]
    return sorted({req for req in wanted if not re.match(r"pyspark\b", req)})


def environment(version: str) -> Path:
    """The virtual environment of one pyspark minor version, made on first use."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = cache / "streamlint" / "versions" / f"pyspark-{version}"
    python = folder / "bin" / "python"
    marker = folder / "installed.txt"
    if marker.is_file():  # made once; the tests run this checkout's src/ (PYTHONPATH)
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(folder)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", *_requirements(),
                    f"pyspark[connect]=={version}.*"], check=True)
    marker.write_text(str(ROOT))
    return python


def run(version: str, tests: tuple[str, ...], table: Path) -> tuple[bool, str]:
    """pytest over `tests` in the version's environment; the rows go to `table`."""
    python = environment(version)
    installed = subprocess.run([str(python), "-c", "import pyspark; print(pyspark.__version__)"],
                               capture_output=True, text=True, check=True).stdout.strip()
    env = dict(os.environ, STREAMLINT_NO_CACHE="1", PYTHONPATH=str(ROOT / "src"),
               STREAMLINT_VERSIONS_TABLE=str(table))
    done = subprocess.run([str(python), "-m", "pytest", "-m", "spark", "-q",
                           "-p", "no:cacheprovider", *tests], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    counted = next((line.strip("= ") for line in reversed(lines)
                    if re.search(r"\d+ (passed|failed|error)", line)), "no pytest summary")
    if done.returncode != 0:
        sys.stdout.write(done.stdout[-4000:])
    return done.returncode == 0, f"pyspark {installed}: {counted}"


def render(rows: list[dict[str, object]]) -> str:
    """The rows as a markdown table, by pair, then by version."""
    lines = ["| pair | pyspark | Spark did | streamlint says |", "|---|---|---|---|"]
    for row in sorted(rows, key=lambda r: (str(r["pair"]), _key(str(r["pyspark"])))):
        findings = row["streamlint"]
        said = ", ".join(f"{code} {verdict}" for code, verdict in findings.items()) \
            if isinstance(findings, dict) and findings else "no finding (compatible)"
        lines.append(f"| {row['pair']} | {row['pyspark']} | {row['spark']} | {said} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    known = profiles()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("versions", nargs="*", metavar="VERSION",
                        help=f"Spark minor versions, of {', '.join(known)} "
                        f"(default: {', '.join(known[:-1])})")
    parser.add_argument("--tests", nargs="+", default=list(TESTS), metavar="FILE",
                        help="the test files to run (default: the per-version evidence)")
    parser.add_argument("--table", type=Path, metavar="FILE",
                        help="also write the table of pairs as markdown to FILE")
    args = parser.parse_args()
    versions = args.versions or known[:-1]
    unknown = [v for v in versions if v not in known]
    if unknown:
        parser.error(f"no profile for {', '.join(unknown)}; known: {', '.join(known)}")
    failed = False
    summary = []
    with tempfile.TemporaryDirectory(prefix="streamlint-versions-") as folder:
        table = Path(folder) / "rows.jsonl"
        for version in versions:
            start = time.perf_counter()
            ok, said = run(version, tuple(args.tests), table)
            failed |= not ok
            summary.append(f"{'ok  ' if ok else 'FAIL'} Spark {version}: {said} "
                           f"({time.perf_counter() - start:.0f} s)")
            print(summary[-1], flush=True)
        rows = [json.loads(line) for line in table.read_text(encoding="utf-8").splitlines()
                ] if table.is_file() else []
    text = render(rows)
    print("\n" + text, end="")
    if args.table:
        command = " ".join(["python bench/versions.py", *sys.argv[1:]])
        args.table.write_text(f"# The versions lane\n\n`{command}`\n\n```text\n"
                              + "\n".join(summary) + "\n```\n\n" + text, encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
