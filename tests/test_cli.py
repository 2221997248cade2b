"""The command line end to end: exit codes, JSON shape, errors as `path:line:col: message`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from streamlint.cli import main
from streamlint.rulebook.book import load_rules

JOB = '''\
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
orders = (
    spark.readStream.format("kafka")
    .option("kafka.bootstrap.servers", "kafka:9092")
    .option("subscribe", "orders")
    .load()
    .selectExpr("CAST(key AS STRING) AS customer", "CAST(value AS STRING) AS body", "timestamp")
)
totals = (
    orders.where(F.col("body").isNotNull())
    .withWatermark("timestamp", "10 minutes")
    .groupBy(F.window("timestamp", "5 minutes"), "customer")
    .agg(F.count("*").alias("orders"))
)
(
    totals.writeStream.format("delta")
    .outputMode("append")
    .option("checkpointLocation", "/chk/totals")
    .start("/gold/totals")
)
'''
# A filter is stateless: changing it is safe.
COMPATIBLE = JOB.replace('F.col("body").isNotNull()', 'F.length("body") > 2')
# A longer watermark delay keeps state longer: safe to restart, but a person should look.
REVIEW = JOB.replace('"10 minutes"', '"30 minutes"')
# A new grouping key changes the state's key schema: the old state cannot be read.
INCOMPATIBLE = JOB.replace('"customer")\n', '"customer", "body")\n')
FIXTURES = Path(__file__).parent / "fixtures"


def write(folder: Path, name: str, text: str | bytes) -> str:
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return str(path)


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def pair(tmp_path: Path):  # type: ignore[no-untyped-def]
    def make(new_text: str, old_text: str = JOB) -> tuple[str, str]:
        return write(tmp_path, "old.py", old_text), write(tmp_path, "new.py", new_text)

    return make


def test_variants_really_differ() -> None:
    assert len({JOB, COMPATIBLE, REVIEW, INCOMPATIBLE}) == 4


# -- exit codes ---------------------------------------------------------------------------------


def test_unchanged_job_is_compatible(pair, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(["diff", *pair(JOB)], capsys)
    assert code == 0, out
    assert "compatible" in out.splitlines()[-1]
    assert err == ""


def test_compatible_change_exits_0(pair, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(["diff", *pair(COMPATIBLE)], capsys)
    assert code == 0, out
    assert "[PR01]" in out
    assert out.splitlines()[-1].startswith("compatible")


def test_incompatible_change_exits_1(pair, capsys) -> None:  # type: ignore[no-untyped-def]
    old, new = pair(INCOMPATIBLE)
    code, out, _ = run(["diff", old, new], capsys)
    assert code == 1, out
    assert "[AG01]" in out
    assert out.splitlines()[-1].startswith("incompatible")
    # The finding points at the new file's groupBy, like a compiler diagnostic.
    groupby_line = INCOMPATIBLE.splitlines().index(
        '    .groupBy(F.window("timestamp", "5 minutes"), "customer", "body")') + 1
    assert f"{new}:{groupby_line}:" in out


def test_review_exits_0_but_1_with_strict(pair, capsys) -> None:  # type: ignore[no-untyped-def]
    old, new = pair(REVIEW)
    code, out, _ = run(["diff", old, new], capsys)
    assert code == 0, out
    assert "[WM01]" in out
    assert out.splitlines()[-1].startswith("review")
    code, _, _ = run(["diff", old, new, "--strict"], capsys)
    assert code == 1


def test_exit_zero_always_exits_0(pair, capsys) -> None:  # type: ignore[no-untyped-def]
    old, new = pair(INCOMPATIBLE)
    code, out, _ = run(["diff", old, new, "--exit-zero"], capsys)
    assert code == 0
    assert out.splitlines()[-1].startswith("incompatible")  # the report is unchanged
    code, _, _ = run(["diff", *pair(REVIEW), "--strict", "--exit-zero"], capsys)
    assert code == 0


# -- JSON ---------------------------------------------------------------------------------------


def test_json_report_shape(pair, capsys) -> None:  # type: ignore[no-untyped-def]
    old, new = pair(INCOMPATIBLE)
    code, out, _ = run(["diff", old, new, "--format", "json"], capsys)
    assert code == 1
    report = json.loads(out)
    assert set(report) == {"version", "verdict", "spark", "queries", "materialized_views",
                           "findings"}
    assert report["materialized_views"] == {"old": [], "new": []}
    assert report["verdict"] == "incompatible"
    assert len(report["queries"]) == 1
    assert report["findings"], "the grouping-key change is reported"
    codes = {f["code"] for f in report["findings"]}
    assert "AG01" in codes
    [grouping] = [f for f in report["findings"] if f["code"] == "AG01"]
    assert grouping["kind"] == "agg.keys" and grouping["query"]
    assert grouping["old_value"] and grouping["new_value"] != grouping["old_value"]
    for finding in report["findings"]:
        # The original keys, and griffe's breakage (kind, old and new value) with the rule's
        # fix and docs and the query (issue 13: one result model, every format).
        assert set(finding) == {"code", "name", "verdict", "message", "old", "new", "help",
                                "next", "kind", "old_value", "new_value", "query", "fix",
                                "docs", "related"}
        assert finding["verdict"] in ("compatible", "review", "incompatible")
        for side, path in (("old", old), ("new", new)):
            where = finding[side]
            assert where is None or set(where) == {"path", "line", "column"}
            if where is not None:
                assert where["path"] == path
                assert where["line"] >= 1 and where["column"] >= 1


def test_json_report_of_a_compatible_change(pair, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(["diff", *pair(JOB), "--format", "json"], capsys)
    assert code == 0
    report = json.loads(out)
    assert report["verdict"] == "compatible"
    assert report["findings"] == []


def test_json_added_query_has_no_old_location(pair, capsys) -> None:  # type: ignore[no-untyped-def]
    second = JOB + '''
orders.writeStream.format("delta").option("checkpointLocation", "/chk/raw").start("/bronze/raw")
'''
    code, out, _ = run(["diff", *pair(second), "--format", "json"], capsys)
    assert code == 0
    (added,) = [f for f in json.loads(out)["findings"] if f["code"] == "QY03"]
    assert added["old"] is None
    assert added["new"]["line"] == len(second.splitlines())


# -- Spark version ------------------------------------------------------------------------------

NAMED_OLD = '''
a = spark.readStream.schema("id LONG").name("events_a").json("/in/a")
a.writeStream.format("delta").option("checkpointLocation", "/chk/n").start("/t/n")
'''
NAMED_NEW = '''
a = spark.readStream.schema("id LONG").name("events_a").json("/in/a")
b = spark.readStream.schema("id LONG").name("events_b").json("/in/b")
a.unionByName(b).writeStream.format("delta").option("checkpointLocation", "/chk/n").start("/t/n")
'''


def test_spark_version_changes_a_named_source_verdict(pair, capsys) -> None:  # type: ignore[no-untyped-def]
    old, new = pair(NAMED_NEW, NAMED_OLD)
    code, out, _ = run(["diff", old, new, "--format", "json", "--spark-version", "3.5"], capsys)
    assert code == 1
    findings = json.loads(out)["findings"]
    assert [f["code"] for f in findings] == ["SO01", "QY18"]
    # Before 4.2 PySpark has no DataStreamReader.name (measured on 3.5.9, 4.0.5 and 4.1.4 by
    # the versions lane): neither version could start there, which a note says (QY29, QY18).
    assert "DataStreamReader.name, which PySpark has from Spark 4.2 on" in findings[1]["message"]
    # From 4.2, named sources are matched by name: adding one is a review, not a failure.
    for given in (["--spark-version", "4.2"], []):  # the default is the latest, 4.3
        code, out, _ = run(["diff", old, new, "--format", "json", *given], capsys)
        assert code == 0
        report = json.loads(out)
        assert [f["code"] for f in report["findings"]] == ["SO10"]
        assert report["verdict"] == "review"


def test_a_bad_spark_version_is_a_usage_error(pair, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(["diff", *pair(JOB), "--spark-version", "four"], capsys)
    assert code == 2
    assert out == ""
    assert "four" in err and "Traceback" not in err


# -- input errors -------------------------------------------------------------------------------


def assert_input_error(code: int, out: str, err: str, path: str, line: int | None = None,
                       column: int | None = None, words: str = "") -> None:
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    (message,) = err.strip().splitlines()
    match = re.fullmatch(rf"{re.escape(path)}:(\d+):(\d+): (.+)", message)
    assert match, message
    if line is not None:
        assert int(match.group(1)) == line, message
    if column is not None:
        assert int(match.group(2)) == column, message
    assert words in match.group(3), message


def test_missing_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    good = write(tmp_path, "new.py", JOB)
    missing = str(tmp_path / "nope.py")
    assert_input_error(*run(["diff", missing, good], capsys), missing, words="no such file")


def test_a_directory(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    good = write(tmp_path, "old.py", JOB)
    folder = tmp_path / "jobs"
    folder.mkdir()
    assert_input_error(*run(["diff", good, str(folder)], capsys), str(folder),
                       words="directory")


def test_undecodable_bytes(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    good = write(tmp_path, "old.py", JOB)
    # Latin-1 text: "é" is the single byte 0xe9, not UTF-8. It is the 6th character.
    latin = write(tmp_path, "new.py", b"# caf\xe9 orders\n" + JOB.encode())
    assert_input_error(*run(["diff", good, latin], capsys), latin, line=1, column=6,
                       words="0xe9")
    utf16 = write(tmp_path, "utf16.py", b"\xff\xfe" + JOB.encode("utf-16-le"))
    assert_input_error(*run(["diff", utf16, good], capsys), utf16, line=1, column=1,
                       words="UTF-8")


def test_a_declared_source_encoding_is_honoured(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    good = write(tmp_path, "old.py", JOB)
    latin = write(tmp_path, "new.py", b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + JOB.encode())
    code, _, err = run(["diff", good, latin], capsys)
    assert code == 0 and err == ""


def test_a_file_that_is_not_python(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    good = write(tmp_path, "old.py", JOB)
    yaml = write(tmp_path, "job.yaml", "jobs:\n  - name: [orders\n")
    assert_input_error(*run(["diff", good, yaml], capsys), yaml, line=1, words="syntax error")
    nul = write(tmp_path, "nul.py", b"x = 1\x00\n")
    assert_input_error(*run(["diff", good, nul], capsys), nul, words="null bytes")


def test_a_huge_file_is_refused(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    good = write(tmp_path, "old.py", JOB)
    huge = write(tmp_path, "huge.py", JOB + "x = 1\n" * 400_000)
    assert_input_error(*run(["diff", good, huge], capsys), huge, line=1, words="MB")


def test_syntax_error_points_at_the_fault(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    good = write(tmp_path, "old.py", JOB)
    bad_line = '    .option("subscribe", "orders"]'
    broken_text = JOB.replace('    .option("subscribe", "orders")', bad_line)
    broken = write(tmp_path, "new.py", broken_text)
    line = broken_text.splitlines().index(bad_line) + 1
    # Beside the old version, a new one Python cannot parse is a finding: it cannot start.
    code, out, err = run(["diff", good, broken], capsys)
    assert (code, err) == (0, "") and "Traceback" not in out
    assert f"{broken}:{line}:{bad_line.index(']') + 1}: warning[QY26]" in out
    assert f"the new version does not parse at line {line}" in out
    assert run(["diff", "--strict", good, broken], capsys)[0] == 1
    # An old one never ran, so no checkpoint of it exists (QY25).
    bad_def = write(tmp_path, "bad_def.py", "stream = spark.readStream\n\ndef f(:\n    pass\n")
    code, out, err = run(["diff", bad_def, good], capsys)
    assert (code, err) == (0, "")
    assert f"{bad_def}:3:7: note[QY25]" in out and "the old version does not parse" in out
    # A file that is no streaming job, or one version alone, stays an input error.
    not_a_job = write(tmp_path, "conf.yaml", "topics: [orders\n")
    assert_input_error(*run(["diff", good, not_a_job], capsys), not_a_job, line=1,
                       words="syntax error")
    checkpoint = next((FIXTURES / "checkpoints").glob("*/*/checkpoint"))
    assert_input_error(*run(["diff", "--checkpoint", str(checkpoint), broken], capsys), broken,
                       line=line, words="syntax error")


def test_versions_that_differ_only_in_line_endings_changed_nothing(
        tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A job that does not parse (a markdown fence pasted in), converted to CRLF: the same
    code, so the error is noted as already there and the change is compatible."""
    text = JOB + "```python\n"
    old = write(tmp_path, "old.py", text)
    new = write(tmp_path, "new.py", text.replace("\n", "\r\n").encode())
    code, out, err = run(["diff", old, new], capsys)
    assert (code, err) == (0, "")
    assert "note[QY18]" in out and "does not parse" in out and "warning[" not in out
    changed = write(tmp_path, "changed.py", text.replace('"orders"', '"orders_v2"'))
    code, out, _ = run(["diff", old, changed], capsys)
    assert "warning[QY26]" in out


