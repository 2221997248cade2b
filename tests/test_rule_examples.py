"""Every example of every rule in rules/*.toml, run through the real extractor and diff."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from gitrepo import Repo

from streamlint.cli import main
from streamlint.diff import diff_jobs
from streamlint.extract import extract_text, extract_version
from streamlint.model.records import replace
from streamlint.rulebook.book import load_rules, own_rules
from streamlint.rulebook.change import Change
from streamlint.rulebook.matrix import DEFAULT_SPARK_VERSION, judge
from streamlint.rulebook.profiles import Profile, parse_profile
from streamlint.rulebook.rule import Example

CASES = [
    pytest.param(rule, example, id=f"{rule.code}::{example.name}")
    for rule in sorted(load_rules(), key=lambda r: r.code)
    for example in rule.examples
]


def profile_of(example: Example) -> Profile:
    """What an example is judged for: its Databricks runtime (which runs its own Spark), its
    Spark version, or the default."""
    if example.databricks:
        return parse_profile(f"dbr-{example.databricks}")
    return Profile(example.spark or DEFAULT_SPARK_VERSION)


def diff_example(example: Example):  # type: ignore[no-untyped-def]
    profile = profile_of(example)
    return diff_jobs(extract_version(example.old, "old.py"), extract_version(example.new, "new.py"),
                     profile.spark, databricks=profile.databricks)


@pytest.mark.parametrize(("rule", "example"), CASES)
def test_rule_example(rule, example) -> None:
    # Read as `diff OLD NEW` reads two versions: one that does not parse is judged, not an error.
    old = extract_version(example.old, "old.py")
    new = extract_version(example.new, "new.py")
    assert all(v.queries or v.unseen or v.syntax_error for v in (old, new)), (
        "the example must contain a streaming query (or streaming code streamlint reports)")
    profile = profile_of(example)
    report = diff_jobs(old, new, profile.spark, databricks=profile.databricks)
    codes = [f.code for f in report.findings]
    if example.fires:
        assert rule.code in codes, f"{rule.code} not raised; findings: {report.findings}"
        assert example.message and example.line, "a firing example states its message and line"
        found = [f for f in report.findings if f.code == rule.code]
        assert any(example.message in f.message for f in found), [f.message for f in found]
        finding = next(f for f in found if example.message in f.message)
        assert _promised(rule.message).search(finding.message), (
            f"{finding.message!r} is not what the template {rule.message!r} promises")
        where = finding.new or finding.old
        assert where is not None and where.line == example.line, (where, example.line)
    else:
        assert rule.code not in codes, f"{rule.code} must not fire here: {report.findings}"
        assert example.message is None and example.line is None, "a rule that does not fire"
    assert report.verdict == example.verdict, report.findings


def _promised(template: str) -> re.Pattern[str]:
    """What every message of a template holds: its literal text between the fields, in order
    (the parts `rules._natural` rewords for an added or removed value, "changed from ... to",
    and the "nothing" parts it drops, may differ)."""
    reworded = r"changed from|^ to |added:|removed:|old:|new:"
    chunks = [c.strip() for c in re.split(r"\{\w+\}", template)
              if c.strip(" ();:,") and not re.search(reworded, c)]
    return re.compile(".*".join(re.escape(c) for c in chunks), re.S)


def test_every_rule_has_an_example() -> None:
    assert [r.code for r in load_rules() if not r.examples] == []


def test_rule_codes_are_unique_and_prefixed_by_family() -> None:
    rules = load_rules()
    assert len({r.code for r in rules}) == len(rules)
    for rule in rules:
        assert rule.code[:2].isalpha() and rule.code[2:].isdigit(), rule.code


def test_every_incompatible_rule_says_what_to_do() -> None:
    for rule in load_rules():
        if rule.verdict == "incompatible":
            assert rule.fix, f"{rule.code} has no fix"
            assert "checkpoint" in rule.fix.lower(), f"{rule.code}: name the checkpoint way out"


def test_rule_messages_only_use_fields_a_change_has() -> None:
    from streamlint.rulebook.change import PIPELINE_FACTS

    for rule in load_rules():
        # A rule about pipelines only may name a flow's table (every such change has it);
        # any rule, its `when` values.
        pipelines = all(kind.startswith("pipeline.") for kind in rule.change)
        facts = {key: "F" for key in PIPELINE_FACTS} if pipelines else {}
        facts.update({key: values[0] for key, values in rule.when})
        message = rule.message.format(subject="S", old="O", new="N", query="Q", **facts)
        assert "{" not in message, rule.code


def test_every_change_kind_has_a_rule() -> None:
    from streamlint.diff.compare import CHANGE_KINDS

    covered = {kind for rule in load_rules() for kind in rule.change}
    assert sorted(CHANGE_KINDS - covered) == []


# -- the codes streamlint raises itself: each example through the command that raises it ------

ROOT = Path(__file__).resolve().parents[1]
OWN_KINDS = {"judge", "suppress", "accept", "checkpoint", "confirm"}
OWN_CASES = [
    pytest.param(rule, example, id=f"{rule.code}::{example.name}",
                 marks=[pytest.mark.spark] if example.kind == "confirm" else [])
    for rule in own_rules() for example in rule.examples
]


def _judged(example) -> tuple[list[str], str]:  # type: ignore[no-untyped-def]
    change = Change(example.change, "the value", example.old, example.new, None, None, "q")
    finding = judge(change, Profile(DEFAULT_SPARK_VERSION).runtime)
    return [finding.code], finding.verdict


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[list[str], str, str]:
    assert main([*argv, "--format", "json", "--exit-zero"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    findings = [f for entry in data.get("files", [data]) for f in entry["findings"]]
    return [f["code"] for f in findings], data["verdict"], err


def _run(example, tmp_path: Path, capsys, monkeypatch) -> tuple[list[str], str]:  # type: ignore[no-untyped-def]
    if example.kind == "judge":
        return _judged(example)
    if example.kind in ("checkpoint", "confirm"):
        job = tmp_path / "job.py"
        job.write_text(example.new)
        confirm = ["--confirm"] if example.kind == "confirm" else []
        codes, verdict, _ = _cli(["diff", "--checkpoint", str(ROOT / example.checkpoint),
                                  str(job), *confirm], capsys)
        return codes, verdict
    if example.kind == "suppress":
        (tmp_path / "old.py").write_text(example.old)
        (tmp_path / "new.py").write_text(example.new)
        codes, verdict, _ = _cli(["diff", str(tmp_path / "old.py"), str(tmp_path / "new.py")],
                                 capsys)
        return codes, verdict
    assert example.kind == "accept", example.kind
    repo = Repo(tmp_path / "repo")
    repo.put("jobs/job.py", example.old)
    repo.commit("the job as it runs")
    repo.put("jobs/job.py", example.new)
    repo.put(".streamlint-accept.toml", example.accept)
    monkeypatch.chdir(repo.path)
    codes, verdict, err = _cli(["check", "--base", "HEAD"], capsys)
    # An entry that belongs to no job file is a warning on stderr: `path:line: CODE name: ...`.
    warned = re.findall(r"^warning: \.streamlint-accept\.toml:\d+: ([A-Z]+\d+) ", err, re.M)
    return codes + warned, verdict


@pytest.mark.parametrize(("rule", "example"), OWN_CASES)
def test_own_rule_example(rule, example, tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    codes, verdict = _run(example, tmp_path, capsys, monkeypatch)
    if example.fires:
        assert rule.code in codes, f"{rule.code} not raised: {codes}"
    else:
        assert rule.code not in codes, f"{rule.code} must not fire here: {codes}"
        # Where the rule does not fire, something else decides the verdict (or nothing
        # does: then the verdict is compatible), so the example shows what takes its place.
        assert codes or example.verdict == "compatible", codes
    assert verdict == example.verdict, codes


def test_own_rules_have_examples_that_fire_and_that_do_not() -> None:
    for rule in own_rules():
        assert {e.fires for e in rule.examples} == {True, False}, rule.code
        assert {e.kind for e in rule.examples} <= OWN_KINDS, rule.code
    assert {e.kind for r in load_rules() for e in r.examples} == {"diff"}


def test_own_examples_name_real_checkpoints() -> None:
    for rule in own_rules():
        for example in rule.examples:
            if example.kind in ("checkpoint", "confirm"):
                assert (ROOT / example.checkpoint / "offsets").is_dir(), example.checkpoint


def test_which_rule_takes_the_place_of_another_is_data(tmp_path: Path, capsys,  # type: ignore[no-untyped-def]
                                                        monkeypatch) -> None:
    """CK01 replaces a compatible judgement of a pinned setting because rules/checkpoint.toml
    says so (`overrides`): without that entry the matrix's own finding (CF05) stays."""
    import streamlint.rulebook.matrix as rules

    [example] = [e for r in own_rules() if r.code == "CK01" for e in r.examples if e.fires]
    assert "CK01" in _run(example, tmp_path, capsys, monkeypatch)[0]
    plain = tuple(replace(r, overrides=()) for r in own_rules())
    monkeypatch.setattr(rules, "own_rules", lambda directory=None: plain)
    assert _run(example, tmp_path, capsys, monkeypatch) == (["CF05"], "compatible")


