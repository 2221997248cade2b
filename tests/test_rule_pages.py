"""Every code the tool can emit explains itself, and its generated page is current."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from streamlint.cli import main
from streamlint.rulebook.book import all_rules, load_rules, own_rules
from streamlint.rulebook.docs import page
from streamlint.rulebook.pages import FOLDER, HEADER, stale

OWN_CODES = ("CK01", "CK02", "CK03", "CK04", "CK05", "CK06", "CK07",
             "SL000", "SL01", "SL02", "SL03", "SL04")

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "streamlint"


def emitted_codes() -> set[str]:
    """Codes written as literals where findings are built, outside the rules' files."""
    found: set[str] = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found |= set(re.findall(r"""(?:Finding\(|own_finding\()\s*["']([A-Z]{2}\d{2,3})["']""",
                                text))
    return found


def test_own_codes_are_described() -> None:
    assert tuple(rule.code for rule in own_rules()) == OWN_CODES
    # Every code built in the code is one of them (CK01 is built from the rule `overriding`
    # names, so it is no literal); the scan sees the codes it should.
    assert emitted_codes() == set(OWN_CODES) - {"CK01"}
    assert not {r.code for r in load_rules()} & set(OWN_CODES)


def test_own_rules_come_from_rules_toml() -> None:
    """No code of streamlint's own is described in Python: each is a `[[rule]]` of a rules
    file with `raised_by`, and the files of the matrix hold none."""
    files = {rule.code: rule.family for rule in own_rules()}
    assert files == {**{c: "checkpoint" for c in OWN_CODES if c.startswith("CK")},
                     **{c: "streamlint" for c in OWN_CODES if c.startswith("SL")}}
    assert not (SRC / "own_rules.py").exists()


@pytest.mark.parametrize("code", sorted({r.code for r in load_rules()} | set(OWN_CODES)))
def test_every_code_explains_itself(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", code.lower()]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{code} ")
    assert "Why it matters:" in out and page(code) in out
    assert not out.startswith("no rule")


def test_pages_are_current() -> None:
    assert stale(ROOT / FOLDER) == [], "run `python -m streamlint.rulebook.pages`"


def test_stale_page_is_found(tmp_path: Path) -> None:
    from streamlint.rulebook.pages import write

    write(tmp_path)
    assert stale(tmp_path) == []
    (tmp_path / "AG04.md").write_text("edited by hand\n")
    (tmp_path / "XX99.md").write_text("a rule that no longer exists\n")
    assert stale(tmp_path) == ["AG04.md", "XX99.md"]


def test_each_page_has_what_why_example_fix() -> None:
    for rule in all_rules():
        text = (ROOT / page(rule.code)).read_text(encoding="utf-8")
        assert text.startswith(HEADER), rule.code
        for heading in ("## What it checks", "## Why it matters", "## Example",
                        "## The fix"):
            assert heading in text, (rule.code, heading)
        if rule.verdict == "incompatible":
            assert "streamlint checkpoint offsets" in text


def test_findings_link_to_pages_never_to_a_placeholder(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    job = ('df = spark.readStream.format("rate").load()  # streamlint: ignore no code\n'
           'df.writeStream.format("console").option("checkpointLocation", "/c").start()\n')
    (tmp_path / "old.py").write_text(job.split("  #")[0] + "\n" + job.split("\n", 1)[1])
    (tmp_path / "new.py").write_text(job)
    main(["diff", "--exit-zero", str(tmp_path / "old.py"), str(tmp_path / "new.py")])
    out = capsys.readouterr().out
    assert "[SL02]" in out
    assert "see: `streamlint explain SL02`, docs/rules/SL02.md" in out
    assert "github.com/streamlint" not in out
    for rule in all_rules():
        assert "github.com/streamlint" not in rule.docs
