"""What a helper changes in place reaches its caller, and a decorator of the job's own wraps the
function it decorates.

Lists and stream writers are immutable values inside the interpreter, so a helper that
appended to the list it was given (`add(outs, df)`) or configured the writer it was given
(`configure(writer)`) used to change only its own copy: the caller's query read an empty list
or an unconfigured writer, and a changed grouping key or sink path read compatible. A user
decorator was ignored, so the steps its wrapper adds were not part of the query either.
Found in review (tests/review_cases has the other pairs of that review).
"""

from __future__ import annotations

from streamlint.diff import diff_jobs
from streamlint.extract import extract_text


def verdict(old: str, new: str) -> tuple[str, list[str]]:
    assert old != new
    report = diff_jobs(extract_text(old, "old.py"), extract_text(new, "new.py"))
    return report.verdict, sorted(f.code for f in report.findings)


APPEND = """
def add(outs, df):
    outs.append(df.filter("value > 0").groupBy("key").count())

df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = []
add(outs, df)
for o in outs:
    (o.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/e").start())
"""


def test_a_list_filled_by_a_helper_holds_its_dataframe() -> None:
    (query,) = extract_text(APPEND, "job.py").queries
    assert [op.kind for op in query.stateful] == ["aggregation"]


def test_a_changed_grouping_key_in_a_helper_filling_a_list_is_incompatible() -> None:
    new = APPEND.replace('groupBy("key")', 'groupBy("key", "value")')
    assert verdict(APPEND, new) == ("incompatible", ["AG01", "PR06"])


def test_a_changed_filter_in_a_helper_filling_a_list_is_compatible() -> None:
    new = APPEND.replace("value > 0", "value > 1")
    assert verdict(APPEND, new)[0] == "compatible"


def test_a_list_the_helper_rebinds_before_appending_is_not_the_callers() -> None:
    # `outs = list(outs)` makes a new list: the caller's stays empty, so its loop reads an
    # unknown DataFrame (a note), never the helper's aggregation.
    job = APPEND.replace("    outs.append", "    outs = list(outs)\n    outs.append")
    (query,) = extract_text(job, "job.py").queries
    assert query.stateful == ()
    assert query.unresolved


def test_a_module_list_filled_inside_a_function() -> None:
    job = """
QUERIES = []

def register(df):
    QUERIES.append(df.groupBy("key").count())

register(spark.readStream.format("kafka").option("subscribe", "events").load())
for q in QUERIES:
    (q.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/m").start())
"""
    new = job.replace('groupBy("key")', 'groupBy("value")')
    assert verdict(job, new) == ("incompatible", ["AG01", "PR06"])


CONFIGURE = """
def configure(w):
    w.format("parquet").option("path", "/t/e")

df = spark.readStream.format("kafka").option("subscribe", "events").load()
w = df.writeStream.option("checkpointLocation", "/chk/e")
configure(w)
w.start()
"""


def test_a_writer_configured_by_a_helper_keeps_its_settings() -> None:
    (query,) = extract_text(CONFIGURE, "job.py").queries
    assert query.sink.format == "parquet"
    assert query.sink.checkpoint == "/chk/e"


def test_a_sink_path_changed_in_a_helper_configuring_the_writer_is_seen() -> None:
    new = CONFIGURE.replace("/t/e", "/t/f")
    assert verdict(CONFIGURE, new)[0] != "compatible"


def test_a_writer_configured_through_a_keyword_argument() -> None:
    job = CONFIGURE.replace("configure(w)", "configure(w=w)")
    (query,) = extract_text(job, "job.py").queries
    assert query.sink.format == "parquet"


DECORATED = """
import functools

def counted(fn):
    @functools.wraps(fn)
    def wrap(df):
        print("building")
        return fn(df).groupBy("key").count()
    return wrap

@counted
def build(df):
    return df.filter("value > 0")

df = spark.readStream.format("kafka").option("subscribe", "a").load()
(build(df).writeStream.outputMode("update").format("console")
 .option("checkpointLocation", "/chk/x").start())
"""


def test_a_decorator_of_the_jobs_own_is_part_of_the_query() -> None:
    (query,) = extract_text(DECORATED, "job.py").queries
    assert [op.kind for op in query.stateful] == ["aggregation"]


def test_a_grouping_key_changed_in_a_decorator_is_incompatible() -> None:
    new = DECORATED.replace('groupBy("key")', 'groupBy("key", "x")')
    assert verdict(DECORATED, new) == ("incompatible", ["AG01", "PR06"])


def test_a_decorators_log_line_changed_is_compatible() -> None:
    new = DECORATED.replace('print("building")', 'print("building the counts")')
    assert verdict(DECORATED, new) == ("compatible", [])


