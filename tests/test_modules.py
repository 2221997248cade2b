"""Jobs split over several modules of their repository: imports followed, never run.

Expected lines are found by searching the helper's own text, never copied from output.
"""

from __future__ import annotations

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.extract.imports import candidates, imports_of
from streamlint.extract.project import MappingFiles, Project
from streamlint.model import JobFile
from streamlint.model.expr import render
from streamlint.rulebook.book import load_rules

IO = '''\
from pyspark.sql import functions as F

TOPIC = "orders"


def read_orders(spark):
    return (spark.readStream.format("kafka").option("subscribe", TOPIC).load()
            .select(F.col("value").cast("string").alias("json")))


def build_writer(df, name):
    return (df.writeStream.format("delta").outputMode("update")
            .option("checkpointLocation", f"/chk/{name}"))


if __name__ == "__main__":
    read_orders(None).writeStream.format("console").start()
'''

TRANSFORMS = '''\
from pyspark.sql import functions as F


def totals(df):
    return df.groupBy("customer_id").agg(F.sum("amount").alias("total"))
'''

JOB = '''\
from pyspark.sql import SparkSession
from jobs.io import read_orders, build_writer
from jobs.transforms import totals

spark = SparkSession.builder.getOrCreate()
build_writer(totals(read_orders(spark)), "totals").start("/out/totals")
'''


def code(name: str) -> str:
    return next(rule.code for rule in load_rules() if rule.name == name)


def extract(files: dict[str, str], job: str = "jobs/job.py", shown: str | None = None,
            roots: tuple[str, ...] = ("", "src")) -> JobFile:
    return extract_text(files[job], shown or job, Project(MappingFiles(files), job, roots))


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def repo(**changes: str) -> dict[str, str]:
    files = {"jobs/job.py": JOB, "jobs/io.py": IO, "jobs/transforms.py": TRANSFORMS,
             "jobs/__init__.py": ""}
    files.update({k.replace("__", "/") + ".py" if not k.endswith("py") else k: v
                  for k, v in changes.items()})
    return files


# -- what a followed module contributes ------------------------------------------------------


def test_source_transformation_and_writer_come_from_helpers() -> None:
    job = extract(repo())
    (query,) = job.queries
    assert query.sources[0].identity == (("subscribe", "orders"),)
    assert query.sources[0].loc.path == "jobs/io.py"
    assert query.sources[0].loc.line == line_of(IO, "spark.readStream")
    (agg,) = query.stateful
    assert [render(k) for k in agg.keys] == ["customer_id"]
    assert (agg.loc.path, agg.loc.line) == ("jobs/transforms.py", line_of(TRANSFORMS, "groupBy"))
    assert query.sink.checkpoint == "/chk/totals"
    assert query.sink.target == "/out/totals"
    assert query.unresolved == ()
    assert dict(job.modules).keys() == {"jobs/io.py", "jobs/transforms.py"}
    assert job.unseen == ()


def test_helper_main_block_does_not_run() -> None:
    # io.py's `if __name__ == "__main__":` starts a console query: importing must not.
    assert [q.sink.format for q in extract(repo()).queries] == ["delta"]


def test_grouping_key_added_in_helper_is_incompatible_at_the_helpers_line() -> None:
    changed = TRANSFORMS.replace('groupBy("customer_id")', 'groupBy("customer_id", "region")')
    report = diff_jobs(extract(repo()), extract(repo(jobs__transforms=changed)))
    assert report.verdict == "incompatible"
    finding = next(f for f in report.findings if f.code == code("grouping-keys-changed"))
    assert finding.new.path == "jobs/transforms.py"
    assert finding.new.line == line_of(changed, "groupBy")


def test_unchanged_job_and_helper_give_no_finding() -> None:
    report = diff_jobs(extract(repo()), extract(repo()))
    assert report.findings == ()
    assert report.verdict == "compatible"


def test_helper_locations_take_the_jobs_path_prefix() -> None:
    job = extract(repo(), shown="HEAD~1:jobs/job.py")
    assert job.queries[0].sources[0].loc.path == "HEAD~1:jobs/io.py"
    assert dict(job.modules).keys() == {"jobs/io.py", "jobs/transforms.py"}  # root-relative


