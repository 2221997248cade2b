"""A short slice of the static fuzz (bench/fuzz_static.py) and the crashes it found, each
kept as a regression test. The long runs are in the bench script; this keeps CI fast."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from fuzz_inputs import FORMATS, load_seeds, make_input  # noqa: E402
from fuzz_static import run_one  # noqa: E402

from streamlint.cli import main  # noqa: E402

SEEDS = load_seeds(extra=False)  # the repository's own jobs: the same inputs on every machine
SLOW = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
        HealthCheck.filter_too_much, HealthCheck.data_too_large]


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=SLOW, derandomize=True)
@given(index=st.integers(0, 10**9))
def test_mutated_jobs_never_crash(index: int, tmp_path_factory: pytest.TempPathFactory) -> None:
    _, old, new, how = make_input(SEEDS, index)
    crash, _ = run_one(old, new, FORMATS[index % len(FORMATS)], tmp_path_factory.mktemp("f"))
    assert crash is None, f"input {index} ({how}): {crash}"


@settings(max_examples=40, deadline=None, suppress_health_check=SLOW, derandomize=True)
@given(program=hypothesmith.from_grammar())
def test_generated_programs_never_crash(program: str,
                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    # Half of them name a stream, so they reach the interpreter, not only the parser.
    text = (program + ("\nx = spark.readStream\n" if len(program) % 2 else "")).encode()
    crash, _ = run_one(text, text, FORMATS[len(program) % len(FORMATS)],
                       tmp_path_factory.mktemp("h"))
    assert crash is None, crash


# -- the crashes the fuzz found, one test each ---------------------------------------------------

JOB = """from pyspark.sql import SparkSession
spark = SparkSession.builder.getOrCreate()
df = spark.readStream.format("kafka").option("subscribe", "t").load()
{line}
out.writeStream.format("console").option("checkpointLocation", "/chk").start()
"""


def diff(tmp_path: Path, old_line: str, new_line: str, *extra: str) -> tuple[int, str, str]:
    old, new = tmp_path / "old.py", tmp_path / "new.py"
    old.write_text(JOB.format(line=old_line))
    new.write_text(JOB.format(line=new_line))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["diff", str(old), str(new), *extra])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("line", [
    'out = df.withColumnRenamed("value")',           # one argument: "not enough values"
    "out = df.withColumnRenamed()",
    "out = df.withColumnsRenamed(unknown_map)",       # a map not known statically
    'out = df.groupBy("key").pivot().count()',        # pivot() without its column
    'out = df.groupBy("key").pivot(pivot_col="k").count()',
    'out = df.groupBy("key").agg("")',               # a column named "": static fuzz, seed 5
    'out = df.groupBy("key").agg("", "amount")',
    'out = df.dropDuplicates(subset=df.value.cast)',   # static fuzz, seed 7, input 3526
    'out = df.dropDuplicates(subset="key")',
])
def test_calls_spark_would_refuse_are_no_crash(tmp_path: Path, line: str) -> None:
    code, _, err = diff(tmp_path, line, line)
    assert code in (0, 1) and err == ""


def test_withcolumnrenamed_by_keyword_is_the_same_rename(tmp_path: Path) -> None:
    # DataFrame.withColumnRenamed(existing, new): keywords name the same two parameters.
    code, out, err = diff(tmp_path, 'out = df.withColumnRenamed("value", "v")',
                          'out = df.withColumnRenamed(existing="value", new="v")',
                          "--format", "json")
    assert (code, err) == (0, "")
    assert '"findings": []' in out


def test_a_writer_given_to_format_is_no_crash(tmp_path: Path) -> None:
    # Found by the fuzz: format(<a DataStreamWriter>) put a symbolic object into the record.
    line = ('w = df.writeStream.format("delta")\n'
            'out = spark.readStream.format(w, "kafka").load()')
    code, _, err = diff(tmp_path, line, line)
    assert code in (0, 1) and err == ""


def test_a_nul_byte_is_a_syntax_error_at_its_place(tmp_path: Path) -> None:
    # Python refuses to compile a file with a NUL byte; libcst parsed it and then crashed.
    # Beside the old version, it is a new version that cannot start (QY26), named at its place.
    code, out, err = diff(tmp_path, "out = df", 'out = df\nname = "a\0b"')
    assert code == 0 and err == ""
    assert f"{tmp_path / 'new.py'}:5:10: warning[QY26]" in out and "null bytes" in out


def test_a_column_named_by_a_writer_of_a_self_calling_helper_is_answered(
        tmp_path: Path) -> None:
    # Found by the fuzz: the writer's repr, nested forty calls deep, grew to gigabytes.
    job = tmp_path / "job.py"
    job.write_text(
        "from pyspark.sql import SparkSession, functions as F\n"
        "def clean(events):\n"
        "    return events.withColumn(clean(bronze).writeStream, F.upper('c'))\n"
        "def main():\n"
        "    spark = SparkSession.builder.getOrCreate()\n"
        "    bronze = spark.readStream.table('b')\n"
        "    clean(bronze).writeStream.option('checkpointLocation', '/c').toTable('s')\n"
        "main()\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["diff", str(job), str(job)])
    assert code in (0, 1, 2) and "Traceback" not in err.getvalue()


def test_a_relative_import_of_the_package_itself_is_no_crash(tmp_path: Path) -> None:
    """`from . import (a, b)` in a job at the top of the tree names no module path at all
    (found by the static fuzz, seed 4, input 15337: a TypeError out of path joining)."""
    for name in ("old.py", "new.py"):
        (tmp_path / name).write_text("from . import (match, case,)\n"
                                     "df = spark.readStream.format('rate').load()\n"
                                     "df.writeStream.format('console').start()\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["diff", str(tmp_path / "old.py"), str(tmp_path / "new.py")])
    assert code == 0 and err.getvalue() == "", err.getvalue()


def test_a_literal_python_refuses_is_a_syntax_error_at_its_place(tmp_path: Path) -> None:
    r"""libcst reads `"\user_id STRING"`, Python does not (a truncated \u escape): Python's
    message and line, never a traceback (static fuzz, seed 10, input 9165)."""
    job = tmp_path / "job.py"
    job.write_text(r'DDL = "\user_id STRING"' + "\n"
                   'df = spark.readStream.schema(DDL).json("/in")\n'
                   'df.writeStream.option("checkpointLocation", "/chk").start()\n')
    assert job.read_text().startswith('DDL = "' + chr(92) + 'user_id')
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["diff", str(job), str(job)])
    # The same file on both sides: the error is noted as already there (a self-diff has no
    # finding above note), at Python's line.
    assert code == 0 and "Traceback" not in err.getvalue()
    assert f"{job}:1:" in out.getvalue() and "note[QY18]" in out.getvalue()
    assert "does not parse" in out.getvalue()


@settings(max_examples=400, deadline=None, derandomize=True)
@given(value=st.text(), quote=st.sampled_from(["'", '"']), raw=st.booleans())
def test_a_plain_string_is_read_as_python_reads_it(value: str, quote: str, raw: bool) -> None:
    """The literal fast path (no `ast.literal_eval`) agrees with Python, or steps aside."""
    import ast

    import libcst as cst

    from streamlint.extract.expressions import _plain_string

    literal = quote + (value if raw else value.replace("\\", "\\\\").replace(quote, "\\" + quote)
                       ) + quote
    try:
        expected = ast.literal_eval(literal)
        node = cst.parse_expression(literal)
    except (SyntaxError, ValueError, cst.ParserSyntaxError):
        return
    if isinstance(node, cst.SimpleString):
        fast = _plain_string(node)
        assert fast is None or fast == expected, literal
