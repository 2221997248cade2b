"""Inputs for the static fuzz: realistic jobs mutated so they stay valid Python, random
streaming chains built from PySpark's method names, and raw byte mutations.

Every input is a pure function of (seeds, index): `make_input(seeds, i)` gives the same bytes
on every run, so a crash found in a long run is reproduced by its index alone.
"""

from __future__ import annotations

import ast
import copy
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED_DIRS = (ROOT / "tests" / "jobs", ROOT / "tests" / "corpus", ROOT / "examples",
             ROOT / "tests" / "realworld", ROOT / "bench" / "jobs")
# Read only: the corpus being collected on its own branch, when it is on this machine.
EXTRA_SEED_DIRS = (Path("/work/wt/corpus/tests/realworld"),)
FORMATS = ("text", "json", "github", "sarif", "markdown")

# Method names the extractor gives meaning to (and a few it does not): swapping one for another
# lands a call with the wrong number or kind of arguments on a handler.
METHODS = (
    "readStream", "writeStream", "format", "option", "options", "load", "schema", "table",
    "toTable", "start", "trigger", "outputMode", "queryName", "partitionBy", "foreach",
    "foreachBatch", "select", "selectExpr", "filter", "where", "withColumn", "withColumns",
    "withColumnRenamed", "withColumnsRenamed", "drop", "dropDuplicates",
    "dropDuplicatesWithinWatermark", "withWatermark", "groupBy", "groupby", "agg", "count",
    "sum", "max", "min", "avg", "mean", "join", "union", "unionByName", "alias", "as",
    "transform", "applyInPandasWithState", "flatMapGroupsWithState", "transformWithState",
    "transformWithStateInPandas", "mapInPandas", "window", "session_window", "col", "lit",
    "expr", "from_json", "to_json", "cast", "alias", "isin", "distinct", "limit", "repartition",
    "coalesce", "explode", "sql", "conf", "set", "get", "builder", "appName", "getOrCreate",
    "awaitTermination", "cube", "rollup", "pivot", "sortWithinPartitions", "orderBy", "struct",
    "parquet", "json", "csv", "text", "orc", "kafka", "delta", "hint", "observe", "__getitem__",
)
CONSTANTS: tuple[object, ...] = (
    "", "x", "value", "key", "5 minutes", "10 seconds", "1 hour", "0 seconds", "not a duration",
    "kafka", "delta", "parquet", "console", "memory", "foreachBatch", "append", "update",
    "complete", "checkpointLocation", "/tmp/chk", "s3://bucket/chk", "a.b.c", "`a`", "*",
    "inner", "left_outer", "full", "id INT, ts TIMESTAMP", "struct<a:int>", "x" * 300,
    "\x00", "é", "{}", "{x}", 0, 1, -1, 2**63, -(2**63), 10**40, 1.5, float("inf"), True,
    False, None, b"bytes",
)
NAMES = ("spark", "df", "F", "col", "window", "query", "stream", "self", "x", "None", "print",
         "os", "sys", "lambda_", "batch_df", "epoch_id")


def seed_files(extra: bool = True) -> list[Path]:
    """Every job file the fuzz starts from, in a stable order."""
    dirs = SEED_DIRS + (EXTRA_SEED_DIRS if extra else ())
    found: set[Path] = set()
    for folder in dirs:
        if folder.is_dir():
            found.update(p for p in folder.rglob("*.py") if p.is_file())
    return sorted(found)


def load_seeds(extra: bool = True) -> list[tuple[str, bytes, ast.Module | None]]:
    seeds = []
    for path in seed_files(extra):
        data = path.read_bytes()
        if len(data) > 300_000:
            continue
        try:
            tree: ast.Module | None = ast.parse(data)
        except (SyntaxError, ValueError):
            tree = None
        seeds.append((str(path), data, tree))
    return seeds


# ---- mutations that stay valid Python ------------------------------------------------------

class _Collect(ast.NodeVisitor):
    def __init__(self) -> None:
        self.names: list[ast.Name] = []
        self.constants: list[ast.Constant] = []
        self.attributes: list[ast.Attribute] = []
        self.calls: list[ast.Call] = []
        self.bodies: list[list[ast.stmt]] = []
        self.exprs: list[ast.expr] = []

    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            self.names.append(node)
        elif isinstance(node, ast.Constant):
            self.constants.append(node)
        elif isinstance(node, ast.Attribute):
            self.attributes.append(node)
        if isinstance(node, ast.Call):
            self.calls.append(node)
        if isinstance(node, ast.expr) and not isinstance(getattr(node, "ctx", None),
                                                         (ast.Store, ast.Del)):
            self.exprs.append(node)
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                self.bodies.append(body)
        super().generic_visit(node)


