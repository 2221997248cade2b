"""Import contracts: the architecture as the imports really are (grimp reads them statically).

The parts of streamlint import each other in one direction only, the model is a leaf, and each
heavy or optional library is imported by the one part whose job it is: pyspark by spark/ (the
static path never loads it), libcst and nbformat by the Python front end, sqlglot by the SQL
front end, fsspec by checkpoint storage. Imports under `if TYPE_CHECKING:` are not imports at
run time and are not counted.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

# No cache: a cached graph outlives the edits it should see.
GRAPH = grimp.build_graph("streamlint", include_external_packages=True,
                          exclude_type_checking_imports=True, cache_dir=None)
OURS = sorted(m for m in GRAPH.modules if m.startswith("streamlint"))

# library -> the modules allowed to import it (a prefix ending in "." is a package)
OWNERS = {
    "pyspark": ("streamlint.spark.",),
    "libcst": ("streamlint.extract.", "streamlint.extract"),
    "nbformat": ("streamlint.extract.", "streamlint.extract"),
    "sqlglot": ("streamlint.extract.sql.", "streamlint.extract.sql"),
    "fsspec": ("streamlint.checkpoint.fs",),
}


def _part(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _owned(module: str, owners: tuple[str, ...]) -> bool:
    return any(module.startswith(o) if o.endswith(".") else module == o for o in owners)


@pytest.mark.parametrize("library", sorted(OWNERS))
def test_each_library_is_imported_by_its_owner_only(library: str) -> None:
    if library not in GRAPH.modules:
        return  # nothing imports it: nothing to police
    importers = GRAPH.find_modules_that_directly_import(library)
    assert sorted(m for m in importers if not _owned(m, OWNERS[library])) == []


def test_no_cycles_between_parts() -> None:
    edges = {(_part(m), _part(i)) for m in OURS for i in GRAPH.find_modules_directly_imported_by(m)
             if i.startswith("streamlint") and _part(m) != _part(i)}
    assert sorted((a, b) for a, b in edges if (b, a) in edges and a < b) == []


def test_no_module_imports_itself_through_others() -> None:
    """0 import cycles between modules, counting the imports inside functions (grimp reads
    them too): a circle closed by a lazy import is still a circle (issue 28)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in GRAPH.find_modules_directly_imported_by(module):
            if not other.startswith("streamlint"):
                continue
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            circle = []
            while True:
                other = stack.pop()
                circle.append(other)
                if other == module:
                    break
            if len(circle) > 1:
                circles.append(sorted(circle))

    for module in OURS:
        if module not in index:
            visit(module)
    assert circles == []


def test_the_model_is_a_leaf() -> None:
    allowed = {"streamlint.model.records"}
    for module in (m for m in OURS if _part(m) == "streamlint.model"):
        imported = {i for i in GRAPH.find_modules_directly_imported_by(module)
                    if i.startswith("streamlint") and _part(i) != "streamlint.model"}
        assert imported <= allowed, module


def test_the_contracts_see_the_code() -> None:
    """The graph is of this source tree: it knows the modules the contracts speak of."""
    assert {"streamlint.spark.sandbox", "streamlint.extract.interpreter",
            "streamlint.model.expr", "streamlint.checkpoint.fs"} <= set(OURS)
    assert "streamlint.spark.sandbox" in GRAPH.find_modules_that_directly_import("pyspark") or \
        "pyspark" in GRAPH.find_modules_directly_imported_by("streamlint.spark.runtime")


def test_every_module_imports_first() -> None:
    """Each module imports on its own, as the first of the package's modules to load: a name
    moved between modules and not re-exported shows here, and so does a circle that only
    works in one order (one closed through a package's `__init__`, which the graph above
    does not draw: `extract.platform` importing PySpark's writer, whose package imported
    `extract.platform` back, failed whenever `spark.confirm` was imported first). One
    process, the package's modules forgotten before each import; other libraries stay loaded."""
    script = (
        "import importlib, sys\n"
        "failed = []\n"
        "for module in sys.argv[1:]:\n"
        "    for loaded in [m for m in sys.modules if m.split('.')[0] == 'streamlint']:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(module)\n"
        "    except Exception as err:\n"
        "        failed.append(f'{module}: {type(err).__name__}: {err}')\n"
        "print('\\n'.join(failed))\n")
    modules = sorted(m for m in OURS if not m.endswith("__main__"))
    done = subprocess.run([sys.executable, "-c", script, *modules], capture_output=True,
                          text=True, check=True,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.stdout.strip() == ""


def test_the_interpreter_knows_no_library() -> None:
    """The symbolic interpreter dispatches to what libraries do through `extract.registry`:
    neither it nor the libraries' knowledge imports the other (issue 11)."""
    pairs = [("streamlint.extract.pyspark_api", "streamlint.extract.interpreter"),
             ("streamlint.extract.interpreter", "streamlint.extract.pyspark_api"),
             ("streamlint.extract.interpreter", "streamlint.extract.python_api"),
             ("streamlint.extract.interpreter", "streamlint.extract.pipelines"),
             ("streamlint.extract.interpreter", "streamlint.extract.pipeline_datasets")]
    assert [p for p in pairs if GRAPH.find_shortest_chain(importer=p[0], imported=p[1])] == []


def test_no_module_grows_past_four_hundred_lines() -> None:
    """Every module of the package, not only the interpreter's and PySpark's: one past 400
    lines is split by what it does (issue 28), never into part one and part two."""
    src = Path(__file__).resolve().parents[1] / "src" / "streamlint"
    sizes = {path.relative_to(src).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in src.rglob("*.py")}
    assert "extract/interpreter.py" in sizes and "diff/compare.py" in sizes  # the package's own
    assert {name: size for name, size in sizes.items() if size > 400} == {}


# Functions longer than about 60 lines, each with the length it may not exceed; a new one is
# split rather than listed here. One is kept on purpose: the interpreter's `ev`, its inner
# loop. Split into a table of handlers, it cost one more Python frame per nesting level, and a
# helper calling itself (tests/test_bounds.py::
# test_a_cast_to_a_dataframe_built_by_its_own_helper_is_answered) hit the recursion limit
# and was refused as "nested too deeply" instead of answered.
LONG_FUNCTIONS: dict[tuple[str, str], int] = {("extract/expressions.py", "ev"): 109}


def test_no_function_grows_past_sixty_lines() -> None:
    import ast
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "src" / "streamlint"
    found = {}
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > 60:
                    found[(path.relative_to(src).as_posix(), node.name)] = length
    assert {k: v for k, v in found.items() if v > LONG_FUNCTIONS.get(k, 60)} == {}
    # a function split below the line leaves the list, so that the list only shrinks
    assert sorted(set(LONG_FUNCTIONS) - set(found)) == []


def test_the_import_linter_contracts_hold(capsys: pytest.CaptureFixture[str]) -> None:
    """The layers as declared in pyproject.toml ([tool.importlinter]), checked by
    import-linter itself: the form the ecosystem reads, beside the grimp checks above."""
    config = Path(__file__).resolve().parents[1] / "pyproject.toml"
    status = lint_imports(config_filename=str(config), no_cache=True, no_logo=True)
    out = capsys.readouterr().out
    assert status == 0, out
    assert "0 broken" in out and "3 kept" in out
