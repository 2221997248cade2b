"""Bounds (src/streamlint/extract/budget.py): inputs that once ran for minutes or took
gigabytes get an answer or an exit-2 refusal naming the setting. The inputs are those of
bench/bench_bounds.py; the budget counts steps, so these tests hold on a loaded machine."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_bounds  # noqa: E402

from streamlint.cli import main  # noqa: E402


def diff(path: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["diff", str(path), str(path)])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("name", "setting"), [
    ("chain_3000", "STREAMLINT_MAX_EXPRESSION_DEPTH"),
    ("long_sum", "STREAMLINT_MAX_EXPRESSION_DEPTH"),
    ("lines_50000", "STREAMLINT_MAX_BYTES"),
    ("self_calling", "STREAMLINT_MAX_STEPS"),
    ("fan_out", "STREAMLINT_MAX_STEPS"),
])
@pytest.mark.slow
def test_too_much_is_refused_with_the_setting_to_raise(tmp_path: Path, name: str,
                                                       setting: str) -> None:
    path = tmp_path / f"{name}.py"
    path.write_text(bench_bounds.INPUTS[name]())
    code, out, err = diff(path)
    assert code == 2 and out == ""
    assert err.startswith(f"{path}:") and "too large or too deep to analyse statically" in err
    assert setting in err and "Traceback" not in err


@pytest.mark.parametrize("name", ["string_growth", "long_loop", "big_literal_small"])
def test_values_that_would_grow_without_end_are_not_built(tmp_path: Path, name: str) -> None:
    # A string doubled sixty times would be 2^60 characters: it becomes an unknown value.
    text = (bench_bounds.INPUTS[name]() if name != "big_literal_small" else
            bench_bounds.HEAD + "s = 'x' * 10**12\nt = 2 ** 10**12\n" +
            "spark.readStream.format('rate').load().writeStream.start()\n")
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    code, _, err = diff(path)
    assert code in (0, 1) and err == ""


def test_the_bounds_are_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    job = ROOT / "tests" / "jobs" / "kafka_revenue.py"
    assert diff(job)[0] == 0
    monkeypatch.setenv("STREAMLINT_MAX_STEPS", "50")
    code, _, err = diff(job)
    assert code == 2 and "more than 50 steps" in err and "STREAMLINT_MAX_STEPS" in err
    monkeypatch.setenv("STREAMLINT_MAX_STEPS", "many")
    code, _, err = diff(job)
    assert code == 2 and "STREAMLINT_MAX_STEPS='many'" in err
    monkeypatch.delenv("STREAMLINT_MAX_STEPS")
    monkeypatch.setenv("STREAMLINT_MAX_BYTES", "100")
    code, _, err = diff(job)
    assert code == 2 and "STREAMLINT_MAX_BYTES" in err


@pytest.mark.slow
def test_every_corpus_job_fits_well_inside_the_default_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The defaults leave room: every job of the corpora passes with a third of the steps."""
    from streamlint.extract import extract_file
    from streamlint.extract.budget import Limits

    monkeypatch.setenv("STREAMLINT_MAX_STEPS", str(Limits().max_steps // 3))
    jobs = [p for d in ("tests/jobs", "tests/corpus", "examples", "tests/realworld")
            for p in (ROOT / d).rglob("*.py")]
    assert len(jobs) > 300
    for job in jobs:
        extract_file(str(job))


RUNAWAY_ALIAS = '''from pyspark.sql import functions as F


def make_job():
    def aggregate(df):
        def metric():
            return F.max("amount").alias(metric())
        return df.groupBy("region").agg(metric())
    return aggregate(spark.readStream.table("silver.orders"))


make_job().writeStream.option("checkpointLocation", "/chk/nested").toTable("gold.nested")
'''


def test_an_alias_named_by_itself_is_answered(tmp_path: Path) -> None:
    """`.alias(metric())` inside `metric` itself: each level's name was the text of the level
    below, doubling, 13 GB in one step (static fuzz, seed 4, input 18112). The name of a
    column named by a column is now that column's own name, bounded."""
    job = tmp_path / "job.py"
    job.write_text(RUNAWAY_ALIAS)
    code, out, err = diff(job)
    assert code in (0, 1, 2) and "Traceback" not in err
    if code == 2:  # refused by the step budget: a refusal naming its setting
        assert "STREAMLINT_MAX_STEPS" in err


def _runs_away(kind: str) -> object:
    def run_module(self: object) -> None:
        import time

        hoard = []
        for _ in range(400):  # ~20 s, or ~2 GB: far past the bounds set below
            if kind == "time":
                time.sleep(0.05)
            else:
                hoard.append(bytearray(5_000_000))
    return run_module


@pytest.mark.parametrize(("kind", "setting", "said"), [
    ("time", "STREAMLINT_MAX_SECONDS", "took more than 1 s"),
    ("memory", "STREAMLINT_MAX_MEMORY_MB", "took more than 100 MB of memory"),
])
def test_the_watchdog_refuses_a_runaway_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             kind: str, setting: str, said: str) -> None:
    """One step that runs away (here the interpreter itself, replaced) is interrupted by the
    watchdog and refused with exit 2 and the setting to raise, never left to hang."""
    from streamlint.extract.interpreter import Interpreter

    monkeypatch.setattr(Interpreter, "run_module", _runs_away(kind))
    monkeypatch.setenv("STREAMLINT_MAX_SECONDS", "1" if kind == "time" else "600")
    monkeypatch.setenv("STREAMLINT_MAX_MEMORY_MB", "100")
    job = tmp_path / "job.py"
    job.write_text(RUNAWAY_ALIAS)
    code, _, err = diff(job)
    assert code == 2, err
    assert said in err and setting in err


def test_a_cast_to_a_dataframe_built_by_its_own_helper_is_answered(tmp_path: Path) -> None:
    """`.cast(topic(spark, ...), "string")` inside `topic` itself: the cast's target, a whole
    query plan, was named by its repr at every level (static fuzz, seed 8, input 3743: refused
    for 400 MB of memory). A cast to something that is not a type name is an unresolved type."""
    corpus = Path(__file__).parent / "corpus" / "sql_payments_join_inner_to_left_outer"
    text = (corpus / "new.py").read_text()
    old = 'F.col("value").cast("string")'
    assert old in text
    job = tmp_path / "job.py"
    job.write_text(text.replace(old, 'F.col("value").cast(topic(spark, "checkout.orders", '
                                     '"order_id STRING, amount DOUBLE"), "string")'))
    code, _, err = diff(job)
    assert code in (0, 1) and err == "", err


def test_the_watchdog_works_where_ctrl_c_is_ignored(tmp_path: Path) -> None:
    """A background job, nohup or a CI runner starts Python with SIGINT ignored; the watchdog
    must not depend on it (it did: a fuzz worker ran 66 s and took 6.7 GB)."""
    import subprocess

    job = tmp_path / "job.py"
    job.write_text(RUNAWAY_ALIAS)
    script = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "from streamlint.extract.interpreter import Interpreter\n"
        "def run_module(self):\n"
        "    for _ in range(400):\n"
        "        time.sleep(0.05)\n"
        "Interpreter.run_module = run_module\n"
        "from streamlint.cli import main\n"
        f"sys.exit(main(['diff', {str(job)!r}, {str(job)!r}]))\n")
    env = {**__import__("os").environ, "STREAMLINT_MAX_SECONDS": "1",
           "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert "took more than 1 s" in done.stderr and "Traceback" not in done.stderr


def test_an_option_named_by_a_writer_of_its_own_helper_is_answered(tmp_path: Path) -> None:
    """`.option(stock_levels(spark).writeStream.format("delta"), "false")` inside
    `stock_levels`: each level's option name was the text of the writer below (static fuzz,
    seed 10, input 16689: 9 s and 570 MB before the memory bound refused it). An option named
    by anything but a string is an unresolved name, bounded."""
    job = tmp_path / "job.py"
    job.write_text(
        "from pyspark.sql import SparkSession\n"
        "def stock_levels(spark):\n"
        "    movements = (spark.readStream.format('kafka').option('subscribe', 'moves')\n"
        "                 .option(stock_levels(spark).writeStream.format('delta'), 'false')\n"
        "                 .load())\n"
        "    return movements.groupBy('sku').count()\n"
        "spark = SparkSession.builder.getOrCreate()\n"
        "stock_levels(spark).writeStream.option('checkpointLocation', '/chk').start()\n")
    code, _, err = diff(job)
    assert code in (0, 1, 2) and "Traceback" not in err
    assert "MB of memory" not in err and "took more than" not in err