_TYPO_RULE = '''
[[rule]]
code = "ZZ01"
name = "typo"
change = "config.changed"
when = {when}
verdict = "review"
message = "{{subject}} changed"
why = "a test"
docs = "https://example.invalid"
'''


@pytest.mark.parametrize(("when", "expected"), [
    pytest.param('{ statefull = "true" }', "`when` key 'statefull' is not a fact", id="key"),
    pytest.param('{ stateful = "ture" }', "`when` stateful = 'ture' is never a value",
                 id="value"),
])
def test_a_typo_in_when_is_refused(tmp_path, monkeypatch, when, expected) -> None:
    monkeypatch.setenv("STREAMLINT_NO_CACHE", "1")
    (tmp_path / "typos.toml").write_text(_TYPO_RULE.format(when=when))
    with pytest.raises(ValueError) as caught:
        load_rules(str(tmp_path))
    message = str(caught.value)
    assert message.startswith("rules/typos.toml: rule ZZ01: "), message
    assert expected in message and "config.changed" in message, message


@pytest.mark.parametrize(("extra", "expected"), [
    pytest.param('databricks = ">=17.5"', "ZZ01: Databricks Runtime 17.5 has no profile",
                 id="runtime-past-its-last-release"),
    pytest.param('databricks = ">=13.3"', "ZZ01: Databricks Runtime 13.3 has no profile",
                 id="runtime-without-profile"),
    pytest.param('databricks = "from 17.3"', "ZZ01: cannot read the Databricks runtime range",
                 id="range"),
    pytest.param('databrick = ">=17.3"', "ZZ01: unknown keys ['databrick']", id="key"),
])
def test_a_rule_s_databricks_range_is_checked(tmp_path, monkeypatch, extra, expected) -> None:
    """A rule names the Databricks runtimes it holds for as the Spark versions are named, and
    a runtime rules/runtimes.toml does not know (or a misspelt key, which would make the rule
    hold everywhere) is refused when the rules load."""
    monkeypatch.setenv("STREAMLINT_NO_CACHE", "1")
    (tmp_path / "runtimes.toml").write_text((ROOT / "rules" / "runtimes.toml").read_text())
    (tmp_path / "typos.toml").write_text(
        _TYPO_RULE.format(when='{ key = "k" }').replace('verdict = "review"',
                                                       f'{extra}\nverdict = "review"'))
    with pytest.raises(ValueError) as caught:
        load_rules(str(tmp_path))
    assert expected in str(caught.value), caught.value


