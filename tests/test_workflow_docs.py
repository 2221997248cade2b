"""The documentation's integration snippets (docs/check.md, ci.md, configuration.md,
suppressions.md) work: each is parsed and its commands are run.

A bare repository plays the remote (`origin`), a clone holds a feature branch with an
incompatible job change; the GitHub workflow's, action.yml's, GitLab's and plain CI's
streamlint commands run in it with the CI variables they use (network steps such as
`pip install` are the only ones left out).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from gitrepo import Repo

from streamlint.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
SECTION = "\n".join((ROOT / "docs" / page).read_text(encoding="utf-8") for page in
                    ("check.md", "ci.md", "configuration.md", "suppressions.md"))
SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
ORDERS = ROOT / "examples" / "orders"


def blocks(language: str, text: str = SECTION) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def block_after(heading: str, language: str) -> str:
    return blocks(language, SECTION.split(heading, 1)[1])[0]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A clone of `origin` on a feature branch that widens a window (incompatible)."""
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    repo = Repo(tmp_path / "work")
    repo.put("jobs/orders.py", ORDERS / "old.py")
    repo.commit("jobs as they run")
    repo.git("remote", "add", "origin", str(origin))
    repo.git("push", "-q", "origin", "main")
    repo.git("checkout", "-q", "-b", "feature")
    shutil.copy(ORDERS / "new.py", repo.path / "jobs" / "orders.py")
    repo.commit("wider window")
    repo.git("update-ref", "-d", "refs/remotes/origin/main")  # as after a shallow checkout
    return repo.path


def substitute(command: str, values: dict[str, str]) -> str:
    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: values[m.group(1)], command)


def run(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    path = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    return subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True,
                          check=False, env={**os.environ, "PATH": path, **env})


def assert_parses(command: str) -> None:
    import shlex

    argv = shlex.split(command.split(">", 1)[0])
    assert argv[0] == "streamlint"
    build_parser().parse_args(argv[1:])


def test_github_workflow(workspace: Path, tmp_path: Path) -> None:
    workflow = yaml.safe_load(block_after("## GitHub Actions", "yaml"))
    assert workflow.get("on", workflow.get(True)) == "pull_request"  # YAML 1.1: `on` is True
    steps = workflow["jobs"]["streamlint"]["steps"]
    assert steps[0]["with"]["fetch-depth"] == 0
    assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif") for s in steps)
    summary = tmp_path / "summary.md"
    run("git fetch -q origin main:refs/remotes/origin/main", workspace, {})
    results = {}
    for step in steps:
        command = step.get("run", "")
        if not command.startswith("streamlint"):
            continue
        command = substitute(command, {"github.base_ref": "main"})
        assert_parses(command)
        results[step["name"]] = run(command, workspace, {"GITHUB_STEP_SUMMARY": str(summary)})
    annotate = results["Annotate the pull request"]
    assert annotate.returncode == 1 and "::error file=jobs/orders.py," in annotate.stdout
    assert results["SARIF for code scanning"].returncode == 0
    jsonschema.validate(json.loads((workspace / "streamlint.sarif").read_text()), SCHEMA)
    assert summary.read_text().startswith("### ❌ streamlint: incompatible")