def test_deep_nesting_is_an_input_error_not_a_crash(tmp_path: Path) -> None:
    # libcst's native parser overflowed its stack on 2,000 nested parentheses (a segfault,
    # exit 139) and its code generator raised RecursionError on a 500-call chain (a
    # traceback, exit 1 - read as "incompatible"). Python itself refuses both files.
    good = write(tmp_path, "old.py", JOB)
    parens = write(tmp_path, "parens.py", JOB + "x = " + "(" * 2000 + "1" + ")" * 2000 + "\n")
    chain = write(tmp_path, "chain.py", JOB + "y = spark.readStream" + ".a()" * 500 + "\n")
    # Python refuses the parentheses: a version that cannot start (QY26), not a crash.
    done = python("-m", "streamlint", "diff", good, parens)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-300:]
    assert "warning[QY26]" in done.stdout and "too many nested parentheses" in done.stdout
    for bad, words in ((chain, "too deep to analyse statically"),):
        done = python("-m", "streamlint", "diff", good, bad)
        assert done.returncode == 2, done.stderr[-300:]
        assert done.stdout == ""
        assert done.stderr.startswith(f"{bad}:") and words in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


def test_empty_files_have_no_query(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    empty = write(tmp_path, "empty.py", "")
    code, out, err = run(["diff", empty, empty], capsys)
    assert code == 0
    assert "no streaming query found" in out
    assert err == ""


def test_a_file_without_streaming_says_so(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    batch = write(tmp_path, "batch.py", 'df = spark.read.parquet("/in")\ndf.write.save("/out")\n')
    code, out, _ = run(["diff", batch, batch], capsys)
    assert code == 0
    assert f"no streaming query found in {batch}" in out


def test_no_arguments_and_unknown_commands(capsys) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(["frobnicate"], capsys)
    assert code == 2 and "Traceback" not in err and "frobnicate" in err
    code, _, err = run(["diff", "only-one.py"], capsys)
    assert code == 2 and "Traceback" not in err


# -- rules and explain --------------------------------------------------------------------------


def test_rules_lists_every_code(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(["rules"], capsys)
    assert code == 0
    listed = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert sorted(listed) == sorted(r.code for r in load_rules())


def test_rules_as_json(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(["rules", "--format", "json"], capsys)
    assert code == 0
    assert {r["code"] for r in json.loads(out)} == {r.code for r in load_rules()}


def test_explain_prints_the_rule(capsys) -> None:  # type: ignore[no-untyped-def]
    (rule,) = [r for r in load_rules() if r.code == "AG03"]
    code, out, _ = run(["explain", "AG03"], capsys)
    assert code == 0
    assert out.startswith(f"AG03 {rule.name} ({rule.verdict}")
    assert rule.docs in out
    assert rule.why.splitlines()[0] in out
    assert run(["explain", "ag03"], capsys)[1] == out  # codes are case-insensitive


def test_explain_an_unknown_rule(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run(["explain", "NOPE"], capsys)
    assert code == 2
    assert out == ""
    assert "NOPE" in err and "Traceback" not in err


# -- a real process -----------------------------------------------------------------------------


def python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=600,
                          check=False)


def test_python_dash_m_streamlint(pair) -> None:  # type: ignore[no-untyped-def]
    old, new = pair(INCOMPATIBLE)
    done = python("-m", "streamlint", "diff", old, new)
    assert done.returncode == 1, done.stderr
    assert "[AG01]" in done.stdout
    assert done.stderr == ""
    done = python("-m", "streamlint", "diff", old, new, "--exit-zero", "--format", "json")
    assert done.returncode == 0
    assert json.loads(done.stdout)["verdict"] == "incompatible"


def test_python_dash_m_streamlint_input_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.py")
    done = python("-m", "streamlint", "diff", missing, missing)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"{missing}:")
    assert "Traceback" not in done.stderr


def test_the_static_path_never_imports_pyspark(pair) -> None:  # type: ignore[no-untyped-def]
    old, new = pair(INCOMPATIBLE)
    code = (
        "import sys\n"
        "from streamlint.cli import main\n"
        f"assert main(['diff', {old!r}, {new!r}, '--format', 'json']) == 1\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j'))\n"
        "assert not loaded, loaded\n"
    )
    done = python("-c", code)
    assert done.returncode == 0, done.stderr
    # And the command line itself, as installed: -X importtime lists every module imported.
    done = python("-X", "importtime", "-m", "streamlint", "diff", old, new)
    assert done.returncode == 1
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")]
    assert "streamlint.extract.interpreter" in imported  # the check sees real imports
    assert not [m for m in imported if m.split(".")[0] in ("pyspark", "py4j")]


@pytest.mark.parametrize("command", ["diff", "check"])
@pytest.mark.parametrize("seconds", ["-5", "0", "nan", "inf", "soon"])
def test_a_confirm_timeout_that_limits_nothing_is_refused(command: str, seconds: str, pair,  # type: ignore[no-untyped-def]
                                                          capsys) -> None:
    # These used to start Spark (and run on: nan and inf never time out); `check` took any
    # float. Refused while the arguments are read, before any file or ref is.
    old, new = pair(INCOMPATIBLE)
    files = [old, new] if command == "diff" else ["--base", "HEAD"]
    code, out, err = run([command, *files, "--confirm", f"--confirm-timeout={seconds}"],
                         capsys)
    assert (code, out) == (2, "")
    assert "--confirm-timeout" in err and repr(seconds) in err and "Traceback" not in err
