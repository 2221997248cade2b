"""Partly-known values (issue 11): how the extractor builds them and how the diff decides."""

from __future__ import annotations

import json

import pytest

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text
from streamlint.model import Origin, Template, Unknown, option, show
from streamlint.model.values import values_differ
from streamlint.report.json import render as render_json
from streamlint.report.sarif import render as render_sarif
from streamlint.rulebook.matrix import DEFAULT_SPARK_VERSION

ROOT = Unknown("root")


def t(*parts: str | Unknown) -> Template:
    return Template(tuple(parts))


# -- the decision ------------------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b", "expected"), [
    # Equal values, however unresolved.
    (t("", ROOT, "/orders"), t("", ROOT, "/orders"), False),
    (ROOT, ROOT, False),
    # The same unresolved parts, other known text.
    (t("", ROOT, "/orders"), t("", ROOT, "/orders_v2"), True),
    (t("", ROOT, "/a/", Unknown("b")), t("", ROOT, "/c/", Unknown("b")), True),
    (ROOT, t("", ROOT, ",b"), True),  # a topic list grown around an unresolved entry
    # Known text that lines up nowhere: undecided ("a{x}" and "{x}a" are "aa" when x is "a").
    (t("a", ROOT, ""), t("", ROOT, "a"), None),
    # Other unresolved parts: only a clash in the leading or trailing text decides.
    (t("", ROOT, "/chk"), t("", Unknown("other"), "/chk"), None),
    (t("abfss://bronze@", Unknown("a"), ".dfs.core.windows.net/x"),
     t("abfss://silver@", Unknown("b"), ".dfs.core.windows.net/x"), True),
    (t("", Unknown("a"), "/x"), t("", Unknown("b"), "/y"), True),
    # A template against a known string: differ when the string cannot fill it.
    (t("/mnt/", ROOT, "/events"), "/mnt/prod/events", None),
    (t("/mnt/", ROOT, "/events"), "/mnt/prod/clicks", True),
    (t("/mnt/", ROOT, "/a/", Unknown("x"), "/b"), "/mnt/p/b/q/a", True),
    (t("/mnt/", ROOT, "/a/", Unknown("x"), "/b"), "/mnt/p/a/q/b", None),
    ("/mnt/a", ROOT, None),
    # A template is a string: not None, not a number.
    (None, t("", ROOT, ".*"), True),
    (None, ROOT, None),
    # Fully known values.
    ("a", "b", True),
    (1, 2, True),
    # Tuples: position by position; other lengths; elements standing for several.
    (("a", ROOT), ("b", ROOT), True),
    (("a", ROOT), ("a", Unknown("c")), None),
    (("a", ROOT), ("b", Unknown("c")), True),
    ((ROOT,), (ROOT, "b"), True),
    ((Unknown("*xs"),), (Unknown("*xs"), "b"), True),
    ((Unknown("*xs"), "a"), (Unknown("*ys"), "a", "b"), True),  # the last element differs
    ((Unknown("*xs"), "a"), (Unknown("*ys"), "a"), None),
    ((Unknown("*xs"), "a"), (Unknown("*ys"), "b"), True),
    # Text with an unresolved mark inside (an expression's rendering): never decided here.
    ("f(\u27e8?x\u27e9)", "g(\u27e8?x\u27e9)", None),
])
def test_values_differ(a: object, b: object, expected: bool | None) -> None:
    assert values_differ(a, b) is expected
    assert values_differ(b, a) is expected


# -- the extractor -----------------------------------------------------------------------------

PRELUDE = 'import os\nimport posixpath\nroot = dbutils.widgets.get("root")\n'
W = Unknown("dbutils.widgets.get('root')")


def checkpoint_of(expr: str) -> object:
    job = extract_text(
        PRELUDE + 'df = spark.readStream.format("kafka").option("subscribe", "a").load()\n'
        f'df.writeStream.option("checkpointLocation", {expr}).start("/t")\n', "job.py")
    return job.queries[0].sink.checkpoint


@pytest.mark.parametrize("expr", [
    'f"{root}/orders"', 'root + "/orders"', 'os.path.join(root, "orders")',
    'posixpath.join(root, "orders")', '"/".join([root, "orders"])', '"{}/orders".format(root)',
    '"%s/orders" % root', '"{r}/orders".format(r=root)', 'f"{root}/" + "orders"',
    'os.path.join(f"{root}/", "orders")',
])
def test_one_string_built_in_many_ways_is_one_template(expr: str) -> None:
    assert checkpoint_of(expr) == t("", W, "/orders")