def test_a_decorator_returning_what_streamlint_cannot_call_is_unknown_with_its_code() -> None:
    old = """
import cache

def memo(fn):
    return cache.wrap(fn)

@memo
def build(df):
    return df

df = spark.readStream.format("kafka").option("subscribe", "a").load()
build(df).writeStream.format("console").option("checkpointLocation", "/chk/x").start()
"""
    (query,) = extract_text(old, "job.py").queries
    assert any("decorated by @memo" in text for text, _ in query.unresolved)
    new = old.replace("cache.wrap(fn)", "cache.wrap(fn, size=2)")
    assert verdict(old, new)[0] == "review"


PARTIAL = """
from functools import partial

def upsert(batch, batch_id, table):
    batch.write.mode("append").saveAsTable(table)

df = spark.readStream.format("kafka").option("subscribe", "a").load()
(df.writeStream.foreachBatch(partial(upsert, table="t"))
 .option("checkpointLocation", "/chk/b").start())
"""


def test_a_partial_batch_functions_code_counts() -> None:
    new = PARTIAL.replace('mode("append")', 'mode("overwrite")')
    assert verdict(PARTIAL, new) == ("review", ["SK12"])
    new = PARTIAL.replace("batch.write", 'batch.filter("ok").write')
    assert verdict(PARTIAL, new) == ("compatible", ["SK07"])


def test_what_a_partial_batch_function_is_bound_to_counts() -> None:
    new = PARTIAL.replace('table="t"', 'table="u"')
    assert verdict(PARTIAL, new) == ("compatible", ["SK07"])


def test_an_unchanged_partial_batch_function_has_no_finding() -> None:
    assert verdict(PARTIAL, PARTIAL + "\n# the same\n") == ("compatible", [])


CONFIG_LOOP = """
import json

config = json.load(open("tables.json"))
for table in config["tables"]:
    df = spark.readStream.table(table)
    (df.groupBy("key").count().writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/" + table).start())
print("started")
"""


def test_a_loop_over_config_names_its_item_by_the_config_only() -> None:
    # An item of a list only the run knows: an edit elsewhere in the module is no finding.
    new = CONFIG_LOOP.replace('print("started")', 'print("all started")')
    assert verdict(CONFIG_LOOP, new) == ("compatible", [])


def test_a_loop_over_a_list_read_empty_that_starts_a_query_asks_on_any_edit() -> None:
    # The list was filled where streamlint did not see (here: by a library's call), so the
    # module's code stands for what its item holds.
    job = """
import registry

OUTS = []
registry.fill(OUTS, spark.readStream.format("kafka").option("subscribe", "in").load())
for out in OUTS:
    (out.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", "/chk/o").start())
print("started")
"""
    new = job.replace('print("started")', 'print("all started")')
    # The same words on each side, naming other code: one note that says it changed.
    assert verdict(job, new) == ("review", ["UN01"])


CLOSURE_INDEX = """
def make():
    outs = []
    def add(df):
        outs.append(df.groupBy("key").count())
    return outs, add

outs, add = make()
add(spark.readStream.format("kafka").option("subscribe", "in").load())
(outs[0].writeStream.outputMode("update").format("console")
 .option("checkpointLocation", "/chk/o").start())
"""


def test_a_list_a_closure_fills_is_read_through_its_other_holder() -> None:
    # The closure changes the list `make` returned: the caller's `outs` is the same list
    # (values.Items forwards the change), so `outs[0]` is the aggregation. It read compatible.
    new = CLOSURE_INDEX.replace('groupBy("key")', 'groupBy("value")')
    assert verdict(CLOSURE_INDEX, new) == ("incompatible", ["AG01", "PR06"])


def test_a_list_filled_through_kwargs_is_read_through_its_other_holder() -> None:
    job = """
outs = []
def build(**kw):
    kw["into"].append(kw["df"].groupBy("key").count())

build(into=outs, df=spark.readStream.format("kafka").option("subscribe", "in").load())
(outs[0].writeStream.outputMode("update").format("console")
 .option("checkpointLocation", "/chk/o").start())
"""
    new = job.replace('groupBy("key")', 'groupBy("value")')
    assert verdict(job, new) == ("incompatible", ["AG01", "PR06"])


LIBRARY_INDEX = """
import registry

OUTS = []
registry.fill(OUTS, spark.readStream.format("kafka").option("subscribe", "in").load())
(OUTS[0].writeStream.outputMode("update").format("console")
 .option("checkpointLocation", "/chk/o").start())
print("started")
"""


def test_an_index_past_a_list_filled_unseen_asks_on_any_edit() -> None:
    # A library filled the list: `OUTS[0]` is past what streamlint saw (Python would stop
    # there), so the module's code stands for it. It was the same unknown text twice.
    new = LIBRARY_INDEX.replace('print("started")', 'print("all started")')
    assert verdict(LIBRARY_INDEX, new)[0] == "review"


def test_a_list_copied_before_it_is_filled_is_not_the_copy() -> None:
    # `list(outs)` is a new list: what the helper appends to it is not in the caller's.
    job = APPEND.replace("\nadd(outs, df)", "\nadd(list(outs), df)")
    (query,) = extract_text(job, "job.py").queries
    assert query.stateful == ()
    assert query.unresolved


