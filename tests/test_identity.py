"""Query identity (model/identity.py), tested from model records alone: which old query a new
one continues is decided by the same keys everywhere (the diff of two files, `check` across
files)."""

from __future__ import annotations

from streamlint.diff.compare import compare_queries
from streamlint.diff.match import match_queries
from streamlint.model import Loc, Query, Sink, Template, Unknown
from streamlint.model.identity import (
    QueryKey,
    checkpoint_key,
    key_of,
    keys,
    named,
    owner,
    run_keys,
    started_key,
    writes_checkpoint,
)

HERE = Loc("job.py", 1, 0)


def query(checkpoint: object = None, name: object = None, target: object = None,
          fmt: object = "delta") -> Query:
    sink = Sink(fmt, (), "append", ("default", None), name, (), target, None, checkpoint, HERE)
    return Query((), (), sink, ())


def test_one_directory_is_one_key_however_it_is_spelled() -> None:
    assert key_of(query("/chk/g"), "checkpoint") == key_of(query("/chk/g/"), "checkpoint")
    assert key_of(query("s3a://b/chk"), "checkpoint") == key_of(query("s3://b/chk/"),
                                                                "checkpoint")
    assert key_of(query("/chk/g"), "checkpoint") != key_of(query("/chk/h"), "checkpoint")


def test_keys_come_strongest_first_and_only_when_known() -> None:
    # Where it is started (a run of the file: "") pairs first among queries on one checkpoint.
    assert [(k.kind, k.value) for k in keys(query("/chk/a", "q", "/t/a"))] == [
        ("checkpoint+entry", ("/chk/a", "")), ("checkpoint", "/chk/a"), ("name", "q"),
        ("target", ("delta", "/t/a"))]
    assert keys(query(name="q", fmt=None)) == (QueryKey("name", "q"),)


def test_a_checkpoint_spelled_otherwise_pairs_the_same_query_and_is_no_change() -> None:
    old = (query("/chk/g", target="/t/a"), query("/chk/h", target="/t/b"))
    new = (query("/chk/h/", target="/t/b"), query("/chk/g/", target="/t/a"))
    pairs = match_queries(old, new)
    assert pairs == [(old[1], new[0]), (old[0], new[1])]
    assert all(compare_queries(a, b) == [] for a, b in pairs if a and b)


def test_a_run_starts_a_query_under_one_of_the_keys_the_static_reading_gives_it() -> None:
    """`--confirm`: the key a run of the job starts a query under (spark/writer_patches.py)
    is one of the static query's run keys, however the checkpoint is spelled."""
    static = query("s3a://b/chk/orders/", "orders", "/t/a")
    assert started_key("s3://b/chk/orders", "orders", "/t/a", 0) in run_keys(static, 0)
    assert started_key(None, "orders", "/t/a", 0) in run_keys(static, 0)
    assert started_key(None, None, "/t/a/", 0) in run_keys(static, 0)
    assert started_key(None, None, None, 2) == QueryKey("position", 2)
    assert str(started_key("/chk/a/", None, None, 0)) == "checkpoint:/chk/a"


def test_the_query_that_owns_a_checkpoint() -> None:
    a, b = query("/chk/a"), query("/chk/b")
    assert owner((a, b), checkpoint_key, "/chk/b/") is b
    assert owner((a, b), checkpoint_key, "/tmp/copy/of/a") is a  # copied: its last component
    assert owner((a, b), checkpoint_key, "/elsewhere/c") is None
    assert owner((a,), checkpoint_key, "/elsewhere/c") is a  # the only query
    assert owner((a, query("/other/a")), checkpoint_key, "/copy/a") is None  # two fit


def test_a_person_names_a_query_by_its_name_or_its_checkpoint() -> None:
    named_query = query("s3a://lake/chk/orders/", "orders")
    assert named(named_query, "orders") and not named(named_query, "order")
    assert writes_checkpoint(named_query, "s3://lake/chk/orders")
    assert writes_checkpoint(named_query, "s3a://lake/chk/orders/")
    assert not writes_checkpoint(named_query, "s3://lake/chk/orders_v2")
    at_run_time = query(Template(("", Unknown("root"), "/orders")))
    assert writes_checkpoint(at_run_time, "{root}/orders")
    assert not writes_checkpoint(query(), "None")
