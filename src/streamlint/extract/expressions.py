"""The interpreter's expressions: literals, names, containers, operators, comprehensions.

An operand type with operators of its own (a column) is looked up in `registry`. A mixin of
`Interpreter` (extract/interpreter.py).
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from streamlint.extract import registry, templates
from streamlint.extract.bindings import ENV_LOOKUP_RE, builtin_value
from streamlint.extract.budget import power_too_big, too_big
from streamlint.extract.dict_keys import possible_keys
from streamlint.extract.positions import children_of
from streamlint.extract.symbolic import choose, digest, is_data, is_plain, text_of
from streamlint.extract.values import BoundMethod, Env, EnvDefault, FunctionRef, Items, Lambda
from streamlint.model import Template, Unknown
from streamlint.model.errors import InputError
from streamlint.model.records import replace


class Expressions:
    # One long function on purpose (tests/test_architecture.py, LONG_FUNCTIONS): a handler a
    # node type costs a Python frame a nesting level, and deep helpers hit the recursion limit.
    def if_expression(self, node: cst.IfExp, env: Env) -> Any:
        env_value = self.env_lookup(node, env)
        if env_value is not None:
            return env_value
        test = self.ev(node.test, env)
        if is_plain(test) and not isinstance(test, EnvDefault):
            return self.ev(node.body if test else node.orelse, env)
        return choose(self.ev(node.body, env), self.ev(node.orelse, env),
                      self.condition(node.test), self.loc(node))

    def env_lookup(self, node: cst.IfExp, env: Env) -> Any:
        """`os.environ["K"] if "K" in os.environ else "d"` is `os.environ.get("K", "d")`: the
        environment variable K with its default (a deployment may set it); None for any other
        conditional expression."""
        test, body = node.test, node.body
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, cst.In)
                and isinstance(body, cst.Subscript) and len(body.slice) == 1
                and isinstance(body.slice[0].slice, cst.Index)):
            return None
        environ = {" ".join(self.code(test.comparisons[0].comparator).split()),
                   " ".join(self.code(body.value).split())}
        if environ != {"os.environ"}:
            return None
        key, item = self.ev(test.left, env), self.ev(body.slice[0].slice.value, env)
        if not isinstance(key, str) or key != item:
            return None
        return registry.call_library(self, FunctionRef("os.environ", "get"),
                                     [key, self.ev(node.orelse, env)], {}, node)

    def ev(self, node: cst.CSTNode, env: Env) -> Any:  # noqa: C901 - one dispatch table
        self.budget.step(self, node)
        if isinstance(node, cst.SimpleString | cst.Integer | cst.Float):
            plain = _plain_string(node)
            if plain is not None:
                return plain
            try:
                return node.evaluated_value
            except (SyntaxError, ValueError) as err:
                # libcst parses a literal Python refuses (`"\\user"`, a truncated \\u escape):
                # the file is not Python, as a syntax error says.
                loc = self.loc(node)
                what = err.msg if isinstance(err, SyntaxError) else str(err)
                raise InputError(loc.path, loc.line or 1, loc.column,
                                 f"syntax error: {what}") from None
        if isinstance(node, cst.ConcatenatedString):
            return self.binary("Add", self.ev(node.left, env), self.ev(node.right, env), node)
        if isinstance(node, cst.FormattedString):
            return self.fstring(node, env)
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.value]
            try:
                return self.latest(env.lookup(node.value))  # a list as changed in place
            except KeyError:
                return builtin_value(node.value)
        if isinstance(node, cst.Attribute):
            return self.latest(self.attribute(self.ev(node.value, env), node.attr.value, node))
        if isinstance(node, cst.Call):
            return self.ev_call(node, env)
        if isinstance(node, cst.Tuple | cst.List | cst.Set):
            items: list[Any] = []
            for element in node.elements:
                value = self.ev(element.value, env)
                if isinstance(element, cst.StarredElement):
                    items.extend(value if isinstance(value, tuple) else [templates.starred(value)])
                else:
                    items.append(value)
            return Items(items) if isinstance(node, cst.List) else tuple(items)
        if isinstance(node, cst.Dict):
            result: dict[Any, Any] = {}
            for element in node.elements:
                if isinstance(element, cst.StarredDictElement):
                    value = self.ev(element.value, env)
                    if isinstance(value, dict):
                        result.update(value)
                    else:
                        result[f"**{self.code(element.value)}"] = Unknown(self.code(element.value))
                else:
                    key = self.ev(element.key, env)
                    result[key if isinstance(key, str | int) else self.code(element.key)] = (
                        self.ev(element.value, env))
            return result
        if isinstance(node, cst.Subscript):
            return self.latest(self.subscript(node, env))
        if isinstance(node, cst.BinaryOperation):
            left, right = self.ev(node.left, env), self.ev(node.right, env)
            result = self.binary(type(node.operator).__name__, left, right, node)
            if isinstance(result, Unknown) and result.text == self.code(node) and not result.unread:
                return self.opaque(node, env)  # `"/chk/" % stamp` names where stamp came from
            return result
        if isinstance(node, cst.UnaryOperation):
            value = self.ev(node.expression, env)
            op = type(node.operator).__name__
            operators = registry.operators_of(value)
            if operators is not None:
                return operators[1](op, value)
            if op == "Not" and is_plain(value):
                return not value
            if op == "Minus" and isinstance(value, int | float):
                return -value
            return Unknown(self.code(node))
        if isinstance(node, cst.Comparison):
            return self.compare(node, env)
        if isinstance(node, cst.BooleanOperation):
            left = self.ev(node.left, env)
            operators = registry.operators_of(left)
            if operators is not None:
                return operators[0](type(node.operator).__name__, left, self.ev(node.right, env))
            if is_plain(left):
                is_and = isinstance(node.operator, cst.And)
                if (is_and and not left) or (not is_and and left):
                    return left
                return self.ev(node.right, env)
            right = self.ev(node.right, env)
            if isinstance(node.operator, cst.Or) and is_plain(right) and right:
                # `os.environ.get(K) or "default"` (or getenv): the default is the static
                # answer, as for os.environ.get(K, "default").
                if isinstance(left, Unknown) and ENV_LOOKUP_RE.match(left.text):
                    return right
                return Unknown(self.code(node))
            return Unknown(self.code(node))
        if isinstance(node, cst.IfExp):
            return self.if_expression(node, env)
        if isinstance(node, cst.Lambda):
            return Lambda(node, env, self.defaults(node.params, env))
        if isinstance(node, cst.Await):
            return self.ev(node.expression, env)
        if isinstance(node, cst.ListComp | cst.GeneratorExp | cst.SetComp | cst.DictComp):
            return self.comprehension(node, env)
        if isinstance(node, cst.NamedExpr):
            value = self.ev(node.value, env)
            self.assign(node.target, value, env)
            return value
        return self.opaque(node, env)

    def comprehension(self, node: cst.ListComp | cst.GeneratorExp | cst.SetComp | cst.DictComp,
                      env: Env) -> Any:
        """`[F.sum(c) for c in METRICS]` over a known list: the list of its results."""
        results: list[Any] = []

        def run(clause: cst.CompFor | None, scope: Env) -> bool:
            if clause is None:
                if isinstance(node, cst.DictComp):
                    results.append((self.ev(node.key, scope), self.ev(node.value, scope)))
                else:
                    results.append(self.ev(node.elt, scope))
                return len(results) <= 200
            items = self.ev(clause.iter, scope)
            if isinstance(items, dict):
                items = tuple(items)
            if not isinstance(items, tuple):
                return False
            for item in items:
                inner = Env(scope)
                self.assign(clause.target, item, inner)
                tests = [self.ev(test.test, inner) for test in clause.ifs]
                if not all(is_plain(t) for t in tests):
                    return False
                if all(tests) and not run(clause.inner_for_in, inner):
                    return False
            return True

        if run(node.for_in, env):
            if isinstance(node, cst.DictComp):
                if all(isinstance(k, str | int) for k, _ in results):
                    return dict(results)
                return self.opaque(node, env)
            return Items(results) if isinstance(node, cst.ListComp) else tuple(results)
        if isinstance(node, cst.DictComp):
            keys = possible_keys(node, lambda part: self.ev(part, env))
            if keys is not None:
                return replace(self.opaque(node, env), keys=keys)
        return self.opaque(node, env)

    def yielded(self, node: cst.Yield, env: Env) -> None:
        """`yield x` in a generator function being called: x is one of its values; `yield
        from xs` yields each of a known sequence, else the sequence as one unknown value."""
        if isinstance(node.value, cst.From):
            items = self.ev(node.value.item, env)
            self.yields[-1].extend(items if isinstance(items, tuple | list) else [items])
        else:
            self.yields[-1].append(None if node.value is None else self.ev(node.value, env))

    def opaque(self, node: cst.CSTNode, env: Env) -> Unknown:
        """An expression streamlint cannot evaluate, with the known values it reads.

        Naming the inputs keeps "unchanged code" honest: if `COLS` changes between versions,
        `[... for c in COLS]` must not compare equal just because its text did not change.
        """
        if isinstance(node, cst.Yield) and self.yields:
            self.yielded(node, env)
            return Unknown("(yield)")  # what the caller sends back: nothing known
        inputs: dict[str, str] = {}
        unread = ""  # what it reads from a file streamlint could not read (`Unknown.unread`)
        pending = [node]
        while pending and len(inputs) < 20:
            current = pending.pop()
            self.budget.step(self, current)  # a walk over the code: work like evaluating it
            if isinstance(current, cst.Name):
                try:
                    value = self.latest(env.lookup(current.value))
                except KeyError:
                    continue
                owner = value.target if isinstance(value, BoundMethod) else value
                unread = unread or (owner.unread if isinstance(owner, Unknown) else "")
                if is_data(value):
                    inputs[current.value] = repr(value)
                elif isinstance(value, Unknown | Template) and text_of(value) != current.value:
                    inputs[current.value] = f"<unresolved: {text_of(value)}>"  # where it came from
                elif isinstance(value, tuple) and value:
                    # DataFrames in a list (`reduce(union, outs)`): what they are counts.
                    inputs[current.value] = f"<#{digest(value)}>"
                elif isinstance(value, BoundMethod) and isinstance(value.target, Unknown):
                    # `uuid4().hex`: an attribute of a value known only at run time
                    inputs[current.value] = f"<unresolved: {value.target.text}.{value.name}>"
            else:
                pending.extend(children_of(current))
        text = shown = self.code(node)
        if inputs:  # what it reads names the value, never how it reads to people
            text += " where " + ", ".join(f"{k} = {v}" for k, v in sorted(inputs.items()))
        return Unknown(text, unread, shown)


    def subscript(self, node: cst.Subscript, env: Env) -> Any:
        target = self.ev(node.value, env)
        element = node.slice[0].slice if len(node.slice) == 1 else None
        if isinstance(element, cst.Slice) and isinstance(target, tuple | str):
            bounds = [None if part is None else self.ev(part, env)
                      for part in (element.lower, element.upper, element.step)]
            if all(b is None or isinstance(b, int) for b in bounds):
                part = target[slice(*bounds)]  # `outs[:]`: a copy, a list of its own
                return Items(part) if isinstance(target, Items) else part
        if not isinstance(element, cst.Index):
            return self.opaque(node, env)
        key = self.ev(element.value, env)
        if isinstance(target, dict) and isinstance(key, str | int) and key in target:
            return target[key]
        if isinstance(target, tuple) and isinstance(key, int) and -len(target) <= key < len(target):
            return target[key]
        if isinstance(target, tuple) and isinstance(key, int) and not isinstance(key, bool):
            # Python would stop here (IndexError), so the list was filled where streamlint did
            # not see all of it (a loop not unrolled, a library's call). What it holds names
            # the item; for a list seen empty, the module's code: an edit there is asked about,
            # never read as the same unknown text twice.
            held = digest(target) if target else self.module_code()
            return Unknown(f"{self.code(node)} (past the {len(target)} items seen in "
                           f"{self.code(node.value)}: #{held})", shown=self.code(node))
        item = registry.get_item(target, key)  # a DataFrame's column, a column's field
        if isinstance(item, Unknown) and item.origin is not None and not item.unread:
            return Unknown(self.code(node), origin=item.origin)  # written as the job does
        if item is not registry.NEXT:
            return item
        # Anything else, an unknown config dict as much as a DataFrame from another module, is
        # not guessed to be a column: it stays unknown, naming what it read.
        return self.opaque(node, env)

    def compare(self, node: cst.Comparison, env: Env) -> Any:
        left = self.ev(node.left, env)
        result: Any = True
        for target in node.comparisons:
            right = self.ev(target.comparator, env)
            op = type(target.operator).__name__
            operators = registry.operators_of(left, right)
            if operators is not None:
                return operators[0](op, left, right)
            if not (is_plain(left) and is_plain(right)) or isinstance(
                    left, EnvDefault) or isinstance(right, EnvDefault):
                return Unknown(self.code(node))  # known only at run time
            try:
                ok = {
                    "Equal": lambda a, b: a == b, "NotEqual": lambda a, b: a != b,
                    "LessThan": lambda a, b: a < b, "GreaterThan": lambda a, b: a > b,
                    "LessThanEqual": lambda a, b: a <= b, "GreaterThanEqual": lambda a, b: a >= b,
                    "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b,
                    "Is": lambda a, b: a is b, "IsNot": lambda a, b: a is not b,
                }[op](left, right)
            except (KeyError, TypeError):
                return Unknown(self.code(node))
            result = result and ok
            left = right
        return result

    def binary(self, op: str, left: Any, right: Any, node: cst.CSTNode) -> Any:
        # A value grown past the bounds (a string doubled sixty times) is not built.
        if op == "Power" and power_too_big(left, right):
            return Unknown(self.code(node))
        value = self._binary(op, left, right, node)
        return Unknown(self.code(node)) if too_big(value) else value

    def _binary(self, op: str, left: Any, right: Any, node: cst.CSTNode) -> Any:
        operators = registry.operators_of(left, right)
        if operators is not None:
            return operators[0](op, left, right)
        if op == "Add":
            if isinstance(left, str) and isinstance(right, str):
                return left + right
            if isinstance(left, int | float) and isinstance(right, int | float):
                return left + right
            if isinstance(left, tuple) and isinstance(right, tuple):
                joined_list = left + right  # `common + [x]`: a new list
                return Items(joined_list) if isinstance(left, Items) else joined_list
            # Built like an f-string's parts, so `a + "/x"` and f"{a}/x" are one value.
            joined = templates.concat(left, right)
            if joined is not None:
                return joined
        if op == "Modulo" and isinstance(left, str) and is_plain(right):
            try:
                return left % right
            except (TypeError, ValueError):
                pass
        if op == "Modulo" and isinstance(left, str):
            formatted = templates.percent_format(left, right)
            if formatted is not None:
                return formatted
        if op == "BitOr" and isinstance(left, dict) and isinstance(right, dict):
            return {**left, **right}
        if isinstance(left, int | float) and isinstance(right, int | float):
            try:
                return {
                    "Multiply": lambda: left * right, "Subtract": lambda: left - right,
                    "FloorDivide": lambda: left // right, "Divide": lambda: left / right,
                    "Power": lambda: left**right,
                }[op]()
            except (KeyError, ZeroDivisionError):
                pass
        return Unknown(self.code(node))

    def fstring(self, node: cst.FormattedString, env: Env) -> Any:
        """A known string, or a `Template` keeping the known text around unresolved parts."""
        value = templates.build([
            part.value if isinstance(part, cst.FormattedStringText) else templates.formatted(
                self.ev(part.expression, env), part.format_spec is None
                and part.conversion is None, lambda part=part: self.code(part)[1:-1])
            for part in node.parts])
        return Unknown(self.code(node)) if too_big(value) else value


# -- helpers ------------------------------------------------------------------------------


def _plain_string(node: cst.CSTNode) -> str | None:
    """The value of a one-line string with no prefix and no escapes, without `ast.literal_eval`
    (which compiles each literal: most of a job's strings are plain)."""
    if not isinstance(node, cst.SimpleString):
        return None
    text = node.value
    quote = text[0]
    if quote not in "'\"" or len(text) < 2 or text[1:2] == quote and len(text) > 2:
        return None  # a prefix, a triple-quoted string: libcst evaluates it
    body = text[1:-1]
    if "\\" in body or quote in body or "\n" in body or "\r" in body:
        return None
    return body

