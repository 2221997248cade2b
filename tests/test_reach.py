"""Streaming code streamlint did not read (UN03: a method a framework calls, run alone with its
stream handed to the caller, or code never run) is asked about only when the edit can reach
it: its own function or class, the module-level names it uses (and what they use), the
repository modules it imports. An edit anywhere else leaves it as it was (issue 26: one
unread method made every edit of the file a review)."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.workflow.files import diff_files

JOB = '''from pyspark.sql import SparkSession
TOPIC = "orders"
LOG = "info"


class Dataset:
    """Read by a framework that calls `load`: streamlint never runs it."""

    def load(self):
        return SparkSession.builder.getOrCreate().readStream.format("kafka").option(
            "subscribe", TOPIC).load()


def other():
    print("hello", LOG)
'''


# The same stream in a lambda a framework is handed (a table of hooks): never run at all.
HOOKS = JOB.replace(
    '''    def load(self):
        return SparkSession.builder.getOrCreate().readStream.format("kafka").option(
            "subscribe", TOPIC).load()''',
    '''    load = staticmethod(lambda: SparkSession.builder.getOrCreate().readStream.format(
        "kafka").option("subscribe", TOPIC).load())''')
# How each is left unread: the method runs as a framework's entry point (nothing in the file
# calls it: `.load()` is the reader's) and hands its stream to the caller; the lambda never runs.
SHAPES = [pytest.param(JOB, "no-sink", id="entry-point"),
          pytest.param(HOOKS, "not-run", id="never-run")]


def codes(old: str, new: str) -> list[str]:
    report = diff_jobs(extract_text(old, "job.py"), extract_text(new, "job.py"))
    return [f.code for f in report.findings if f.verdict != "compatible"]


@pytest.mark.parametrize(("job", "about"), SHAPES)
def test_an_edit_the_unread_code_cannot_reach_is_no_finding(job: str, about: str) -> None:
    assert [u.about for u in extract_text(job, "job.py").unseen] == [about]
    assert codes(job, job.replace('print("hello", LOG)', 'print("bye", LOG)')) == []
    assert codes(job, job.replace('LOG = "info"', 'LOG = "debug"')) == []
    assert codes(job, job.replace("framework that calls", "framework, which calls")) == []


@pytest.mark.parametrize("job", [p.values[0] for p in SHAPES])
def test_an_edit_of_the_unread_code_or_what_it_uses_is_asked(job: str) -> None:
    # (a stream handed to the caller is named by what it reads: the old one and the new one)
    assert set(codes(job, job.replace('"subscribe", TOPIC', '"subscribePattern", TOPIC'))) \
        == {"UN03"}
    assert set(codes(job, job.replace('TOPIC = "orders"', 'TOPIC = "orders_v2"'))) == {"UN03"}


def test_a_changed_repository_module_it_imports_is_asked(tmp_path: Path) -> None:
    for side, topic in (("old", "orders"), ("new", "orders_v2")):
        root = tmp_path / side
        (root / "jobs").mkdir(parents=True)
        (root / ".git").mkdir()
        (root / "jobs" / "settings.py").write_text(f'TOPIC = "{topic}"\n')
        (root / "jobs" / "job.py").write_text(JOB.replace(
            'TOPIC = "orders"', "from jobs.settings import TOPIC"))
    report = diff_files(str(tmp_path / "old" / "jobs" / "job.py"),
                        str(tmp_path / "new" / "jobs" / "job.py"))
    assert "UN03" in [f.code for f in report.findings]


CLASS = '''from pyspark.sql import SparkSession


class Pipeline:
    def __init__(self, topic, level):
        self.topic = topic
        self.level = level

    def log(self, message):
        print(self.level, message)

    def load(self):
        self.log("loading")
        return SparkSession.builder.getOrCreate().readStream.format("kafka").option(
            "subscribe", self.topic).load()

    def report(self):
        print("rows", self.level)
'''


def test_in_a_class_only_the_methods_that_can_reach_the_unread_one_count() -> None:
    assert codes(CLASS, CLASS.replace('print("rows", self.level)', 'print("n", self.level)')) \
        == []
    # `load` calls `log`, and `__init__` sets the topic it reads: edits there are asked,
    # unless they only print or log (a print removed cannot reach what a query reads).
    assert codes(CLASS, CLASS.replace("print(self.level, message)", "pass")) == []
    assert set(codes(CLASS, CLASS.replace("print(self.level, message)",
                                          "self.topic = message"))) == {"UN03"}
    assert set(codes(CLASS, CLASS.replace("self.topic = topic",
                                          'self.topic = topic + "_v2"'))) == {"UN03"}


def test_an_edit_of_another_function_of_an_imported_module_is_no_finding(
        tmp_path: Path) -> None:
    """`from jobs.utils import get_topic` takes `get_topic` and what it uses there: an edit of
    another function of jobs/utils.py cannot reach the unread stream."""
    job = JOB.replace('TOPIC = "orders"', "from jobs.utils import get_topic\nTOPIC = get_topic()")
    utils = 'PREFIX = "o"\n\ndef get_topic():\n    return PREFIX + "rders"\n\n' \
            'def other():\n    return {value}\n'
    paths = []
    for side, value in (("old", "1"), ("new", "2")):
        root = tmp_path / side
        (root / "jobs").mkdir(parents=True)
        (root / ".git").mkdir()
        (root / "jobs" / "__init__.py").write_text("")
        (root / "jobs" / "utils.py").write_text(utils.format(value=value))
        (root / "jobs" / "job.py").write_text(job)
        paths.append(str(root / "jobs" / "job.py"))
    report = diff_files(*paths)
    assert [f.code for f in report.findings if f.verdict != "compatible"] == []
    (tmp_path / "new" / "jobs" / "utils.py").write_text(
        utils.format(value="2").replace('PREFIX = "o"', 'PREFIX = "x"'))
    report = diff_files(*paths)
    assert "UN03" in [f.code for f in report.findings]


def test_annotations_docstrings_and_log_lines_are_not_what_can_reach() -> None:
    annotated = CLASS.replace("def __init__(self, topic, level):",
                              'def __init__(self, topic: str, level: int) -> None:\n'
                              '        """Where to read from."""\n'
                              '        import logging\n'
                              '        logging.getLogger(__name__).info("init %s", topic)')
    assert codes(CLASS, annotated) == []
    assert codes(CLASS, annotated.replace("self.topic = topic", "self.topic = level")) \
        == ["UN03"]


def test_the_method_holding_the_unread_stream_may_be_renamed() -> None:
    # A framework's hook renamed (kedro's `_load` -> `load`): the same code, the same stream.
    before = CLASS.replace("def load(self):", "def _load(self):")
    assert codes(before, before.replace("def _load(self):", "def load_events(self):")) == []


HOOK = '''from pyspark.sql import SparkSession


class EventsDataset:
    DEFAULTS = {{"maxFilesPerTrigger": "10"}}

    def __init__(self, path, fmt, options=None):
        self._path = path
        {dead}self._fmt = fmt
        self._options = {{**self.DEFAULTS, **(options or {{}})}}

    def {load}(self):
        reader = SparkSession.builder.getOrCreate().readStream.format(self._fmt)
        return reader.options(**self._options).load(self._path)
'''


def test_a_framework_hook_renamed_to_the_name_of_the_readers_call_is_no_finding() -> None:
    """kedro's `_load` -> `load`: the framework calls either; `load` is now also the name of
    the reader's call inside it, which is no call of the method. The same code, the same
    stream handed to the framework."""
    old, new = HOOK.format(dead="", load="_load"), HOOK.format(dead="", load="load")
    assert [u.about for u in extract_text(new, "job.py").unseen] == ["no-sink"]
    assert codes(old, new) == []
    assert set(codes(old, new.replace('format(self._fmt)', 'format("csv")'))) == {"UN03"}
    assert set(codes(old, new.replace("self._fmt = fmt", 'self._fmt = "csv"'))) == {"UN03"}


def test_a_constructor_store_written_again_before_any_read_is_no_part_of_the_code() -> None:
    """`self._options = options` overwritten two lines later, nothing reading it in between:
    removing it builds the same object."""
    dead = HOOK.format(dead="self._options = options\n        ", load="load")
    assert codes(dead, HOOK.format(dead="", load="load")) == []


def test_a_store_that_something_may_read_before_it_is_written_again_is_asked() -> None:
    """The first value read in between, handed to code with `self`, or read through a method
    of the class: removing the store may change the object built."""
    clean = HOOK.format(dead="", load="load")
    for between in ("self._fmt = self._options.get('fmt', fmt)",  # read in between
                    "register(self)",  # self handed over: the callee may read it
                    "self._fmt = self.pick(fmt)"):  # a method of the class may read it
        old = HOOK.format(dead=f"self._options = options\n        {between}\n        ",
                          load="load")
        new = HOOK.format(dead=f"{between}\n        ", load="load")
        assert set(codes(old, new)) == {"UN03"}, between
    # Written again only on one branch: the first value may be the one read.
    old = clean.replace("        self._options = {", "        self._options = options\n"
                        "        if fmt:\n            self._options = {")
    new = clean.replace("        self._options = {", "        self._options = None\n"
                        "        if fmt:\n            self._options = {")
    assert set(codes(old, new)) == {"UN03"}


def _repository(tmp_path: Path, side: str, files: dict[str, str]) -> str:
    root = tmp_path / side
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return str(root / "jobs" / "dataset.py")


DATASET = '''from pyspark.sql import SparkSession
from jobs.{module} import {helper}


class StreamDataset:
    def __init__(self, path):
        self._path = path

    def load(self):
        return {helper}().readStream.format("delta").load(self._path)
'''
SESSION = '''from pyspark.sql import SparkSession


def {helper}():
    try:
        from databricks.connect import DatabricksSession
        return DatabricksSession.builder.getOrCreate()
    except ImportError:
        return SparkSession.builder.{how}()
'''


def _diff(tmp_path: Path, old: dict[str, str], new: dict[str, str]) -> list[str]:
    report = diff_files(_repository(tmp_path, "old", old), _repository(tmp_path, "new", new))
    return [f.code for f in report.findings if f.verdict != "compatible"]


def test_a_helper_moved_to_another_module_and_renamed_with_its_code_is_no_finding(
        tmp_path: Path) -> None:
    """A framework's dataset class (never run by streamlint) whose session helper moved to a
    new utility module and lost its underscore, re-exported, the same code: the same read."""
    old = {"jobs/__init__.py": "", "jobs/dataset.py": DATASET.format(
        module="spark", helper="_get_spark"), "jobs/spark.py": SESSION.format(
        helper="_get_spark", how="getOrCreate") + "\n\ndef other():\n    return 1\n"}
    new = {"jobs/__init__.py": "", "jobs/dataset.py": DATASET.format(
        module="spark", helper="get_spark"),
        "jobs/spark.py": "from jobs.utils.session import get_spark\n",
        "jobs/utils/__init__.py": "",
        "jobs/utils/session.py": "try:\n    from databricks.connect import DatabricksSession\n"
        "except ImportError:\n    DatabricksSession = None\n\n\n" + SESSION.format(
            helper="get_spark", how="getOrCreate")}
    assert _diff(tmp_path, old, new) == []


def test_a_moved_helper_whose_code_changed_is_asked(tmp_path: Path) -> None:
    old = {"jobs/__init__.py": "", "jobs/dataset.py": DATASET.format(
        module="spark", helper="_get_spark"), "jobs/spark.py": SESSION.format(
        helper="_get_spark", how="getOrCreate")}
    new = {"jobs/__init__.py": "", "jobs/dataset.py": DATASET.format(
        module="spark", helper="get_spark"),
        "jobs/spark.py": "from jobs.utils.session import get_spark\n",
        "jobs/utils/__init__.py": "",
        "jobs/utils/session.py": SESSION.format(helper="get_spark", how="remote('sc://x').create")}
    assert set(_diff(tmp_path, old, new)) == {"UN03"}


UTILS = '''class SpecUtils:
    silver_columns = [{columns}]
    defaults = {{"once": False}}

    @staticmethod
    def get_partition_cols(cols):
        return [c.strip() for c in cols] if cols else None

    @staticmethod
    def get_silver_spec(rows):
        return [{{c: r.get(c) for c in SpecUtils.silver_columns}} for r in rows]

    @staticmethod
    def get_options(options):
        return {{**SpecUtils.defaults, **options}}
'''
PIPELINE = '''from jobs.utils import SpecUtils


class Pipeline:
    def __init__(self, spark, spec):
        self.spark = spark
        self.partitions = SpecUtils.get_partition_cols(spec.partitions)
        self.options = SpecUtils.get_options(spec.options)

    def read(self):
        return self.spark.readStream.options(**self.options).table("bronze")
'''


def test_an_edit_of_a_class_member_the_unread_code_does_not_read_is_no_finding(
        tmp_path: Path) -> None:
    """A utility class's attribute read by none of the members the unread code calls (a
    metadata framework's column list for another layer) cannot reach the stream; the
    members it calls, and what they read of the class, can."""
    files = {"jobs/__init__.py": "", "jobs/dataset.py": PIPELINE}
    old = {**files, "jobs/utils.py": UTILS.format(columns='"a", "b"')}
    new = {**files, "jobs/utils.py": UTILS.format(columns='"a", "b", "c"')}
    assert _diff(tmp_path, old, new) == []
    changed = {**files, "jobs/utils.py": UTILS.format(columns='"a", "b"').replace(
        '"once": False', '"once": True')}
    assert set(_diff(tmp_path / "2", old, changed)) == {"UN03"}


def test_a_name_bound_in_the_function_is_not_the_modules() -> None:
    """`get_spark` imports its own `DatabricksSession`: a module-level fallback of the same
    name added later is not what it reads."""
    job = '''from pyspark.sql import SparkSession


def get_spark():
    try:
        from databricks.connect import DatabricksSession
        return DatabricksSession.builder.getOrCreate()
    except ImportError:
        return SparkSession.builder.getOrCreate()


class Dataset:
    def load(self):
        return get_spark().readStream.format("delta").load("/data/events")
'''
    fallback = job.replace("\n\ndef get_spark", "try:\n    from databricks.connect import "
                           "DatabricksSession\nexcept ImportError:\n    DatabricksSession = "
                           "None\n\n\ndef get_spark")
    assert codes(job, fallback) == []
    assert codes(job, job.replace("from databricks.connect import DatabricksSession",
                                  "DatabricksSession = SparkSession")) == ["UN03"]


SNAPSHOT = '''import dlt


class Flows:
    def __init__(self, spec):
        self.spec = spec

    def snapshot(self, source):
        dlt.create_streaming_table(name=self.spec.target)
        dlt.apply_changes_from_snapshot(target=self.spec.target, source=source,
                                        keys=self.spec.keys, stored_as_scd_type=1)

    def cdc(self):
        dlt.apply_changes(target=self.spec.target, source="changes", keys=self.spec.keys,
                          sequence_by="ts")
'''
RENAMED = SNAPSHOT.replace("dlt.apply_changes_from_snapshot(",
                           "dlt.create_auto_cdc_from_snapshot_flow(").replace(
    "dlt.apply_changes(", "dlt.create_auto_cdc_flow(")


def test_a_pipeline_api_moved_to_its_new_name_is_the_same_call() -> None:
    """Databricks renamed `apply_changes_from_snapshot` (not modelled: unread code) and
    `apply_changes`; the new names have the same signature and replace the old ones."""
    assert codes(SNAPSHOT, RENAMED) == []
    imported = SNAPSHOT.replace("import dlt\n", "import dlt\nfrom dlt import "
                                "apply_changes_from_snapshot\n")
    assert codes(imported.replace("dlt.apply_changes_from_snapshot(",
                                  "apply_changes_from_snapshot("),
                 imported.replace("dlt.apply_changes_from_snapshot(",
                                  "create_auto_cdc_from_snapshot_flow(").replace(
                     "from dlt import apply_changes_from_snapshot",
                     "from dlt import create_auto_cdc_from_snapshot_flow")) == []


def test_a_pipeline_call_changed_with_its_rename_or_to_another_api_is_asked() -> None:
    assert set(codes(SNAPSHOT, RENAMED.replace("stored_as_scd_type=1",
                                               "stored_as_scd_type=2"))) == {"UN03"}
    # Another function, not a former name of this one: asked.
    assert codes(SNAPSHOT, SNAPSHOT.replace("dlt.apply_changes_from_snapshot(",
                                            "dlt.create_auto_cdc_flow(")) != []
