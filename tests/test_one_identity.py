"""One query identity (issue 28): only `streamlint.model.identity` turns a query into a key.

Which query of the old version is which of the new, which checkpoint a query owns, which query
a Spark run started and which one an acceptance entry names: each is asked of
`model/identity.py` (`QueryKey`). A second identity is code elsewhere that makes its own key
from what names a query (its sink's checkpoint, query name or target): compares two queries'
fields, keys a dict or a set by them, builds a key with the path normal forms, or spells a key
as text (`"checkpoint:" + path`, read back later). The syntax trees of every module are read
for those forms; the first test shows that each form, as the code wrote it before this rule,
is found.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "streamlint"
HOME = "model/identity.py"

FIELDS = frozenset({"checkpoint", "query_name", "target"})  # what names a query, on its sink
WRAPPERS = frozenset({"str", "repr", "normal_path", "normal_value", "query_path", "run_path"})
BUILDERS = frozenset({"normal_path", "normal_value", "query_path"})
KEY_TEXT = re.compile(r"(checkpoint|name|target|position):(\S|$)")  # "checkpoint:/chk/a"
LOOKUPS = frozenset({"setdefault", "add", "get", "index", "count"})


class _Finder:
    """The places in one module where a query's identity fields make a key."""

    def __init__(self, tree: ast.AST) -> None:
        self.tree = tree
        self.names: set[str] = set()
        # Names bound straight from a field (`value = query.sink.checkpoint`), so that a key
        # built from the name is found too.
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    pairs = (list(zip(target.elts, node.value.elts, strict=False))
                             if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)
                             else [(target, node.value)])
                    self.names |= {t.id for t, v in pairs
                                   if isinstance(t, ast.Name) and self.field(v)}

    def field(self, node: ast.AST | None) -> bool:
        """`x.sink.checkpoint` (or `query_name`, `target`), as is or in a normal form."""
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Attribute) and node.attr in FIELDS:
            return isinstance(node.value, ast.Attribute) and node.value.attr == "sink"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in WRAPPERS:
            return any(self.field(a) for a in node.args)
        return False

    def found(self) -> list[tuple[int, str]]:
        out = []
        for node in ast.walk(self.tree):
            how = self.how(node)
            if how is not None:
                out.append((getattr(node, "lineno", 0), how))
        return sorted(out)

    def how(self, node: ast.AST) -> str | None:  # noqa: PLR0911 - one answer per form
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and KEY_TEXT.match(node.value):
            return "a key spelled as text"
        if isinstance(node, ast.Compare):
            sides = [self.field(o) for o in (node.left, *node.comparators)]
            for op, left, right in zip(node.ops, sides, sides[1:], strict=False):
                if isinstance(op, ast.Eq | ast.NotEq) and left and right:
                    return "two queries compared by a field"
                if isinstance(op, ast.In | ast.NotIn) and left:
                    return "a field looked up"
        if isinstance(node, ast.Set | ast.SetComp | ast.Dict | ast.DictComp):
            keys = (node.elts if isinstance(node, ast.Set) else
                    [node.elt] if isinstance(node, ast.SetComp) else
                    node.keys if isinstance(node, ast.Dict) else [node.key])
            if any(self.field(k) for k in keys):
                return "a field as a key"
        if isinstance(node, ast.Subscript) and self.field(node.slice):
            return "a field as a key"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in LOOKUPS and node.args and self.field(node.args[0]):
            return "a field as a key"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in BUILDERS and any(self.field(a) for a in node.args):
            return "a key built from a field"
        if isinstance(node, ast.Lambda) and self.field(node.body):
            return "a field as a key function"
        return None


def own_identities(code: str) -> list[tuple[int, str]]:
    return _Finder(ast.parse(code)).found()


# Each form as streamlint wrote it before issue 28 (lines taken from its history).
BEFORE = {
    "diff/pipelines.py": """
partner = next((i for i, q in enumerate(old_flows)
                if i not in taken and q.sink.checkpoint == flow.sink.checkpoint), None)
""",
    "policy/accept.py": """
found |= {str(q.sink.checkpoint) for q in pair if q is not None}
""",
    "checkpoint/job_match.py": """
found = match_checkpoint(job.queries, lambda q: q.sink.checkpoint, checkpoint_path)
""",
    "diff/checkpoints.py": """
def checkpoint_key(query):
    value = query.sink.checkpoint
    return normal_path(value)
""",
    "spark/report.py": """
def _keys(query, position):
    checkpoint, target = query_path(query.sink.checkpoint), query_path(query.sink.target)
    keys = [f"position:{position}"]
""",
    "spark/writer_patches.py": """
key = f"checkpoint:{query_path(checkpoint)}" if checkpoint else f"name:{name}"
""",
    "spark/checkpoint_confirm.py": """
prefix = "checkpoint:"
""",
}


def test_each_second_identity_streamlint_had_is_found() -> None:
    assert {path: bool(own_identities(code)) for path, code in BEFORE.items()} == \
        dict.fromkeys(BEFORE, True)
    # What is not a key: a message that says "checkpoint: ...", a field shown or tested.
    assert own_identities('''
raise UsageError("checkpoint: choose a command: show or offsets")
label = query.sink.query_name or str(query.sink.checkpoint)
if (old.sink.checkpoint is None) == (new.sink.checkpoint is None):
    pass
''') == []


def test_no_module_but_model_identity_makes_a_query_key() -> None:
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        if name != HOME:
            places = own_identities(path.read_text(encoding="utf-8"))
            if places:
                found[name] = places
    assert found == {}