# -- every import form ---------------------------------------------------------------------

FORMS = {
    "import-dotted": ("import jobs.io\n", "jobs.io.read_orders(spark)", {}),
    "import-as": ("import jobs.io as io\n", "io.read_orders(spark)", {}),
    "from-import": ("from jobs.io import read_orders\n", "read_orders(spark)", {}),
    "from-import-as": ("from jobs.io import read_orders as r\n", "r(spark)", {}),
    "from-package-import-module": ("from jobs import io\n", "io.read_orders(spark)", {}),
    "relative-module": ("from . import io\n", "io.read_orders(spark)", {}),
    "relative-name": ("from .io import read_orders\n", "read_orders(spark)", {}),
    "relative-parent": ("from ..common import sources\n", "sources.read_orders(spark)",
                        {"common/sources.py": IO}),
    "job-folder": ("import io_helpers\n", "io_helpers.read_orders(spark)",
                   {"jobs/io_helpers.py": IO}),
    "src-layout": ("from company.io import read_orders\n", "read_orders(spark)",
                   {"src/company/__init__.py": "", "src/company/io.py": IO}),
    "namespace-package": ("import shared.io\n", "shared.io.read_orders(spark)",
                          {"shared/io.py": IO}),
    "star": ("from jobs.io import *\n", "read_orders(spark)", {}),
}


@pytest.mark.parametrize("form", FORMS)
def test_import_form(form: str) -> None:
    imports, call, extra = FORMS[form]
    text = (f"{imports}df = {call}\n"
            "df.writeStream.format('delta').option('checkpointLocation', '/c').start('/o')\n")
    files = {"jobs/job.py": text, "jobs/io.py": IO, "jobs/__init__.py": "", **extra}
    (query,) = extract(files).queries
    assert query.sources[0].identity == (("subscribe", "orders"),), query
    assert query.sources[0].loc.line == line_of(IO, "spark.readStream")
    assert query.unresolved == ()


def test_configured_source_root() -> None:
    files = {"jobs/job.py": "from platform_io import read_orders\ndf = read_orders(spark)\n"
             "df.writeStream.format('delta').option('checkpointLocation', '/c').start('/o')\n",
             "libs/py/platform_io.py": IO}
    assert extract(files).queries[0].sources == ()  # not found: outside the repository
    (query,) = extract(files, roots=("libs/py",)).queries
    assert query.sources[0].identity == (("subscribe", "orders"),)


def test_constants_classes_and_schemas_from_a_module() -> None:
    files = {
        "jobs/conf.py": 'from pyspark.sql.types import StructType, StructField, StringType\n'
                        'SCHEMA = StructType([StructField("id", StringType())])\n'
                        'class Settings:\n    checkpoint = "/chk/conf"\n'
                        '    def path(self):\n        return "/in/" + "events"\n',
        "jobs/job.py": "from jobs.conf import SCHEMA, Settings\ns = Settings()\n"
                       "df = spark.readStream.schema(SCHEMA).json(s.path())\n"
                       "df.writeStream.format('delta').option('checkpointLocation', "
                       "s.checkpoint).start('/o')\n",
    }
    (query,) = extract(files).queries
    inline = extract_text(
        'from pyspark.sql.types import StructType, StructField, StringType\n'
        'df = spark.readStream.schema(StructType([StructField("id", StringType())]))'
        '.json("/in/events")\n'
        "df.writeStream.format('delta').option('checkpointLocation', '/chk/conf').start('/o')\n",
        "inline.py").queries[0]
    assert query.sources[0].schema == inline.sources[0].schema
    assert query.sources[0].identity == inline.sources[0].identity
    assert query.sink.checkpoint == "/chk/conf"


def test_outside_package_stays_unknown() -> None:
    files = {"jobs/job.py": "from company_lib.io import read_orders\ndf = read_orders(spark)\n"
             "df.writeStream.format('delta').option('checkpointLocation', '/c').start('/o')\n"}
    job = extract(files)
    (query,) = job.queries
    assert query.sources == () and query.unresolved  # a note naming the call
    assert job.modules == () and job.unseen == ()


