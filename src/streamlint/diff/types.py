"""The type of an output column, where the code states it: a cast, a literal, a function whose
result type is fixed (`current_date()` is a date, `current_timestamp()` a timestamp, `hash()`
an int). Two versions that write a column of the same name with another stated type change
the output schema as surely as a renamed column does (a Delta table or a pipeline's streaming
table refuses the new type, a file sink writes files of two schemas)."""

from __future__ import annotations

from collections.abc import Sequence

from streamlint.model import Operator, Projection
from streamlint.model.expr import Alias, Call, Cast, Column, Expr, Literal, Star
from streamlint.model.schema_text import split_top_level

# Functions whose result type does not depend on their arguments.
_RESULT = {
    "current_date": "date", "curdate": "date", "to_date": "date", "date_add": "date",
    "date_sub": "date", "last_day": "date", "next_day": "date",
    "current_timestamp": "timestamp", "now": "timestamp", "to_timestamp": "timestamp",
    "date_trunc": "timestamp", "from_unixtime": "string", "localtimestamp": "timestamp_ntz",
    "unix_timestamp": "bigint", "monotonically_increasing_id": "bigint", "xxhash64": "bigint",
    "count": "bigint", "hash": "int", "length": "int", "year": "int", "month": "int",
    "dayofmonth": "int", "hour": "int", "minute": "int", "second": "int",
    "to_json": "string", "concat": "string", "concat_ws": "string", "upper": "string",
    "lower": "string", "trim": "string", "date_format": "string", "md5": "string",
    "sha1": "string", "sha2": "string", "uuid": "string", "input_file_name": "string",
    "current_user": "string", "format_string": "string", "regexp_replace": "string",
}
# Functions that parse text with a schema given as their second argument: the result has it.
_PARSED = {"from_json", "from_csv", "from_xml"}
# Functions whose result has their first argument's type.
_SAME_AS_ARGUMENT = {"abs", "coalesce", "greatest", "least", "nvl", "ifnull"}
_SPELLINGS = {"long": "bigint", "integer": "int", "short": "smallint", "byte": "tinyint",
              "float": "float", "double": "double", "str": "string", "bool": "boolean"}


def stated_type(expr: Expr) -> str | None:
    """The type the code states for `expr`'s values; None where it depends on input."""
    if isinstance(expr, Alias):
        return stated_type(expr.operand)
    if (isinstance(expr, Call) and expr.function.lower() in _PARSED and len(expr.args) > 1
            and isinstance(expr.args[1], Literal) and isinstance(expr.args[1].value, str)
            and expr.args[1].value.startswith("struct<")):
        return expr.args[1].value  # the schema the text is parsed with
    if isinstance(expr, Cast):
        to = str(expr.to).strip().lower()
        return _SPELLINGS.get(to, to)
    if isinstance(expr, Literal):
        value = expr.value
        if isinstance(value, bool):
            return "boolean"
        return {int: "int", float: "double", str: "string"}.get(type(value))
    if isinstance(expr, Call):
        function = expr.function.lower()
        if function in _RESULT:
            return _RESULT[function]
        if function in _SAME_AS_ARGUMENT and expr.args:
            return stated_type(expr.args[0])
        if function == "collate" and len(expr.args) == 2:  # F.collate(c, "UNICODE"), SQL COLLATE
            name = expr.args[1]
            collation = name.value if isinstance(name, Literal) else getattr(name, "name", None)
            return f"string collate {collation.lower()}" if isinstance(collation, str) else None
    return None


def column_types(operators: Sequence[Operator]) -> dict[str, str | None]:
    """For each column a projection defines (withColumn, an aliased select item), the type
    the code states for the last definition; a column passed through keeps its own."""
    types: dict[str, str | None] = {}
    for op in operators:
        if not isinstance(op, Projection):
            continue
        if op.method in ("select", "selectExpr", "toDF"):
            kept: dict[str, str | None] = {}
            for expr in op.exprs:
                if isinstance(expr, Alias):
                    kept[expr.name] = stated_type(expr.operand)
                elif isinstance(expr, Column) and expr.name in types:
                    kept[expr.name] = types[expr.name]
                elif isinstance(expr, Star) and expr.qualifier is not None:
                    kept.update(struct_fields(types.get(expr.qualifier)))
            types = kept
        elif op.method == "drop":
            for expr in op.exprs:
                if isinstance(expr, Column):
                    types.pop(expr.name, None)
                elif isinstance(expr, Literal) and isinstance(expr.value, str):
                    types.pop(expr.value, None)
        else:
            for expr in op.exprs:
                if isinstance(expr, Alias):
                    types[expr.name] = stated_type(expr.operand)
    return types


