"""The README stays a front door: its Quick start is two commands, it is short, and it links to
the documentation site (docs/; the generated rule table is tested in tests/test_docs_site.py)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "the Quick start section needs a bash code block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quick_start_is_two_commands_install_and_test() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    assert "streamlint diff" in commands[0] and "examples/" in commands[0]
    assert "pytest" in commands[1] and "[spark,test]" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    assert "bash .ci/readme-test-command" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    printed = subprocess.run(["bash", ".ci/readme-test-command"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.strip()
    assert printed == quick_start_commands()[1]


def test_pre_commit_hook_is_static() -> None:
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "id: streamlint" in hooks
    assert "pyspark" not in hooks and "additional_dependencies" not in hooks


def test_readme_is_a_front_door() -> None:
    assert len(README.splitlines()) <= 200
    for heading in ("## Quick start", "## A short tour", "## Exit codes", "## Documentation"):
        assert heading in README


def test_readme_links_resolve() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README):
        if "://" not in target:
            assert (ROOT / target).exists(), target