# -- what cannot be followed ---------------------------------------------------------------


def test_syntax_error_in_helper_is_unseen_and_its_names_unknown() -> None:
    files = repo(jobs__io="def read_orders(spark:\n    return spark.readStream\n")
    job = extract(files)
    (unseen,) = [u for u in job.unseen if u.about == "module"]
    assert "jobs/io.py" in unseen.what and "not valid Python" in unseen.what
    assert (unseen.loc.path, unseen.loc.line) == ("jobs/job.py", line_of(JOB, "jobs.io"))
    assert "jobs/io.py" in dict(job.modules)  # its text still makes the versions differ
    report = diff_jobs(extract(repo()), job)
    assert code("streaming-code-not-read") in [f.code for f in report.findings]
    assert report.verdict != "compatible"


def test_missing_module_is_like_a_package_outside() -> None:
    files = repo(jobs__job="from jobs.io import read_orders\ndf = read_orders(spark)\n"
                 "df.writeStream.format('delta').option('checkpointLocation', '/c').start('/o')\n")
    del files["jobs/io.py"]
    job = extract(files)
    assert job.unseen == () and "jobs/io.py" not in dict(job.modules)
    (query,) = job.queries
    assert query.sources == () and query.unresolved


def test_import_cycle_binds_what_is_defined_and_reports_what_is_not() -> None:
    files = {
        "jobs/a.py": "from jobs.b import helper\nTOPIC = 'orders'\n",
        "jobs/b.py": "from jobs.a import TOPIC\ndef helper():\n    return TOPIC\n",
        "jobs/job.py": "from jobs.a import helper\n"
                       "df = spark.readStream.format('kafka').option('subscribe', helper())"
                       ".load()\n"
                       "df.writeStream.format('delta').option('checkpointLocation', '/c')"
                       ".start('/o')\n",
    }
    job = extract(files)
    (unseen,) = job.unseen
    assert unseen.about == "module" and "cycle" in unseen.what and "TOPIC" in unseen.what
    (query,) = job.queries
    assert query.sources[0].identity != (("subscribe", "orders"),)  # never guessed


def test_cycle_through_module_objects_works_as_in_python() -> None:
    # `import jobs.a` in a cycle gives the module being imported; its names are read later.
    files = {
        "jobs/a.py": "import jobs.b\nTOPIC = 'orders'\n",
        "jobs/b.py": "import jobs.a\ndef topic():\n    return jobs.a.TOPIC\n",
        "jobs/job.py": "import jobs.a\nimport jobs.b\n"
                       "df = spark.readStream.format('kafka').option('subscribe', "
                       "jobs.b.topic()).load()\n"
                       "df.writeStream.format('delta').option('checkpointLocation', '/c')"
                       ".start('/o')\n",
    }
    job = extract(files)
    assert job.unseen == ()
    assert job.queries[0].sources[0].identity == (("subscribe", "orders"),)


def test_deep_chain_of_imports_stops_with_unseen() -> None:
    files = {f"jobs/m{i}.py": f"from jobs.m{i + 1} import value\n" for i in range(30)}
    files["jobs/m30.py"] = "value = 'orders'\n"
    files["jobs/job.py"] = ("from jobs.m0 import value\n"
                            "df = spark.readStream.format('kafka').option('subscribe', value)"
                            ".load()\n"
                            "df.writeStream.format('delta').option('checkpointLocation', '/c')"
                            ".start('/o')\n")
    job = extract(files)
    assert any(u.about == "module" and "deep" in u.what for u in job.unseen)
    assert job.queries[0].sources[0].identity != (("subscribe", "orders"),)


def test_job_that_never_says_readstream_is_read_through_its_helpers() -> None:
    assert "readStream" not in JOB and "writeStream" not in JOB
    assert len(extract(repo()).queries) == 1
    # Without its repository (no project), there is nothing to follow.
    assert extract_text(JOB, "jobs/job.py").queries == ()


# -- the import scanner check relies on -------------------------------------------------------


