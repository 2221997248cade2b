"""The documentation site builds strictly, and what it shows is what streamlint does.

Every fenced block of README.md and docs/ (the generated rule pages aside) is one of:
- `console`: `$ streamlint ...` lines, each followed by its output; the command is run and its
  output must contain the documented lines in order (a `...` line stands for lines left out);
- `bash`: streamlint commands (a `# comment` after one is allowed); each is run and must exit
  0 or 1 (a finding), never 2 (a usage or input error); `git fetch` of the base branch is the
  one other command allowed (the sandbox has `origin/main` already);
- `yaml` / `toml`: must parse, and every `streamlint diff|check|checkpoint` command in them
  (a CI recipe's steps) is run like a `bash` line, CI variables naming the base branch
  standing for `main`;
- anything else (`text`, `python`, a job's code) is shown, not run;
- or it follows `<!-- not run: REASON -->`; that list stays short.
Commands run in-process in a sandbox: a git repository whose `jobs/orders.py` is
examples/orders/old.py at `origin/main` and examples/orders/new.py in the working tree, with
`examples/` and `tests/` of this repository linked in (and ignored by git).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from streamlint.cli import main
from streamlint.rulebook.book import load_rules
from streamlint.rulebook.docs import rules_markdown

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted(p for p in (ROOT / "docs").rglob("*.md")
                                      if p.parent != ROOT / "docs" / "rules")
NOT_RUN_AT_MOST = 8
_FENCE = re.compile(r"^( *)```(\w*)\s*$")
_NOT_RUN = re.compile(r"^<!-- not run: (.+) -->$")
# ${{ github.base_ref }}, $CI_..., ${target}: the branch or commit a CI recipe compares with
_CI_VARIABLE = re.compile(r"\$\{\{[^}]*\}\}|\$\{?\w+\}?")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    body: str
    not_run: str | None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(path: Path) -> list[Block]:
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        start = _FENCE.match(lines[i])
        if not start:
            i += 1
            continue
        indent, body = len(start.group(1)), []
        j = i + 1
        while not lines[j].strip().startswith("```"):
            body.append(lines[j][indent:])
            j += 1
        before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        marker = _NOT_RUN.match(before.strip())
        found.append(Block(str(path.relative_to(ROOT)), i + 1, start.group(2),
                           "\n".join(body) + "\n", marker.group(1) if marker else None))
        i = j + 1
    return found


ALL = [b for page in PAGES for b in blocks(page)]
RUN = [b for b in ALL if b.not_run is None and b.lang in ("bash", "console", "yaml", "toml")]


def _argv(command: str) -> list[str]:
    """A documented command line as streamlint's arguments (redirections dropped)."""
    command = _CI_VARIABLE.sub("main", command.split("  #")[0].strip())
    words = shlex.split(command)
    if words[:3] == ["python", "-m", "streamlint"]:
        words = ["streamlint", *words[3:]]
    assert words[0] == "streamlint", f"not a streamlint command: {command!r}"
    kept: list[str] = []
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
        elif word in (">", ">>", "2>"):
            skip = True
        else:
            kept.append(word)
    return kept


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("sandbox")
    git = ["git", "-c", "user.name=docs", "-c", "user.email=docs@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=repo, check=True)
    (repo / "jobs").mkdir()
    shutil.copy(ROOT / "examples" / "orders" / "old.py", repo / "jobs" / "orders.py")
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=repo, check=True)
    subprocess.run([*git, "update-ref", "refs/remotes/origin/main", "HEAD"], cwd=repo, check=True)
    shutil.copy(ROOT / "examples" / "orders" / "new.py", repo / "jobs" / "orders.py")
    for name in ("examples", "tests"):
        (repo / name).symlink_to(ROOT / name)
    (repo / ".git" / "info" / "exclude").write_text("examples\ntests\n", encoding="utf-8")
    return repo


def run(argv: list[str], sandbox: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(sandbox)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("STREAMLINT_NO_CACHE", "1")
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out


def commands(block: Block) -> list[tuple[str, list[str]]]:
    """(command, documented output lines) of a block."""
    if block.lang == "console":
        found: list[tuple[str, list[str]]] = []
        for line in block.body.splitlines():
            if line.startswith("$ "):
                found.append((line[2:], []))
            else:
                assert found, f"{block.id}: output before the first `$ ` command"
                found[-1][1].append(line)
        return found
    lines = block.body.splitlines()
    if block.lang == "bash":
        return [(line, []) for line in lines
                if line.strip() and not line.startswith(("#", "git fetch origin "))]
    return [(line[line.index("streamlint "):], []) for line in lines
            if re.search(r"\bstreamlint (diff|check|checkpoint)\b", line)]


def contains_in_order(out: str, documented: list[str]) -> None:
    """Each run of documented lines between `...` lines appears in the output, in order."""
    real = out.rstrip("\n").splitlines()
    at = 0
    chunk: list[str] = []
    for line in [*documented, "..."]:
        if line.strip() != "...":
            chunk.append(line.rstrip())
            continue
        if chunk:
            starts = [i for i in range(at, len(real) - len(chunk) + 1)
                      if [r.rstrip() for r in real[i:i + len(chunk)]] == chunk]
            assert starts, f"not in the output (from line {at + 1}):\n" + "\n".join(chunk) \
                + "\n--- output:\n" + out
            at = starts[0] + len(chunk)
        chunk = []


def test_the_list_of_blocks_not_run_is_short() -> None:
    not_run = [f"{b.id} ({b.not_run})" for b in ALL if b.not_run]
    assert len(not_run) <= NOT_RUN_AT_MOST, not_run


def test_every_shell_block_is_runnable_or_marked() -> None:
    for block in ALL:
        if block.lang in ("bash", "console", "sh", "shell") and not block.not_run:
            assert block.lang != "sh" and block.lang != "shell", f"{block.id}: use bash"
            for command, _ in commands(block):
                _argv(command)  # fails naming the line when it is not streamlint


@pytest.mark.parametrize("block", [b for b in RUN if b.lang in ("yaml", "toml")],
                         ids=lambda b: b.id)
def test_config_blocks_parse(block: Block) -> None:
    if block.lang == "yaml":
        assert yaml.safe_load(block.body) is not None
    else:
        tomllib.loads(block.body)


@pytest.mark.parametrize("block", [b for b in RUN if commands(b)], ids=lambda b: b.id)
def test_documented_commands_run(block: Block, sandbox: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    for command, documented in commands(block):
        code, out = run(_argv(command), sandbox, capsys, monkeypatch)
        assert code in (0, 1), f"{block.id}: `{command}` exited {code}"
        contains_in_order(out, documented)


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "index.html").is_file()


def test_rule_table_matches_rules() -> None:
    page = (ROOT / "docs" / "rule-table.md").read_text(encoding="utf-8")
    table = page.split("<!-- rules:start -->\n", 1)[1].split("<!-- rules:end -->", 1)[0]
    assert table == rules_markdown(load_rules()), (
        "docs/rule-table.md drifted: regenerate it from `streamlint rules --format markdown`")
    for rule in load_rules():
        assert f"| {rule.code} | `{rule.name}` |" in page
