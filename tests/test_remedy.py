"""An incompatible finding ends with the command to run next and the reset as a patch, and
its advice fits the kind of source the query reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamlint.cli import main
from streamlint.report.remedy import fit_fix

HEAD = '''\
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.getOrCreate()
'''
SINK = '''\
counts = events.groupBy("key").agg(F.count("*").alias("n"))
counts.writeStream.format("delta").outputMode("complete").option(
    "checkpointLocation", {checkpoint}).start("/t/counts")
'''
KAFKA = 'events = spark.readStream.format("kafka").option("subscribe", "events").load()\n'
DELTA = 'events = spark.readStream.format("delta").load("/tables/events")\n'
AUTOLOADER = ('events = spark.readStream.format("cloudFiles").option("cloudFiles.format", '
              '"json").load("/landing/events")\n')


def job(source: str, checkpoint: str = '"/chk/counts"') -> str:
    return HEAD + source + SINK.format(checkpoint=checkpoint)


def findings(tmp_path: Path, old: str, new: str, capsys: pytest.CaptureFixture[str]) -> list:
    (tmp_path / "old.py").write_text(old)
    (tmp_path / "new.py").write_text(new)
    main(["diff", "--format", "json", str(tmp_path / "old.py"), str(tmp_path / "new.py")])
    return json.loads(capsys.readouterr().out)["findings"]


def text(tmp_path: Path, old: str, new: str, capsys: pytest.CaptureFixture[str]) -> str:
    (tmp_path / "old.py").write_text(old)
    (tmp_path / "new.py").write_text(new)
    main(["diff", str(tmp_path / "old.py"), str(tmp_path / "new.py")])
    return capsys.readouterr().out


def regrouped(source: str, checkpoint: str = '"/chk/counts"') -> str:
    return job(source, checkpoint).replace('groupBy("key")', 'groupBy("key", "topic")')


def test_the_next_command_exists(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit):
        main(["checkpoint", "--help"])
    assert "offsets" in capsys.readouterr().out


def test_incompatible_finding_names_the_command_with_the_path(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = text(tmp_path, job(KAFKA), regrouped(KAFKA), capsys)
    assert "  next: streamlint checkpoint offsets /chk/counts\n" in out
    patch = out.split("next: ", 1)[1]
    assert '-    .option("checkpointLocation", "/chk/counts")' in patch
    assert '+    .option("checkpointLocation", "/chk/counts_v2")' in patch
    assert '+    .option("startingOffsets", ' in patch


def test_unknown_checkpoint_leaves_path_to_fill_in(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    checkpoint = 'spark.conf.get("chk")'
    [finding] = [f for f in findings(tmp_path, job(KAFKA, checkpoint),
                                     regrouped(KAFKA, checkpoint), capsys)
                 if f["verdict"] == "incompatible"]
    assert finding["next"].startswith("next: streamlint checkpoint offsets PATH  (PATH: ")


def test_compatible_and_review_findings_have_no_next_step(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    new = job(KAFKA).replace('.load()', '.option("maxOffsetsPerTrigger", 10).load()')
    assert all(f["next"] == "" for f in findings(tmp_path, job(KAFKA), new, capsys))


def test_delta_source_resets_with_starting_version(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    [finding] = [f for f in findings(tmp_path, job(DELTA), regrouped(DELTA), capsys)
                 if f["verdict"] == "incompatible"]
    assert '.option("startingVersion", ' in finding["next"]
    assert "startingOffsets" not in finding["next"] + finding["help"]


def test_auto_loader_has_no_starting_offsets(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    moved = job(AUTOLOADER).replace('"/landing/events"', '"/landing/events_v2"')
    so04 = [f for f in findings(tmp_path, job(AUTOLOADER), moved, capsys)
            if f["code"] == "SO04"]
    assert len(so04) == 1
    advice = so04[0]["help"] + so04[0]["next"]
    assert "startingOffsets" not in advice and "startingVersion" not in advice
    assert "Auto Loader" in advice and "cloudFiles.includeExistingFiles" in advice


def test_kafka_keeps_starting_offsets_in_the_fix() -> None:
    fix = "Keep the keys, or start a new checkpoint with startingOffsets from the old one."
    assert fit_fix(fix, ["kafka"]) == fix
    assert fit_fix(fix, ["kafka", "delta"]) == fix  # mixed: the rule's own words
    assert "startingVersion" in fit_fix(fix, ["delta"])
    assert "startingOffsets" not in fit_fix(fix, ["autoloader"])
