"""The record helper behaves like the frozen dataclasses it replaces."""

from __future__ import annotations

import pytest

from streamlint.model.records import factory, fields, is_record, record, replace


@record
class Point:
    """A frozen record with a default."""

    x: int
    y: int = 0


@record(frozen=False)
class Bag:
    """A mutable record with a fresh default per instance."""

    items: list = factory(list)  # type: ignore[assignment]


def test_construction_defaults_and_repr() -> None:
    assert Point(1) == Point(x=1, y=0) != Point(1, 2)
    assert repr(Point(1, 2)) == "Point(x=1, y=2)"
    assert fields(Point(1)) == ("x", "y") and is_record(Point(1)) and not is_record(1)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError):
        Point()
    with pytest.raises(TypeError):
        Point(1, 2, 3)
    with pytest.raises(TypeError):
        Point(1, x=2)
    with pytest.raises(TypeError):
        Point(1, z=2)


def test_frozen_hashable_and_replace() -> None:
    p = Point(1, 2)
    with pytest.raises(AttributeError):
        p.x = 5  # type: ignore[misc]
    assert {p: "a"}[Point(1, 2)] == "a"
    assert replace(p, y=9) == Point(1, 9) and p == Point(1, 2)
    assert Point(1, 2) != (1, 2)


def test_mutable_records_get_fresh_defaults_and_are_unhashable() -> None:
    a, b = Bag(), Bag()
    a.items.append(1)
    assert b.items == [] and a.items == [1]
    with pytest.raises(TypeError):
        hash(a)