def _constant(rng: random.Random, found: list[ast.Constant]) -> object:
    if found and rng.random() < 0.5:
        return rng.choice(found).value
    return rng.choice(CONSTANTS)


def _mutate_tree(tree: ast.Module, rng: random.Random) -> None:
    seen = _Collect()
    seen.visit(tree)
    kind = rng.randrange(10)
    if kind == 0 and seen.names:
        pool = [n.id for n in seen.names] + list(NAMES)
        rng.choice(seen.names).id = rng.choice(pool)
    elif kind == 1 and seen.constants:
        node = rng.choice(seen.constants)
        node.value = _constant(rng, seen.constants)
        node.kind = None
    elif kind == 2 and seen.attributes:
        pool = [a.attr for a in seen.attributes] + list(METHODS)
        rng.choice(seen.attributes).attr = rng.choice(pool)
    elif kind == 3 and seen.bodies:
        body = rng.choice(seen.bodies)
        del body[rng.randrange(len(body))]
        if not body:
            body.append(ast.Pass())
    elif kind == 4 and seen.bodies:
        body = rng.choice(seen.bodies)
        at = rng.randrange(len(body))
        body.insert(rng.randrange(len(body) + 1), copy.deepcopy(body[at]))
    elif kind == 5 and seen.calls:
        call = rng.choice(seen.calls)
        if call.args and rng.random() < 0.6:
            del call.args[rng.randrange(len(call.args))]
        elif call.keywords:
            del call.keywords[rng.randrange(len(call.keywords))]
    elif kind == 6 and seen.calls:
        call = rng.choice(seen.calls)
        extra: ast.expr = (copy.deepcopy(rng.choice(seen.exprs)) if seen.exprs and
                           rng.random() < 0.5 else ast.Constant(_constant(rng, seen.constants)))
        if rng.random() < 0.7:
            call.args.insert(rng.randrange(len(call.args) + 1), extra)
        else:
            call.keywords.append(ast.keyword(rng.choice(("path", "checkpointLocation", "x",
                                                         "processingTime", "how", "on")), extra))
    elif kind == 7 and seen.calls:
        call = rng.choice(seen.calls)
        if len(call.args) > 1:
            rng.shuffle(call.args)
        elif call.args:
            call.args = [ast.Starred(call.args[0], ast.Load())] if rng.random() < 0.3 \
                else call.args * 2
    elif kind == 8 and len(seen.exprs) > 1:
        # Replace one expression by a copy of another (a subtree splice).
        target = rng.choice(seen.exprs)
        source = copy.deepcopy(rng.choice(seen.exprs))
        for parent in ast.walk(tree):
            for field, value in ast.iter_fields(parent):
                if value is target:
                    setattr(parent, field, source)
                    return
                if isinstance(value, list) and any(v is target for v in value):
                    value[[id(v) for v in value].index(id(target))] = source
                    return
    elif seen.exprs:
        # Grow a chain: x -> x.method(args).
        target = rng.choice([e for e in seen.exprs if isinstance(e, (ast.Call, ast.Name,
                                                                     ast.Attribute))] or
                            seen.exprs)
        args = [ast.Constant(_constant(rng, seen.constants)) for _ in range(rng.randrange(3))]
        grown = ast.Call(ast.Attribute(copy.deepcopy(target), rng.choice(METHODS), ast.Load()),
                         args, [])
        for parent in ast.walk(tree):
            for field, value in ast.iter_fields(parent):
                if value is target:
                    setattr(parent, field, grown)
                    return


def mutate_python(tree: ast.Module, rng: random.Random) -> bytes | None:
    tree = copy.deepcopy(tree)
    for _ in range(rng.randint(1, 4)):
        _mutate_tree(tree, rng)
    try:
        text = ast.unparse(ast.fix_missing_locations(tree))
        compile(text, "<mutant>", "exec", dont_inherit=True, flags=ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError, RecursionError, TypeError, AttributeError):
        return None
    return text.encode("utf-8", "surrogatepass")


# ---- random streaming chains ---------------------------------------------------------------

