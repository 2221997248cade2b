"""One exit-code ladder for every command (README: "Exit codes"), and one definition of each
constant it uses."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from streamlint.cli import main
from streamlint.rulebook.change import (
    EXIT_ERROR,
    EXIT_INCOMPATIBLE,
    EXIT_OK,
    VERDICTS,
    exit_code,
    worst,
)

SRC = Path(__file__).resolve().parents[1] / "src" / "streamlint"

# (verdict, errors, strict, exit_zero) -> exit code, as the README documents it.
LADDER = [
    ("compatible", False, False, False, 0),
    ("review", False, False, False, 0),
    ("incompatible", False, False, False, 1),
    ("review", False, True, False, 1),
    ("compatible", False, True, False, 0),
    ("incompatible", False, True, True, 0),  # --exit-zero: always 0 once the files were read
    ("review", False, True, True, 0),
    ("compatible", True, False, False, 2),  # a file that could not be read: no verdict
    ("incompatible", True, False, True, 2),  # ... even with --exit-zero
]


@pytest.mark.parametrize(("verdict", "errors", "strict", "exit_zero", "code"), LADDER)
def test_the_ladder(verdict: str, errors: bool, strict: bool, exit_zero: bool,
                    code: int) -> None:
    assert exit_code(verdict, errors=errors, strict=strict, exit_zero=exit_zero) == code


def test_the_constants() -> None:
    assert (EXIT_OK, EXIT_INCOMPATIBLE, EXIT_ERROR) == (0, 1, 2)
    assert VERDICTS == ("compatible", "review", "incompatible")
    assert worst([]) == "compatible" and worst([None, "review"]) == "review"
    assert worst(["review", "incompatible", "compatible"]) == "incompatible"


def _assigned_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        for target in targets:
            for leaf in ast.walk(target):
                if isinstance(leaf, ast.Name):
                    names.add(leaf.id)
    return names


def test_each_constant_is_defined_once() -> None:
    """VERDICTS and the exit codes live in streamlint.rulebook.change; no module defines its
    own, and
    no command returns a bare 0/1/2 where an exit code is meant."""
    owners: dict[str, list[str]] = {}
    bare: list[str] = []
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for name in _assigned_names(tree) & {"VERDICTS", "EXIT_OK", "EXIT_INCOMPATIBLE",
                                             "EXIT_ERROR", "ORDER"}:
            owners.setdefault(name, []).append(path.relative_to(SRC).as_posix())
        if path.relative_to(SRC).as_posix() in {"cli/__init__.py", "cli/check.py",
                                                 "cli/checkpoint.py", "cli/precommit.py",
                                                 "spark/command.py"}:
            bare += [f"{path.name}:{node.lineno}" for node in ast.walk(tree)
                     if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant)
                     and node.value.value in (0, 1, 2) and node.value.value is not False]
    assert owners.pop("ORDER", []) == ["report/text.py"]  # derived from VERDICTS there
    assert owners == {name: ["rulebook/change.py"] for name in ("VERDICTS", "EXIT_OK",
                                                     "EXIT_INCOMPATIBLE", "EXIT_ERROR")}
    assert bare == []


# -- the commands, end to end ----------------------------------------------------------------

OLD = '''\
df = spark.readStream.format("kafka").option("subscribe", "orders").load()
df.writeStream.format("delta").option("checkpointLocation", "/chk/orders").start("/t/o")
'''
CASES = {
    "compatible": OLD,
    "incompatible": OLD.replace("/chk/orders", "/chk/orders_v2"),
    "review": OLD.replace('.load()', '.load().select("value")'),
}


@pytest.mark.parametrize(("verdict", "flags", "code"), [
    ("compatible", [], 0), ("incompatible", [], 1), ("review", [], 0),
    ("review", ["--strict"], 1), ("incompatible", ["--exit-zero"], 0),
])
def test_diff_exits_by_the_ladder(verdict: str, flags: list[str], code: int, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "old.py").write_text(OLD)
    (tmp_path / "new.py").write_text(CASES[verdict])
    assert main(["diff", "--format", "json", str(tmp_path / "old.py"),
                 str(tmp_path / "new.py"), *flags]) == code
    import json

    assert json.loads(capsys.readouterr().out)["verdict"] == verdict


def test_an_unreadable_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "new.py").write_text(OLD)
    assert main(["diff", "--exit-zero", str(tmp_path / "missing.py"),
                 str(tmp_path / "new.py")]) == 2
    assert capsys.readouterr().err
