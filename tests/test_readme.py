"""The README stays true: its rule table is generated, its Quick start is two commands."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from streamlint.docs import rules_markdown
from streamlint.rules import load_rules

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "the Quick start section needs a bash code block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_rule_table_matches_rules() -> None:
    table = README.split("<!-- rules:start -->\n", 1)[1].split("<!-- rules:end -->", 1)[0]
    assert table == rules_markdown(load_rules()), (
        "README rule table drifted: regenerate it with `streamlint rules --format markdown`")


def test_every_rule_is_in_the_readme() -> None:
    for rule in load_rules():
        assert f"| {rule.code} | `{rule.name}` |" in README


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