@pytest.mark.parametrize(("expr", "expected"), [
    ('f"/chk/{\'orders\'}"', "/chk/orders"),  # all known: a plain string
    ('f"{root}"', W),  # nothing known: the unknown itself
    ('os.path.join(root, "/abs")', "/abs"),  # an absolute part replaces the unknown
    ('f"{root:>10}/x"', t("", Unknown("root:>10"), "/x")),  # a spec is part of the code
])
def test_template_edges(expr: str, expected: object) -> None:
    assert checkpoint_of(expr) == expected


@pytest.mark.parametrize("expr", [
    'os.path.join("/chk", root)',  # an unresolved later part could be absolute
    '",".join([*root, "b"])',  # a list of unknown length
    '"%d/x" % root',  # only %s is modelled
])
def test_what_stays_opaque(expr: str) -> None:
    assert isinstance(checkpoint_of(expr), Unknown)


def test_a_topic_list_keeps_its_known_entries() -> None:
    job = extract_text(
        'import os\nT = os.environ["T"]\n'
        'df = spark.readStream.format("kafka").option("subscribe", ",".join([T, "b"])).load()\n'
        'df.writeStream.option("checkpointLocation", "/chk").start("/t")\n', "job.py")
    value = option(job.queries[0].sources[0].identity, "subscribe")
    assert value == t("", Unknown('os.environ["T"]', origin=Origin("environment", "T")), ",b")


# -- the diff and its reports ------------------------------------------------------------------


def diff(old_expr: str, new_expr: str, extra: str = ""):
    def job(expr: str) -> str:
        return (PRELUDE + extra +
                'df = spark.readStream.format("kafka").option("subscribe", "a").load()\n'
                f'df.writeStream.option("checkpointLocation", {expr}).start("/t")\n')
    return diff_jobs(extract_text(job(old_expr), "old.py"), extract_text(job(new_expr), "new.py"),
                     DEFAULT_SPARK_VERSION)


def test_a_moved_partly_known_checkpoint_is_qy01_and_shows_its_known_text() -> None:
    report = diff('f"{root}/orders"', 'f"{root}/orders_v2"')
    assert [(f.code, f.verdict) for f in report.findings] == [("QY01", "incompatible")]
    assert "{dbutils.widgets.get('root')}/orders_v2" in report.findings[0].message
    json.loads(render_json(report))  # the records serialise
    json.loads(render_sarif([report]))


def test_an_undecidable_change_stays_review() -> None:
    report = diff('f"{root}/chk"', 'f"{other}/chk"', extra='other = dbutils.widgets.get("o")\n')
    assert [(f.code, f.verdict) for f in report.findings] == [("UN02", "review")]


def test_show_prints_a_template_as_written() -> None:
    assert show(t("", ROOT, "/orders_v2")) == "{root}/orders_v2"


def test_two_queries_on_one_partly_known_checkpoint_share_it() -> None:
    text = (PRELUDE +
            'df = spark.readStream.format("kafka").option("subscribe", "a").load()\n'
            'df.writeStream.option("checkpointLocation", f"{root}/chk").start("/t/a")\n'
            'df.groupBy("key").count().writeStream.outputMode("complete")'
            '.option("checkpointLocation", root + "/chk").start("/t/b")\n')
    old = extract_text(PRELUDE + 'df = spark.readStream.format("kafka").option("subscribe", "a")'
                       '.load()\ndf.writeStream.option("checkpointLocation", f"{root}/chk")'
                       '.start("/t/a")\n', "old.py")
    report = diff_jobs(old, extract_text(text, "new.py"), DEFAULT_SPARK_VERSION)
    assert "QY11" in [f.code for f in report.findings]


def test_a_volatile_partly_known_checkpoint_is_still_volatile() -> None:
    report = diff('"/chk/orders"', 'f"/chk/orders/{uuid.uuid4()}"', extra="import uuid\n")
    assert "QY13" in [f.code for f in report.findings]


BQ_JOB = '''
import sys
project = {project!r}
dataset = sys.argv[1]
df = spark.readStream.format("kafka").option("subscribe", "events").load()
(df.writeStream.format("bigquery").option("table", project + ":" + dataset + ".events")
 .option("checkpointLocation", "gs://bucket/chk/events").start())
'''