def _arg(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.5:
        return repr(rng.choice(CONSTANTS))
    if roll < 0.7:
        return rng.choice(("F.col('a')", "col('b')", "df.a", "df['c']", "F.window('ts', "
                           "'5 minutes')", "F.expr('a + 1')", "[]", "{}", "{'a': 'b'}",
                           "lambda b, i: None", "sink", "*cols", "**opts", "F.lit(1)"))
    return rng.choice(NAMES)


def random_chain(rng: random.Random) -> bytes:
    """A job made of PySpark calls with arbitrary arguments: the handlers' argument handling."""
    lines = ["from pyspark.sql import SparkSession, functions as F",
             "from pyspark.sql.functions import col, window",
             "spark = SparkSession.builder.getOrCreate()",
             "cols = ['a', 'b']", "opts = {'k': 'v'}",
             "def sink(batch_df, epoch_id):", "    batch_df.write.save('/out')"]
    names = ["df"]
    lines.append("df = spark.readStream.format('kafka').option('subscribe', 't').load()")
    for _ in range(rng.randint(1, 6)):
        receiver = rng.choice(names)
        steps = []
        for _ in range(rng.randint(1, 5)):
            args = ", ".join(_arg(rng) for _ in range(rng.choice((0, 1, 1, 2, 2, 3, 4))))
            if rng.random() < 0.2:
                args += (", " if args else "") + f"{rng.choice(('how', 'on', 'path', 'x'))}" \
                        f"={_arg(rng)}"
            steps.append(f".{rng.choice(METHODS)}({args})")
        name = f"d{len(names)}"
        names.append(name)
        lines.append(f"{name} = {receiver}{''.join(steps)}")
    writer = rng.choice(names)
    tail = "".join(f".{m}({_arg(rng)})" for m in rng.sample(
        ("option", "format", "outputMode", "trigger", "queryName", "partitionBy",
         "foreachBatch", "options"), rng.randint(0, 4)))
    lines.append(f"q = {writer}.writeStream{tail}.option('checkpointLocation', '/c')."
                 f"{rng.choice(('start', 'toTable', 'table', 'start'))}"
                 f"({rng.choice(('', repr('/out'), 'path', '1, 2'))})")
    return ("\n".join(lines) + "\n").encode()


# ---- raw bytes -----------------------------------------------------------------------------

def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        kind = rng.randrange(6)
        at = rng.randrange(len(buf) + 1)
        if kind == 0 and buf:
            buf[min(at, len(buf) - 1)] ^= 1 << rng.randrange(8)
        elif kind == 1:
            buf[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        elif kind == 2 and buf:
            del buf[at:at + rng.randint(1, 64)]
        elif kind == 3:
            del buf[at:]
        elif kind == 4:
            buf[at:at] = rng.choice((b"(", b")", b"[", b"\\", b"'", b'"""', b"\t", b"\r",
                                     b"\xef\xbb\xbf", b"\xff", b"# -*- coding: latin-1 -*-\n",
                                     b"# coding: nonesuch\n", b"\x00", b"\n    "))
        elif buf:
            start = rng.randrange(len(buf))
            chunk = buf[start:start + rng.randint(1, 200)]
            buf[at:at] = chunk
    return bytes(buf)


def _one(seed: tuple[str, bytes, ast.Module | None], rng: random.Random,
         roll: float) -> tuple[bytes, str]:
    path, data, tree = seed
    if roll < 0.55 and tree is not None:
        for _ in range(5):
            mutant = mutate_python(tree, rng)
            if mutant is not None:
                return mutant, "ast"
    if roll < 0.75:
        return random_chain(rng), "chain"
    return mutate_bytes(data, rng), "bytes"


def make_input(seeds: list[tuple[str, bytes, ast.Module | None]], index: int,
               seed: int = 0) -> tuple[str, bytes, bytes, str]:
    """Input `index`: (the seed file, an old version, a new version, how they were made).

    Both versions are mutants of one seed file (or, one time in five, the old one is the seed
    itself), so every diff reads two fuzzed files that resemble each other as versions do.
    """
    rng = random.Random(seed * 10_000_019 + index)
    chosen = seeds[rng.randrange(len(seeds))]
    roll = rng.random()
    new, how = _one(chosen, rng, roll)
    old = chosen[1] if rng.random() < 0.2 else _one(chosen, rng, roll)[0]
    return chosen[0], old, new, how