def test_an_example_names_a_runtime_or_a_spark_version(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("STREAMLINT_NO_CACHE", "1")
    (tmp_path / "runtimes.toml").write_text((ROOT / "rules" / "runtimes.toml").read_text())
    (tmp_path / "typos.toml").write_text(_TYPO_RULE.format(when='{ key = "k" }') + '''
[[rule.examples]]
name = "both"
verdict = "review"
spark = "4.0"
databricks = "17.3"
old = "x"
new = "y"
''')
    with pytest.raises(ValueError, match="example 'both': name a known Databricks runtime"):
        load_rules(str(tmp_path))


def test_every_fact_a_change_carries_is_declared(monkeypatch) -> None:
    """The facts table (`core.FACTS`) lists what the diff really sets: every change of every
    rule example carries only declared facts, with declared values."""
    import streamlint.diff
    import streamlint.diff.checkpoints
    import streamlint.diff.forks
    from streamlint.rulebook.change import facts_of
    from streamlint.rulebook.matrix import judge, verdict_of

    seen = []
    for module in (streamlint.diff, streamlint.diff.checkpoints):
        # each module that judges changes, where it looks `judge` up
        monkeypatch.setattr(module, "judge",
                            lambda change, version: seen.append(change) or judge(change, version))
    # forks asks only for verdicts (of changes on a branch not read)
    monkeypatch.setattr(streamlint.diff.forks, "verdict_of",
                        lambda change, version: seen.append(change) or verdict_of(change, version))
    for rule in load_rules():
        for example in rule.examples:
            diff_example(example)
    assert len(seen) > 100
    for change in seen:
        declared = facts_of(change.kind)
        for key, value in change.facts.items():
            assert key in declared, f"{change.kind} carries undeclared fact {key!r}"
            allowed = declared[key]
            assert allowed is None or value in allowed, (
                f"{change.kind}: {key} = {value!r} is not among {sorted(allowed)}")


# Rules that still have no example where they must not fire (issue 15 asks for one each). The
# set is exact, so it can only shrink: a rule given such an example must leave it.
NO_NEAR_MISS_YET: frozenset[str] = frozenset()


def test_rules_have_an_example_where_they_must_not_fire() -> None:
    missing = {r.code for r in load_rules() if all(e.fires for e in r.examples)}
    assert missing == NO_NEAR_MISS_YET


def test_swapped_aggregates_are_one_finding() -> None:
    """Two aggregates that change places are one change: one AG02, no AG03 per position
    (tests/spark_cases/agg_aggregates_swapped: Spark restarts and each reads the other's
    buffer)."""
    text = ('from pyspark.sql import functions as F\n'
            'df = spark.readStream.format("kafka").option("subscribe", "in").load()\n'
            'df.groupBy("a").agg({aggs}).writeStream.outputMode("update").format("console")'
            '.option("checkpointLocation", "/chk/g").start()\n')
    old = extract_text(text.format(aggs='F.avg("v"), F.count("*")'), "old.py")
    new = extract_text(text.format(aggs='F.count("*"), F.avg("v")'), "new.py")
    report = diff_jobs(old, new, DEFAULT_SPARK_VERSION)
    stateful = [f for f in report.findings if f.code.startswith("AG")]
    assert [(f.code, f.message) for f in stateful] == [
        ("AG02", "the aggregates changed from avg(v), count(*) to count(*), avg(v)")]