def test_a_sink_table_given_only_as_an_option_is_where_it_writes() -> None:
    """A BigQuery sink names its table in option("table"), partly known: another project is
    another table (SK08, review), never a silent "compatible" (the real-world corpus's
    dataproc-templates kafka_to_bq.py, edit bq-template-project-changed)."""
    old = extract_text(BQ_JOB.format(project="sandbox"), "job.py")
    new = extract_text(BQ_JOB.format(project="analytics-prod"), "job.py")
    report = diff_jobs(old, new, DEFAULT_SPARK_VERSION)
    assert report.verdict == "review"
    assert [f.code for f in report.findings] == ["SK08"]


def test_str_of_a_run_time_value_is_that_value() -> None:
    # kedro's `.outputMode(output_mode)` -> `.outputMode(str(output_mode))` (a history pair).
    job = """
import sys
mode = sys.argv[1]
df = spark.readStream.format("kafka").option("subscribe", "events").load()
df.writeStream.outputMode(mode).format("console").option("checkpointLocation", "/c").start()
"""
    new = job.replace(".outputMode(mode)", ".outputMode(str(mode))")
    report = diff_jobs(extract_text(job, "old.py"), extract_text(new, "new.py"))
    assert report.findings == ()


# -- a value a run-time condition chooses (`"/a" if IS_PROD else "/b"`) --------------------------

CHOSEN = """
import os
IS_CLUSTER = os.path.exists("/etc/cluster")
CHECKPOINT = "gs://lake/chk/scores_v1" if IS_CLUSTER else "/data/chk/v1"
df = spark.readStream.format("rate").load()
df.writeStream.format("console").option("checkpointLocation", CHECKPOINT).start()
"""


def _chosen_codes(new: str) -> list[str]:
    report = diff_jobs(extract_text(CHOSEN, "old.py"), extract_text(new, "new.py"))
    return sorted(f.code for f in report.findings)


def test_a_chosen_checkpoint_whose_every_branch_moved_is_a_moved_checkpoint() -> None:
    # Whichever environment the job runs in, it writes another directory (a real commit
    # renamed both branches of a config class's checkpoint): Spark's guide treats a new
    # checkpoint as a new query, so this is QY01, not a question.
    moved = CHOSEN.replace("scores_v1", "scores_v2").replace("/data/chk/v1", "/data/chk/v2")
    assert _chosen_codes(moved) == ["QY01"]


def test_a_chosen_checkpoint_kept_on_one_branch_is_a_question() -> None:
    # In the cluster it is the same directory: the environment decides, so a person checks.
    one = CHOSEN.replace("/data/chk/v1", "/data/chk/v2")
    assert _chosen_codes(one) == ["UN02"]


def test_a_chosen_checkpoint_spelled_another_way_is_the_same_directory() -> None:
    respelled = CHOSEN.replace('"/data/chk/v1"', '"file:///data/chk/v1/"')
    assert _chosen_codes(respelled) == []


def test_a_choice_keeps_its_branches_as_data() -> None:
    (query,) = extract_text(CHOSEN, "job.py").queries
    chosen = query.sink.checkpoint
    assert isinstance(chosen, Unknown)
    assert chosen.alternatives == ("gs://lake/chk/scores_v1", "/data/chk/v1")
    assert chosen.condition == "IS_CLUSTER"
    # The branches are not part of its identity: its code already names them.
    assert chosen == Unknown(chosen.text)


@pytest.mark.parametrize(("a", "b", "expected"), [
    # Another condition: only a value no branch of either side can take differs.
    (Unknown("x", alternatives=("a", "b"), condition="C"),
     Unknown("y", alternatives=("c", "d"), condition="D"), True),
    (Unknown("x", alternatives=("a", "b"), condition="C"),
     Unknown("y", alternatives=("b", "d"), condition="D"), None),
    # A known value against a choice: differs when no branch gives it.
    ("a", Unknown("y", alternatives=("b", "c"), condition="C"), True),
    ("a", Unknown("y", alternatives=("a", "c"), condition="C"), None),
    # A branch known only at run time may be anything.
    ("a", Unknown("y", alternatives=("b", ROOT), condition="C"), None),
])
def test_choices_differ_only_where_no_branch_can_agree(a: object, b: object,
                                                      expected: bool | None) -> None:
    assert values_differ(a, b) is expected
