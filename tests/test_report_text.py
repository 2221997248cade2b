"""The text report as a person reads it: counts that say what they count, plurals, query
labels that tell queries apart, natural wording, help text and aligned columns."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from streamlint.cli import main
from streamlint.report.shared import plural
from streamlint.rulebook.book import load_rules
from streamlint.rulebook.docs import rules_text

HEAD = '''\
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
'''
KAFKA = '''\
events = spark.readStream.format("kafka").option("subscribe", "events").load()
'''
# Two queries: one aggregates (its key changes below), one copies the stream.
TWO = HEAD + KAFKA + '''\
counts = events.groupBy("key").agg(F.count("*").alias("n"))
counts.writeStream.format("delta").outputMode("complete").option(
    "checkpointLocation", "/chk/counts").start("/t/counts")
events.writeStream.format("delta").option("checkpointLocation", "/chk/raw").start("/t/raw")
'''
# Both queries changed incompatibly: 2 queries, more than 2 findings.
TWO_BROKEN = TWO.replace('groupBy("key")', 'groupBy("key", "topic")').replace(
    'agg(F.count("*").alias("n"))', 'agg(F.count("*").alias("n"), F.max("offset"))').replace(
    'start("/t/raw")', 'start("/t/raw")\n', 1).replace(
    '.option("subscribe", "events")', '.option("subscribe", "events2")')

# Three queries written by one helper: same sink line, no name, no checkpoint known.
HELPER = HEAD + '''\
import sys


def sink(df):
    return df.writeStream.format("console").option("checkpointLocation", sys.argv[1]).start()


sink(spark.readStream.format("kafka").option("subscribe", "a").load())
sink(spark.readStream.format("kafka").option("subscribe", "b").load())
sink(spark.readStream.format("kafka").option("subscribe", "c").load())
'''


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


def files(tmp_path: Path, old: str, new: str) -> list[str]:
    (tmp_path / "old.py").write_text(old)
    (tmp_path / "new.py").write_text(new)
    return [str(tmp_path / "old.py"), str(tmp_path / "new.py")]


def summary(out: str) -> str:
    return next(line for line in out.splitlines() if " compared " in line)


def test_plural() -> None:
    assert [plural(1, "finding"), plural(2, "finding"), plural(0, "finding")] == [
        "1 finding", "2 findings", "0 findings"]
    assert [plural(1, "query"), plural(3, "query"), plural(2, "job file")] == [
        "1 query", "3 queries", "2 job files"]


def test_summary_counts_queries_not_changes(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    _, out = run(["diff", "--exit-zero", "--spark-version", "3.5",
                  *files(tmp_path, TWO, TWO_BROKEN)], capsys)
    line = summary(out)
    findings = len(re.findall(r"^\S+: (error|warning|note)\[", out, re.M))
    assert findings > 2  # more changes than queries: the counts must differ
    # Both queries read the topic that changed: both are incompatible, and only two.
    assert line.startswith("2 queries compared (Spark 3.5): 2 incompatible, 0 to review, "
                           "0 compatible; "), line
    assert f"{findings} findings (" in line


def test_one_finding_is_singular(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    new = TWO.replace('start("/t/raw")', 'trigger(availableNow=True).start("/t/raw")')
    _, out = run(["diff", "--exit-zero", *files(tmp_path, TWO, new), "--format", "github"],
                 capsys)
    assert "(1 finding in 1 job file)" in out
    _, out = run(["diff", "--exit-zero", *files(tmp_path, TWO, new)], capsys)
    assert "; 1 finding (1 compatible)" in summary(out)
    assert "1 findings" not in out


def test_three_queries_of_one_helper_have_three_labels(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    new = HELPER.replace('"a").load', '"a2").load').replace('"b").load', '"b2").load').replace(
        '"c").load', '"c2").load')
    _, out = run(["diff", "--exit-zero", *files(tmp_path, HELPER, new)], capsys)
    labels = re.findall(r"^  query: (.*)$", out, re.M)
    assert len(labels) == 3 and len(set(labels)) == 3, labels
    for label, topic in zip(sorted(labels), "abc", strict=True):
        assert "new.py:9" in label  # where the queries are written
        assert f"'{topic}2'" in label  # and what each reads
    assert not any("query at line" in label for label in labels)


def test_json_labels_are_the_reports_labels(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    _, out = run(["diff", "--exit-zero", "--format", "json", *files(tmp_path, HELPER, HELPER)],
                 capsys)
    labels = [q["new"]["label"] for q in json.loads(out)["queries"]]
    assert len(set(labels)) == 3


def test_subscribe_to_pattern_is_one_finding(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    new = TWO.replace('"subscribe", "events"', '"subscribePattern", "events"')
    _, out = run(["diff", "--exit-zero", *files(tmp_path, TWO, new)], capsys)
    so04 = [line for line in out.splitlines() if "[SO04]" in line]
    # one for the source both queries read, not one per option
    assert len(so04) == 1, so04
    assert "subscribe='events'" in so04[0] and "subscribePattern='events'" in so04[0]


def test_added_reads_naturally(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    new = TWO.replace('.load()', '.option("maxOffsetsPerTrigger", "100").load()')
    _, out = run(["diff", "--exit-zero", *files(tmp_path, TWO, new)], capsys)
    assert "from nothing" not in out and "removed: nothing" not in out
    assert "`maxOffsetsPerTrigger` added: '100'" in out


def test_rules_columns_align() -> None:
    lines = rules_text(load_rules()).splitlines()
    # every column starts at the same place on every line, long names included
    starts = {tuple(m.start() for m in re.finditer(r"(?<=  )\S", line))[:3] for line in lines}
    assert len(starts) == 1, starts


def test_format_has_help_and_checkpoint_help_names_the_new_file(capsys) -> None:  # type: ignore[no-untyped-def]
    for command in (["diff"], ["check"]):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        text = capsys.readouterr().out
        block = text.split("\n  --format", 1)[1].split("\n  --", 1)[0]
        assert "json" in block and "how to report" in block
    with pytest.raises(SystemExit):
        main(["diff", "--help"])
    text = capsys.readouterr().out
    assert "--checkpoint PATH NEW" in text
    assert "--checkpoint PATH OLD" not in text and "PATH old" not in text


def test_readme_quick_start_paths_have_no_double_slash() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    first = readme.split("## Quick start", 1)[1].split("```bash\n", 1)[1].splitlines()[0]
    assert "for job in examples/*/" in first
    assert '"$job/' not in first and '"${job}old.py" "${job}new.py"' in first


# -- colours ----------------------------------------------------------------------------------


def test_colours_only_on_a_terminal_without_no_color(tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    args = ["diff", "--exit-zero", *files(tmp_path, TWO, TWO_BROKEN)]
    monkeypatch.delenv("NO_COLOR", raising=False)
    _, piped = run(args, capsys)  # capsys: not a terminal
    assert "\x1b[" not in piped
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("COLUMNS", "1000")  # a terminal wide enough that nothing wraps
    _, coloured = run(args, capsys)
    assert "\x1b[1;31merror[" in coloured and "\x1b[1;31mincompatible\x1b[0m:" in coloured
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == piped  # the same text underneath
    monkeypatch.setenv("NO_COLOR", "1")
    _, plain = run(args, capsys)
    assert plain == piped


def test_colours_in_a_real_terminal(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os
    import pty
    import subprocess
    import sys

    args = files(tmp_path, TWO, TWO_BROKEN)
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1] / "src")
    primary, secondary = pty.openpty()
    try:
        # Read while it runs: a report longer than the terminal's buffer must not block it.
        child = subprocess.Popen([sys.executable, "-m", "streamlint", "diff", "--exit-zero",
                                  *args], stdout=secondary, stderr=subprocess.DEVNULL, env=env)
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # the terminal is closed once everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(primary)
    assert child.wait() == 0
    assert b"\x1b[1;31merror[" in b"".join(chunks)
    piped = subprocess.run([sys.executable, "-m", "streamlint", "diff", "--exit-zero", *args],
                           capture_output=True, env=env, check=False).stdout
    assert b"\x1b[" not in piped


def test_long_lines_fit_the_terminal() -> None:
    from streamlint.report.colour import fit

    report = ("job.py:3:1: error[AG01] grouping-keys-changed: the grouping keys changed from "
              "(customer_id, window(ts, INTERVAL 10 minutes)) to (customer_id, region, "
              "window(ts, INTERVAL 10 minutes))\n    | out = df.groupBy(" + "x, " * 40 + ")\n")
    lines = fit(report, 60).split("\n")
    assert all(len(line) <= 60 for line in lines if not line.startswith("    | "))
    assert lines[1].startswith("  ") and "region" in " ".join(lines)
    assert any(line.startswith("    | out = df.groupBy(") and len(line) > 60 for line in lines)
    assert fit(report, 200) == report


def test_a_terminal_80_columns_wide_gets_lines_of_80(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import fcntl
    import os
    import pty
    import re
    import struct
    import subprocess
    import sys
    import termios

    args = files(tmp_path, TWO, TWO_BROKEN)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1] / "src")
    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 80, 0, 0))
    try:
        child = subprocess.Popen([sys.executable, "-m", "streamlint", "diff", "--exit-zero",
                                  *args], stdout=secondary, stderr=subprocess.DEVNULL, env=env)
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(primary)
    assert child.wait() == 0
    text = re.sub(r"\x1b\[[0-9;]*m", "", b"".join(chunks).decode()).replace("\r\n", "\n")
    # Quoted source and patches stay as written; a single word (a URL) cannot be broken.
    long = [line for line in text.split("\n") if len(line) > 80
            and not line.lstrip().startswith(("| ", "+ ", "- ")) and " " in line.strip()]
    assert long == [] and "error[" in text


def test_the_readme_sample_report_is_what_streamlint_prints(capsys) -> None:  # type: ignore[no-untyped-def]
    """The sample text report of docs/getting-started.md is the first finding of
    examples/orders, as printed (tests/test_docs_site.py runs every documented command too)."""
    root = Path(__file__).resolve().parents[1]
    page = (root / "docs" / "getting-started.md").read_text(encoding="utf-8")
    command = "$ streamlint diff examples/orders/old.py examples/orders/new.py\n"
    sample = page.split("```console\n" + command, 1)[1].split("...\n", 1)[0]
    old, new = "examples/orders/old.py", "examples/orders/new.py"
    import os

    here = os.getcwd()
    os.chdir(root)  # the sample shows paths as typed from the repository's root
    try:
        main(["diff", "--exit-zero", old, new])
    finally:
        os.chdir(here)
    printed = capsys.readouterr().out
    assert printed.startswith(sample)


def test_summary_counts_findings_outside_the_queries(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Streaming code read as no query (UN03) makes the verdict a review while every compared
    query is compatible: the summary says where that finding is, so that the counts and the
    verdict agree."""
    old = HEAD + KAFKA + (
        'events.writeStream.format("delta").option("checkpointLocation", "/chk/raw")'
        '.start("/t/raw")\n')
    new = old + ('\n\ndef replay(session):\n'
                 '    return session.readStream.format("rate").load()\n')
    _, out = run(["diff", "--exit-zero", *files(tmp_path, old, new)], capsys)
    assert "warning[UN03]" in out
    assert summary(out) == ("1 query compared (Spark 4.3): 0 incompatible, 0 to review, "
                            "1 compatible; 1 finding (1 to review), on code outside the "
                            "compared queries")
    assert out.splitlines()[-1].startswith("review:")
