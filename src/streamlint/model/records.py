"""Plain records without code generation: the part of `dataclasses` streamlint needs.

`dataclasses` compiles `__init__`, `__eq__`, `__hash__`, `__repr__` and the frozen setters
with `exec` for every class: about 0.4 ms a class here, 12 ms for the model and the symbolic
values together, which was a fifth of what `streamlint diff` may add to parsing two files.
These records build the same methods from closures over the field names instead: same
constructor, equality, hashing, repr and immutability, and `replace` / `fields` helpers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class factory:  # noqa: N801 - used like dataclasses.field(default_factory=...)
    """A default made fresh for each record (`attributes: dict = factory(dict)`)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def record(cls: type[T] | None = None, *, frozen: bool = True) -> Any:
    """Make `cls` a record of its annotated fields, in order, like `@dataclass`."""

    def build(cls: type[T]) -> type[T]:
        names = tuple(name for name, hint in cls.__dict__.get("__annotations__", {}).items()
                      if not str(hint).startswith("ClassVar"))
        defaults = {name: cls.__dict__[name] for name in names if name in cls.__dict__}
        for name in defaults:
            delattr(cls, name)  # a default lives here, not as a shared class attribute
        label = cls.__name__
        # The fields equality and hashing read (`__record_compare__`, default all): a field
        # left out only says how the value reads to people, like `field(compare=False)`.
        compared = tuple(cls.__dict__.get("__record_compare__", names))

        __init__ = _constructor(names, defaults, label)

        def __eq__(self: Any, other: Any) -> Any:  # noqa: N807
            if other.__class__ is not self.__class__:
                return NotImplemented
            return all(getattr(self, n) == getattr(other, n) for n in compared)

        def __repr__(self: Any) -> str:  # noqa: N807
            inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
            return f"{label}({inner})"

        cls.__init__ = __init__  # type: ignore[misc]
        cls.__eq__ = __eq__  # type: ignore[method-assign,assignment]
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = __repr__  # type: ignore[method-assign,assignment]
        cls.__record_fields__ = names  # type: ignore[attr-defined]
        if frozen:
            def __hash__(self: Any) -> int:  # noqa: N807
                return hash(tuple(getattr(self, name) for name in compared))

            def __setattr__(self: Any, name: str, value: Any) -> None:  # noqa: N807
                raise AttributeError(f"{label} is immutable: use records.replace()")

            cls.__hash__ = __hash__  # type: ignore[method-assign,assignment]
            cls.__setattr__ = __setattr__  # type: ignore[method-assign,assignment]
            cls.__delattr__ = __setattr__  # type: ignore[method-assign,assignment]
        else:
            cls.__hash__ = None  # type: ignore[assignment]  # mutable: unhashable, like dataclasses
        return cls

    return build if cls is None else build(cls)


def fields(value: Any) -> tuple[str, ...]:
    return type(value).__record_fields__  # type: ignore[no-any-return]


def replace(value: T, **changes: Any) -> T:
    """A copy of a record with some fields changed (`dataclasses.replace`)."""
    current = {name: getattr(value, name) for name in fields(value)}
    current.update(changes)
    return type(value)(**current)


def rebuilt(cls: type[T], values: tuple[Any, ...]) -> T:
    """A record of `cls` from the values of all its fields, in order: what a record held,
    written to a cache and read back, so the constructor's checks are not run again (a
    third of the time of building the rules from their cache)."""
    value = object.__new__(cls)
    value.__dict__.update(zip(cls.__record_fields__, values, strict=True))  # type: ignore[attr-defined]
    return value


def is_record(value: Any) -> bool:
    return hasattr(type(value), "__record_fields__")


def _constructor(names: tuple[str, ...], defaults: dict[str, Any], label: str
                 ) -> Callable[..., None]:
    """The `__init__` of a record: positional or keyword arguments, defaults filled in."""
    count = len(names)
    setter = object.__setattr__
    known = frozenset(names)
    fixed = {n: d for n, d in defaults.items() if not isinstance(d, factory)}
    made = {n: d.make for n, d in defaults.items() if isinstance(d, factory)}

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807
        if not kwargs and len(args) == count:  # the common case, kept cheap
            for name, value in zip(names, args, strict=True):
                setter(self, name, value)
            return
        if len(args) > count:
            raise TypeError(f"{label}() takes {count} arguments, got {len(args)}")
        values = dict(zip(names, args, strict=False)) if args else {}
        if not known.issuperset(kwargs) or (args and not values.keys().isdisjoint(kwargs)):
            extra = next(k for k in kwargs if k not in known or k in values)
            raise TypeError(f"{label}() got an unexpected or repeated argument {extra!r}")
        values.update(kwargs)
        for name in names:
            if name in values:
                setter(self, name, values[name])
            elif name in fixed:
                setter(self, name, fixed[name])
            elif name in made:
                setter(self, name, made[name]())
            else:
                raise TypeError(f"{label}() missing argument {name!r}")

    return __init__