def struct_fields(struct: str | None) -> dict[str, str | None]:
    """Each field of a `struct<name:type,...>` and its type (`select("data.*")` after
    `from_json(..., schema).alias("data")` makes one column per field, of the field's type)."""
    if not struct or not struct.startswith("struct<") or not struct.endswith(">"):
        return {}
    fields: dict[str, str | None] = {}
    for item in split_top_level(struct[len("struct<"):-1]):
        name, colon, type_text = item.partition(":")
        if colon:
            to = type_text.lower().split(" not null")[0].strip()
            fields[name.strip().strip("`")] = _SPELLINGS.get(to, to)
    return fields


def changed_types(old: Sequence[Operator], new: Sequence[Operator],
                  columns: Sequence[str] | None) -> list[tuple[str, str, str]]:
    """(column, old type, new type) of the output columns whose stated type changed (of the
    columns both versions define, when the output's names are not all known)."""
    before, after = column_types(old), column_types(new)
    found = []
    for name in columns if columns is not None else [n for n in after if n in before]:
        a, b = before.get(name), after.get(name)
        if a is not None and b is not None and a != b:
            found.append((name, a, b))
    return found


# Types whose values another of the same family holds all of, smallest first: a column moved
# down its family (bigint -> int, double -> float, timestamp -> date) is narrowed. Databricks
# widens a streaming table's column in place (ALTER COLUMN ... TYPE with type widening) but
# never narrows one: a narrowed column needs the table's full refresh.
_FAMILIES = (("tinyint", "smallint", "int", "bigint"), ("float", "double"),
             ("date", "timestamp"))


def _decimal(text: str) -> tuple[int, int] | None:
    """(precision, scale) of `decimal(p,s)` (`decimal` alone is Spark's decimal(10,0))."""
    if text == "decimal":
        return 10, 0
    if not (text.startswith("decimal(") and text.endswith(")")):
        return None
    parts = [p.strip() for p in text[len("decimal("):-1].split(",")]
    if not all(p.isdigit() for p in parts) or len(parts) not in (1, 2):
        return None
    return int(parts[0]), int(parts[1]) if len(parts) == 2 else 0


def narrowed(old: str, new: str) -> bool:
    """Whether a column of type `old` retyped `new` may no longer hold its old values: down
    an integral, floating or date-time family, a decimal with fewer digits either side of
    the point, or a fractional number (floating, or a decimal with a scale) made integral."""
    old, new = old.replace(" ", "").lower(), new.replace(" ", "").lower()
    for family in _FAMILIES:
        if old in family and new in family:
            return family.index(new) < family.index(old)
    was, now = _decimal(old), _decimal(new)
    if was is not None and now is not None:
        return now[1] < was[1] or now[0] - now[1] < was[0] - was[1]
    fractional = old in ("float", "double") or (was is not None and was[1] > 0)
    return fractional and new in _FAMILIES[0]


# Delta's type widening (Databricks, "Type widening", Databricks Runtime 15.4 LTS and above;
# Delta Lake 4.0): the only type changes a Delta table's column takes in place. Any other
# change of a streaming table's column type is one Databricks lists as needing the table's
# full refresh ("Full refresh for streaming tables": schema changes).
_WIDER = {"tinyint": ("smallint", "int", "bigint", "decimal", "double"),
          "smallint": ("int", "bigint", "decimal", "double"),
          "int": ("bigint", "decimal", "double"), "bigint": ("decimal",),
          "float": ("double",), "date": ("timestamp_ntz",)}
_SPELLINGS = {"byte": "tinyint", "short": "smallint", "integer": "int", "long": "bigint",
              "real": "float", "timestampntz": "timestamp_ntz"}
# The smallest decimal that holds every value of an integral type (Databricks: "The minimum
# target for byte, short, and int types is decimal(10,0). The minimum target for long is
# decimal(20,0).").
_INTEGRAL_DIGITS = {"tinyint": 10, "smallint": 10, "int": 10, "bigint": 20}


def widened(old: str, new: str) -> bool:
    """Whether Delta's type widening takes a column from type `old` to `new` in place."""
    old, new = (_SPELLINGS.get(t, t) for t in (old.replace(" ", "").lower(),
                                                  new.replace(" ", "").lower()))
    if old == new:  # one type, spelled two ways
        return True
    was, now = _decimal(old), _decimal(new)
    if now is not None and was is not None:  # decimal(p, s) -> decimal(p + k1, s + k2)
        return now[0] - was[0] >= now[1] - was[1] >= 0
    if now is not None:
        return "decimal" in _WIDER.get(old, ()) and now[0] - now[1] >= _INTEGRAL_DIGITS[old]
    return new in _WIDER.get(old, ())