def test_imports_of_reads_every_form() -> None:
    text = ("import a.b as c, d\nfrom .x import (y,  # why\n    z as w)\nfrom .. import q\n"
            "from e.f import g \\\n    , h\n    import inner\n")
    assert sorted(imports_of(text)) == sorted([
        (0, "a.b", ()), (0, "d", ()), (1, "x", ("y", "z")), (2, "", ("q",)),
        (0, "e.f", ("g", "h")), (0, "inner", ())])


def test_candidates_cover_what_the_loader_may_read() -> None:
    found = candidates("jobs/job.py", 0, "pkg.mod", ("f",), ("jobs", "", "src"))
    for path in ("pkg/mod.py", "src/pkg/mod/__init__.py", "jobs/pkg/mod.py", "pkg/__init__.py",
                 "pkg/mod/f.py"):
        assert path in found
    assert candidates("jobs/etl/job.py", 2, "common", (), ()) == [
        "jobs/common.py", "jobs/common/__init__.py"]
    assert candidates("jobs/job.py", 0, "os.path", (), ("",)) == []  # the standard library


def test_helper_that_configures_the_writer_it_is_given() -> None:
    # DataStreamWriter methods change the writer itself (as in dataproc-templates'
    # persist_streaming_dataframe_to_cloud_storage): the statement's effect is kept.
    helper = ('def persist(writer, checkpoint):\n'
              '    writer.format("parquet").outputMode("append") \\\n'
              '        .option("checkpointLocation", checkpoint)\n'
              '    return writer\n')
    files = {"jobs/sinks.py": helper,
             "jobs/job.py": "from jobs.sinks import persist\n"
                            "df = spark.readStream.format('rate').load()\n"
                            "writer = df.writeStream\n"
                            "writer = persist(writer, '/chk/rate')\n"
                            "writer.start('/out/rate')\n"}
    (query,) = extract(files).queries
    assert (query.sink.format, query.sink.output_mode, query.sink.checkpoint) == (
        "parquet", "append", "/chk/rate")
    assert query.sink.checkpoint_loc.path == "jobs/sinks.py"
    assert query.sink.checkpoint_loc.line == line_of(helper, "checkpointLocation")


def test_a_package_below_the_repository_root_is_found_from_the_job_s_folders() -> None:
    # dataproc-templates: python/dataproc_templates/kafka/job.py imports
    # dataproc_templates.util.writers, run with python/ on the path; nothing declares it.
    files = {
        "python/dataproc_templates/kafka/job.py": JOB.replace(
            "from jobs.io import read_orders, build_writer",
            "from dataproc_templates.util.io import read_orders, build_writer").replace(
            "from jobs.transforms import totals",
            "from dataproc_templates.util.transforms import totals"),
        "python/dataproc_templates/util/io.py": IO,
        "python/dataproc_templates/util/transforms.py": TRANSFORMS,
    }
    job = extract(files, "python/dataproc_templates/kafka/job.py")
    assert len(job.queries) == 1 and job.unseen == ()
    assert [path for path, _ in job.modules] == ["python/dataproc_templates/util/io.py",
                                                 "python/dataproc_templates/util/transforms.py"]


def test_a_loader_class_whose_writer_is_in_a_module_is_run() -> None:
    # atc-dataplatform: UpsertLoaderStreaming.save(df) calls StreamLoader.save(df), whose
    # writeStream is in another module; `save` is referenced as `self._loader.save`.
    files = {
        "atc/stream_loader.py": '''\
class StreamLoader:
    def __init__(self, checkpoint_path):
        self._checkpoint_path = checkpoint_path

    def save(self, df):
        df.writeStream.option("checkpointLocation", self._checkpoint_path).toTable("t")
''',
        "atc/upsert_loader.py": '''\
from atc.stream_loader import StreamLoader


class UpsertLoader:
    def __init__(self, checkpoint_path):
        self._loader = StreamLoader(checkpoint_path)

    def save(self, df):
        self._loader.save(df)
''',
    }
    job = extract(files, "atc/upsert_loader.py")
    assert [q.sink.target for q in job.queries] == ["t"]