def test_a_list_changed_in_one_branch_is_a_choice_for_its_other_holders() -> None:
    job = """
def make():
    outs = [spark.readStream.format("kafka").option("subscribe", "a").load()]
    return outs, outs

outs, alias = make()
if spark.conf.get("mode") == "agg":
    alias[0] = alias[0].groupBy("key").count()
else:
    alias[0] = alias[0].dropDuplicates(["key"])
(outs[0].writeStream.outputMode("update").format("console")
 .option("checkpointLocation", "/chk/o").start())
"""
    (query,) = extract_text(job, "job.py").queries
    assert [op.kind for op in query.stateful] == ["aggregation"]  # the first branch followed
    assert query.unresolved  # the other branch's DataFrame, noted
    new = job.replace('dropDuplicates(["key"])', 'dropDuplicates(["value"])')
    assert verdict(job, new)[0] != "compatible"


def test_an_index_within_a_list_seen_filled_is_its_item() -> None:
    job = APPEND.replace("for o in outs:\n    (o.", "if True:\n    (outs[-1].")
    (query,) = extract_text(job, "job.py").queries
    assert [op.kind for op in query.stateful] == ["aggregation"]
    assert not query.unresolved


def test_what_a_helper_appends_is_in_the_callers_list_once() -> None:
    # The change reaches the caller's list by forwarding; giving it back as well appended
    # the helper's items a second time (two queries where Python starts one).
    job = APPEND.replace("for o in outs:\n    (o.", "for i, o in enumerate(outs):\n    (o.")
    job = job.replace('"/chk/e"', 'f"/chk/{i}"')
    assert 'f"/chk/{i}"' in job
    assert len(extract_text(job, "job.py").queries) == 1
    twice = job.replace("add(outs, df)\n", "add(outs, df)\nadd(outs, df)\n")
    assert len(extract_text(twice, "job.py").queries) == 2


CHOSEN_TWICE = """
import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
def plain(o, d):
    o.append(d)
def positive(o, d):
    o.append(d.filter("value > 1"))
add = plain if len(sys.argv) > 1 else positive
outs = []
add(outs, df.filter("value < 100"))
add(outs, df.groupBy("key").count())
for i, o in enumerate(outs):
    (o.writeStream.outputMode("update").format("console")
     .option("checkpointLocation", f"/chk/{i}").start())
"""


def test_a_list_a_chosen_helper_fills_twice_holds_both_items() -> None:
    # Each chosen function's append is a version of the same list: merged, it is still that
    # list (values.Box), so the second call appends to it. The second query went missing.
    queries = extract_text(CHOSEN_TWICE, "job.py").queries
    assert len(queries) == 2
    new = CHOSEN_TWICE.replace('groupBy("key")', 'groupBy("value")')
    assert verdict(CHOSEN_TWICE, new)[0] == "incompatible"


def test_a_list_appended_under_a_condition_through_a_helper_is_a_choice() -> None:
    # Python starts one query or two: the second is not read as certain.
    job = """
import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
outs = [df.filter("value = 0")]
def add(o, d):
    o.append(d)
if len(sys.argv) > 1:
    add(outs, df.filter("value = 1"))
for i, o in enumerate(outs):
    o.writeStream.format("console").option("checkpointLocation", f"/chk/{i}").start()
"""
    first, maybe = extract_text(job, "job.py").queries
    assert not first.unresolved  # in the list either way
    assert maybe.unresolved  # the item the condition may add: named by what it holds
    new = job.replace('"value = 1"', '"value = 2"')
    assert verdict(job, new)[0] == "review"
    moved = job.replace("import sys\n", "import sys\n# a comment moves every line\n")
    assert verdict(job, moved) == ("compatible", [])


def test_many_appends_to_one_list_keep_memory_linear() -> None:
    # Every version of a list used to stay alive (quadratic memory): 10,000 appends were
    # refused at the 400 MB bound.
    job = """
df = spark.readStream.format("kafka").option("subscribe", "events").load()
acc = []
for i in range(50):
    for j in range(50):
        for k in range(4):
            acc.append(i)
df.writeStream.format("console").option("checkpointLocation", "/chk").start()
"""
    (query,) = extract_text(job, "job.py").queries
    assert not query.unresolved


def test_a_writer_appended_under_a_condition_is_asked_about() -> None:
    # `[w.start() for w in writers]`: the raw writer may be in the list or not. Its checkpoint
    # moved: not a query streamlint can compare, but never silent.
    job = """
import sys
df = spark.readStream.format("kafka").option("subscribe", "events").load()
writers = []
if "--raw" in sys.argv:
    writers.append(df.writeStream.format("parquet").option("path", "/raw")
                   .option("checkpointLocation", "/chk/raw"))
writers.append(df.groupBy("key").count().writeStream.outputMode("update").format("console")
               .option("checkpointLocation", "/chk/counts"))
queries = [w.start() for w in writers]
"""
    new = job.replace('"/chk/raw"', '"/chk/raw2"')
    assert verdict(job, new) == ("review", ["UN03"])
