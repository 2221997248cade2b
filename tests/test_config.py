"""`[tool.streamlint]` configuration: spark-version, and clear errors for mistakes."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamlint.cli import main

OLD = '''
a = spark.readStream.schema("id LONG").name("events_a").json("/in/a")
a.writeStream.format("delta").option("checkpointLocation", "/chk/n").start("/t/n")
'''
NEW = '''
a = spark.readStream.schema("id LONG").name("events_a").json("/in/a")
b = spark.readStream.schema("id LONG").name("events_b").json("/in/b")
a.unionByName(b).writeStream.format("delta").option("checkpointLocation", "/chk/n").start("/t/n")
'''


@pytest.fixture
def job_pair(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "jobs").mkdir()
    old, new = tmp_path / "jobs" / "old.py", tmp_path / "jobs" / "new.py"
    old.write_text(OLD)
    new.write_text(NEW)
    return str(old), str(new)


def test_spark_3_5_refuses_a_new_named_source(job_pair) -> None:
    assert main(["diff", *job_pair, "--spark-version", "3.5"]) == 1


def test_the_default_is_the_latest_release(job_pair, capsys) -> None:
    """Nothing names a version: the latest stable release (4.3), where a named source may be
    added (SO10, review)."""
    assert main(["diff", *job_pair]) == 0
    assert "judged for Spark 4.3 (the latest stable release" in capsys.readouterr().out


def test_pyproject_spark_version_applies(job_pair, tmp_path: Path, capsys) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.streamlint]\nspark-version = "4.2"\n')
    assert main(["diff", *job_pair]) == 0
    assert "(Spark 4.2)" in capsys.readouterr().out


def test_command_line_overrides_config(job_pair, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.streamlint]\nspark-version = "4.2"\n')
    assert main(["diff", *job_pair, "--spark-version", "3.5"]) == 1


def test_config_overrides_the_declared_pin(job_pair, tmp_path: Path, capsys) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["pyspark==4.3.0"]\n'
                                             '[tool.streamlint]\nspark-version = "3.5"\n')
    assert main(["diff", *job_pair]) == 1
    assert "judged for Spark 3.5 (spark-version in " in capsys.readouterr().out


def test_streamlint_toml_is_read(job_pair, tmp_path: Path) -> None:
    (tmp_path / "streamlint.toml").write_text('spark-version = "4.3"\n')
    assert main(["diff", *job_pair]) == 0


def test_unknown_key_names_file_and_key(job_pair, tmp_path: Path, capsys) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.streamlint]\nspark_verison = "4.2"\n')
    assert main(["diff", *job_pair]) == 2
    err = capsys.readouterr().err
    assert "pyproject.toml" in err and "spark_verison" in err and "Traceback" not in err


def test_bad_toml_and_bad_version_are_errors(job_pair, tmp_path: Path, capsys) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.streamlint]\nspark-version = 4.2\n')
    assert main(["diff", *job_pair]) == 2
    (tmp_path / "pyproject.toml").write_text('[tool.streamlint\n')
    assert main(["diff", *job_pair]) == 2
    assert main(["diff", *job_pair, "--spark-version", "four"]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("setting, key", [
    ('select = ["ag"]', "select"),                          # lower case: selected nothing
    ('ignore = ["AG3"]', "ignore"),                         # a typo: ignored nothing
    ('severity = { SK5 = "incompatible" }', "severity.SK5"),
    ('[[tool.streamlint.overrides]]\npaths = ["*"]\nselect = ["XX"]', "overrides[0].select"),
])
def test_a_code_that_matches_no_rule_is_an_error(setting: str, key: str, job_pair,  # type: ignore[no-untyped-def]
                                                 tmp_path: Path, capsys) -> None:
    # `select = ["ag"]` used to turn every rule off: every change "compatible", exit 0.
    (tmp_path / "pyproject.toml").write_text(f"[tool.streamlint]\n{setting}\n")
    assert main(["diff", *job_pair]) == 2
    (err,) = capsys.readouterr().err.strip().splitlines()
    assert "pyproject.toml" in err and f"`{key}`" in err and "Traceback" not in err


def test_codes_streamlint_raises_itself_can_be_configured(job_pair, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # SL01/SL02 (suppressions) and CK01-CK04 (diff --checkpoint) are codes outside rules/.
    (tmp_path / "pyproject.toml").write_text(
        '[tool.streamlint]\nignore = ["SL01", "CK"]\nseverity = { SL02 = "incompatible" }\n')
    assert main(["diff", *job_pair]) != 2