@pytest.mark.slow
def test_action_yml(workspace: Path, tmp_path: Path) -> None:
    """Every `run` step of the composite action, the install into its own virtualenv too;
    the check steps then use that virtualenv's streamlint, as on a runner."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    inputs = {f"inputs.{k}": v.get("default", "") for k, v in action["inputs"].items()}
    inputs["inputs.base"] = substitute(inputs["inputs.base"], {"github.base_ref": "main"})
    runner = tmp_path / "runner"
    runner.mkdir()
    values = {**inputs, "runner.temp": str(runner), "github.action_path": str(ROOT)}
    github_path, summary = tmp_path / "path", tmp_path / "summary.md"
    github_path.touch()
    run("git fetch -q origin main:refs/remotes/origin/main", workspace, {})
    codes = []
    for step in action["runs"]["steps"]:
        if "run" not in step:
            continue
        # An input pasted into the script would run as shell code: inputs come through env.
        assert "inputs." not in step["run"], step["run"]
        command = substitute(step["run"], values)
        step_env = {k: substitute(v, values) for k, v in step.get("env", {}).items()}
        if "streamlint check" in command:
            assert_parses(command.removeprefix("set -f; ").replace(
                "$STREAMLINT_BASE", step_env["STREAMLINT_BASE"]).replace(
                "$STREAMLINT_ARGS", step_env["STREAMLINT_ARGS"]))
        # The runner's PATH: what earlier steps added, not this test's own virtualenv.
        path = github_path.read_text().split() + [
            p for p in os.environ.get("PATH", "").split(os.pathsep)
            if p and Path(p).resolve() != Path(sys.executable).parent.resolve()]
        env = {"GITHUB_PATH": str(github_path), "GITHUB_STEP_SUMMARY": str(summary),
               "PATH": os.pathsep.join(path), **step_env}
        result = subprocess.run(["bash", "-c", command], cwd=workspace, capture_output=True,
                                text=True, check=False, env={**os.environ, **env})
        codes.append(result.returncode)
    # Install, SARIF and summary never fail the job; the annotations carry the verdict.
    assert codes == [0, 0, 0, 1]
    assert (runner / "streamlint-venv" / "bin" / "streamlint").exists()
    assert not list((runner / "streamlint-venv").glob("lib/*/site-packages/pyspark"))
    jsonschema.validate(json.loads((runner / "streamlint.sarif").read_text()), SCHEMA)
    assert summary.read_text().startswith("### ❌ streamlint: incompatible")


def test_gitlab_ci(workspace: Path) -> None:
    config = yaml.safe_load(block_after("## GitLab CI", "yaml"))
    job = config["streamlint"]
    env = {"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"}
    statuses = []
    for command in job["script"]:
        if command.startswith("pip install"):
            continue
        if command.startswith("streamlint"):
            assert_parses(command.replace('"', "").replace("$CI_MERGE_REQUEST_TARGET_BRANCH_NAME",
                                                          "main"))
        statuses.append(run(command, workspace, env).returncode)
    assert statuses == [0, 0, 1]  # fetch, SARIF, the verdict
    jsonschema.validate(json.loads((workspace / "streamlint.sarif").read_text()), SCHEMA)


def test_plain_ci(workspace: Path) -> None:
    script = block_after("## Any other CI", "bash")
    assert run(script, workspace, {}).returncode == 1
    shutil.copy(ORDERS / "old.py", workspace / "jobs" / "orders.py")
    assert run(script, workspace, {}).returncode == 0


def test_check_usage_lines_parse() -> None:
    for line in block_after("## Every changed job since a git ref", "bash").splitlines():
        if line.strip():
            assert_parses(line.split("#", 1)[0])


def test_pre_commit_snippet_names_the_shipped_hook() -> None:
    config = yaml.safe_load(blocks("yaml", SECTION.split("## Pre-commit", 1)[1])[0])
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert config["repos"][0]["hooks"][0]["id"] in {hook["id"] for hook in hooks}


def test_configuration_example_is_valid() -> None:
    from streamlint.policy.config import parse_config

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    table = tomllib.loads(block_after("# Configuration", "toml"))["tool"]["streamlint"]
    config = parse_config(table, "pyproject.toml")
    assert config.for_path("jobs/legacy/old_job.py").spark_version == "3.5"
    assert not config.wants_file("jobs/scratch/try.py") and config.wants_file("jobs/a.py")


def test_suppression_example_is_a_suppression() -> None:
    from streamlint.policy.suppress import find_suppressions

    line = block_after("# Suppressions and accepted changes", "python").strip()
    good, bad = find_suppressions(f"df = (spark.readStream.load()\n{line}\n)\n", "job.py")
    assert bad == [] and good[0].codes == ("AG04", "AG02") and good[0].reason
