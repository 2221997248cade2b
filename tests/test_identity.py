"""Query identity (model/identity.py), tested from model records alone: which old query a new
one continues is decided by the same keys everywhere (the diff of two files, `check` across
files)."""

from __future__ import annotations

from streamlint.diff.compare import compare_queries
from streamlint.diff.match import match_queries
from streamlint.model import Loc, Query, Sink
from streamlint.model.identity import QueryKey, key_of, keys

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
