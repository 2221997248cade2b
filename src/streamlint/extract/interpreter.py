"""A small symbolic interpreter for job files: it follows what a reader would follow.

It walks statements in order, binds names to symbolic values, calls the file's own helper
functions and methods with their real arguments, and leaves everything it cannot know as an
`Unknown` carrying the code that produces it. It never imports or runs the user's code.
PySpark's own semantics live in `pyspark_api`.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Sequence
from typing import Any

import libcst as cst

from streamlint import records
from streamlint.extract import pipelines, templates
from streamlint.extract import pyspark_api as api
from streamlint.extract.budget import UNBOUNDED, power_too_big, too_big
from streamlint.extract.columns import as_col, col_binary, col_method, col_of, col_unary
from streamlint.extract.coverage import escaped
from streamlint.extract.positions import ModuleIndex
from streamlint.extract.values import (
    BoundMethod,
    Builder,
    Class,
    Col,
    Effects,
    Env,
    EnvDefault,
    Function,
    FunctionRef,
    Grouped,
    Instance,
    Lambda,
    ModuleContext,
    ModuleRef,
    Native,
    Partial,
    Plan,
    Reader,
    RepoModule,
    Spark,
    Writer,
)
from streamlint.model import Loc, Template, Unknown

MAX_DEPTH = 40

KNOWN_MODULES = {
    "os", "os.environ", "os.path", "posixpath", "sys", "pyspark", "pyspark.sql",
    "pyspark.sql.functions", "pyspark.sql.types", "pyspark.sql.streaming", "pyspark.sql.connect",
    "pyspark.sql.connect.functions", "pyspark.sql.streaming.state", "datetime", "dataclasses",
    "functools", "dlt", "pyspark.pipelines",
}
_ENV_LOOKUP_RE = re.compile(r"^(?:os\.)?(?:environ\.get|getenv)\(")
FUNCTIONS_MODULES = {"pyspark.sql.functions", "pyspark.sql.connect.functions"}


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class Interpreter:
    def __init__(self, module: cst.Module, path: str, index: ModuleIndex,
                 loader: Any = None) -> None:
        self.module = module
        self.path = path
        self.index = index
        self.effects = Effects()
        self.depth = 0
        self.executed: set[int] = set()
        self.globals = Env()
        self.frames: list[Function] = []
        self.views: dict[str, Plan] = {}  # temp views of DataFrames, for spark.sql
        self.widgets: dict[str, Any] = {}  # a notebook's dbutils.widgets and their defaults
        # Other files whose code runs in this one (a notebook's %run targets), for locations.
        self.files: list[tuple[str, ModuleIndex]] = []
        self.pipeline: Any = None  # pipelines.State once the file uses a pipeline API
        self.globals.names["__name__"] = "__main__"
        # The module whose code runs now (the job, or a module it imported: `modules.py`);
        # `loader` follows imports of the repository's own modules (None: none are followed).
        self.main = ModuleContext(path, "__main__", module, index, self.globals)
        self.context = self.main
        self.contexts: list[ModuleContext] = [self.main]
        self.loader = loader
        self.codes: dict[int, str] = {}
        self.budget: Any = UNBOUNDED  # extract_text gives it a Budget (extract/budget.py)

    # -- positions and text -------------------------------------------------------------

    def loc(self, node: cst.CSTNode) -> Loc:
        if isinstance(node, cst.Call):
            func = node.func
            node = func.attr if isinstance(func, cst.Attribute) else func
        elif isinstance(node, cst.Attribute):
            node = node.attr
        name = _first_name(node)
        if name is None:
            return Loc(self.context.path, 0, 0)
        key = id(name)
        start = self.context.index.starts.get(key)
        if start is not None:
            return Loc(self.context.path, *start)
        # Code of another module running here (a lambda it made, an inherited method), or of
        # a notebook a `%run` read (`self.files`).
        for context in self.contexts:
            start = context.index.starts.get(key)
            if start is not None:
                return Loc(context.path, *start)
        for path, index in self.files:
            if key in index.starts:
                return Loc(path, *index.starts[key])
        return Loc(self.context.path, 0, 0)

    def code(self, node: cst.CSTNode) -> str:
        # Memoized: a helper called N times asks for the same node's code N times, and
        # libcst's code generation is linear in the node's size (extract/budget.py).
        text = self.codes.get(id(node))
        if text is None:
            text = self.codes[id(node)] = " ".join(self.module.code_for_node(node).split())
        return text

    # -- running a file -----------------------------------------------------------------

    def run_module(self) -> None:
        self.run_block(self.module.body, self.globals)
        pipelines.run(self)
        self.run_entry_points()

    def run_entry_points(self) -> None:
        """Run functions and methods nothing in the file calls (`main`, `Job.run`, ...).

        Helpers that are called get their real arguments when their caller runs; running
        them again alone would invent queries with unknown arguments.
        """
        referenced = self.index.references
        for stmt in self.module.body:
            if isinstance(stmt, cst.FunctionDef) and referenced.get(stmt.name.value, 0) <= 1:
                self.run_entry(stmt, self.globals, None)
            elif isinstance(stmt, cst.ClassDef):
                cls = self.globals.names.get(stmt.name.value)
                if not isinstance(cls, Class):
                    continue
                for name, method in cls.methods.items():
                    if name.startswith("__") or referenced.get(name, 0) > 1:
                        continue
                    self.run_entry(method, cls.env, self.entry_instance(cls, stmt))
        # A function handed to code we cannot see (a scheduler, a framework) still runs; so
        # does every function of a file whose streaming is done by the modules it imports
        # (`self._loader.save(df)`, with `save` a repository module's writer).
        via_modules = self.loader is not None and self.loader.streaming
        for node in self.index.functions:
            if id(node) not in self.executed and (via_modules or "writeStream" in self.code(node)):
                owner = None
                cls = self._owning_class(node)
                if cls is not None:
                    owner = self.entry_instance(cls, cls.node)
                self.run_entry(node, cls.env if cls else self.globals, owner)

    def _owning_class(self, node: cst.FunctionDef) -> Class | None:
        for value in self.globals.names.values():
            if isinstance(value, Class) and any(m is node for m in value.methods.values()):
                return value
        return None

    def run_entry(self, node: cst.FunctionDef, env: Env, owner: Instance | None) -> None:
        if id(node) in self.executed:
            return
        params = [p.name.value for p in node.params.params]
        args: list[Any] = [Unknown(p) for p in params[1 if owner is not None else 0 :]]
        result = self.call_function(Function(node, env, owner), args, {}, node)
        # Returned to a caller this file does not show (a framework, another module).
        escaped(self, (result,), f"the caller of {node.name.value}()")

    # -- statements ---------------------------------------------------------------------

    def run_block(self, body: Sequence[cst.CSTNode], env: Env) -> None:
        for stmt in body:
            self.run_statement(stmt, env)

    def run_statement(self, stmt: cst.CSTNode, env: Env) -> None:
        self.budget.step(self, stmt)
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.run_small(small, env)
        elif isinstance(stmt, cst.FunctionDef):
            env.names[stmt.name.value] = Function(stmt, env, defaults=self.defaults(
                stmt.params, env), context=self.context)
            if stmt.decorators:  # a pipeline's table or flow: the runtime calls it
                pipelines.decorated(self, stmt, env.names[stmt.name.value])
        elif isinstance(stmt, cst.ClassDef):
            env.names[stmt.name.value] = self.define_class(stmt, env)
        elif isinstance(stmt, cst.If):
            self.run_if(stmt, env)
        elif isinstance(stmt, cst.For):
            self.run_for(stmt, env)
        elif isinstance(stmt, cst.While):
            self.run_block(stmt.body.body, env)
            if stmt.orelse is not None:
                self.run_block(stmt.orelse.body.body, env)
        elif isinstance(stmt, cst.Match):
            arms = [lambda scope, case=case: self.run_block(case.body.body, scope)
                    for case in stmt.cases]
            self.run_alternatives(env, arms, f"the case of `{self.code(stmt.subject)}`",
                                  self.loc(stmt))
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                value = self.ev(item.item, env)
                if item.asname is not None:
                    self.assign(item.asname.name, value, env)
            self.run_block(stmt.body.body, env)
        elif isinstance(stmt, cst.Try):
            # The try block and each handler are alternatives only the run decides between.
            def attempt(scope: Env) -> None:
                self.run_block(stmt.body.body, scope)
                if stmt.orelse is not None:
                    self.run_block(stmt.orelse.body.body, scope)

            handlers = [lambda scope, h=h: self.run_block(h.body.body, scope)
                        for h in stmt.handlers]
            labels = ", ".join(self.code(h.type) if h.type else "any error"
                               for h in stmt.handlers)
            self.run_alternatives(env, [attempt, *handlers], f"no {labels} is raised",
                                  self.loc(stmt))
            if stmt.finalbody is not None:
                self.run_block(stmt.finalbody.body.body, env)
        elif isinstance(stmt, cst.IndentedBlock):
            self.run_block(stmt.body, env)

    def run_small(self, small: cst.CSTNode, env: Env) -> None:
        if isinstance(small, cst.Assign):
            value = self.ev(small.value, env)
            for target in small.targets:
                self.assign(target.target, value, env)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self.assign(small.target, self.ev(small.value, env), env)
        elif isinstance(small, cst.AugAssign):
            current = self.ev(small.target, env)
            operand = self.ev(small.value, env)
            op = type(small.operator).__name__.replace("Assign", "")
            self.assign(small.target, self.binary(op, current, operand, small), env)
        elif isinstance(small, cst.Expr):
            if not self.mutate(small.value, env):
                self.ev(small.value, env)
        elif isinstance(small, cst.Return):
            raise _Return(None if small.value is None else self.ev(small.value, env))
        elif isinstance(small, cst.Import | cst.ImportFrom) and self.loader is not None and (
                self.loader.run_import(self, small, env)):
            return  # a module of the repository, followed (`modules.py`)
        elif isinstance(small, cst.Import):
            for alias in small.names:
                full = self.code(alias.name)
                if alias.asname is not None:
                    env.names[alias.asname.name.value] = _module_ref(full)
                else:
                    top = full.split(".")[0]
                    env.names[top] = _module_ref(top)
        elif isinstance(small, cst.ImportFrom):
            if small.module is None:
                return
            module = self.code(small.module)
            if isinstance(small.names, cst.ImportStar):
                _import_star(module, env)
                return
            for alias in small.names:
                name = self.code(alias.name)
                bound = alias.asname.name.value if alias.asname else name
                env.names[bound] = _member(module, name)
        elif isinstance(small, cst.Global):
            env.global_names.update(name.name.value for name in small.names)
        elif isinstance(small, cst.Nonlocal | cst.Pass | cst.Break | cst.Continue):
            return

    def mutate(self, expr: cst.BaseExpression, env: Env) -> bool:
        """`aggs.append(...)`, `opts.update(...)`: the name now holds the changed value.

        Lists are tuples here (values never change under a reader's feet), so a mutating
        call rebinds the name. One we cannot compute makes the name unknown rather than
        leaving the old value looking current.
        """
        if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)):
            return False
        method = expr.func.attr.value
        if method not in _MUTATORS:
            return self.configure(expr, env)
        current = self.ev(expr.func.value, env)
        if not isinstance(current, tuple | dict):
            return False
        args = [self.ev(arg.value, env) for arg in expr.args if arg.keyword is None
                and not arg.star]
        kwargs = {arg.keyword.value: self.ev(arg.value, env) for arg in expr.args
                  if arg.keyword is not None}
        updated: Any = None
        if isinstance(current, tuple):
            if method == "append" and len(args) == 1:
                updated = (*current, args[0])
            elif method == "extend" and len(args) == 1 and isinstance(args[0], tuple):
                updated = (*current, *args[0])
            elif method == "insert" and len(args) == 2 and isinstance(args[0], int):
                items = list(current)
                items.insert(args[0], args[1])
                updated = tuple(items)
            elif method == "remove" and len(args) == 1 and args[0] in current:
                items = list(current)
                items.remove(args[0])
                updated = tuple(items)
        elif method == "update" and (not args or isinstance(args[0], dict)):
            updated = {**current, **(args[0] if args else {}), **kwargs}
        elif method == "setdefault" and args:
            updated = {args[0]: args[1] if len(args) > 1 else None, **current}
        elif method == "pop" and args and args[0] in current:
            updated = {k: v for k, v in current.items() if k != args[0]}
        if updated is None:
            updated = self.opaque(expr, env)
        self.assign(expr.func.value, updated, env)
        return True

    def configure(self, expr: cst.Call, env: Env) -> bool:
        """`writer.format("csv").option(...)` or `stream.foreachBatch(f)` as a statement:
        PySpark's DataStreamWriter and DataStreamReader methods change the object itself (and
        return it), so the name (or attribute) now holds the configured builder, as in a
        helper that configures the writer it is given."""
        root: cst.BaseExpression = expr
        while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute):
            root = root.func.value
        if isinstance(root, cst.Name):
            current = env.names.get(root.value)
        elif isinstance(root, cst.Attribute):
            current = self.ev(root, env)
        else:
            return False
        if not isinstance(current, Writer | Reader):
            return False
        result = self.ev(expr, env)
        if isinstance(result, Writer | Reader):
            self.assign(root, result, env)
        return True

    def run_if(self, stmt: cst.If, env: Env) -> None:
        test = self.ev(stmt.test, env)
        orelse = stmt.orelse
        if _is_plain(test) and not isinstance(test, EnvDefault):
            if test:
                self.run_block(stmt.body.body, env)
            elif isinstance(orelse, cst.If):
                self.run_if(orelse, env)
            elif isinstance(orelse, cst.Else):
                self.run_block(orelse.body.body, env)
            return
        # The condition is only known at run time: read both branches, and mark what differs.
        def otherwise(scope: Env) -> None:
            if isinstance(orelse, cst.If):
                self.run_if(orelse, scope)
            elif isinstance(orelse, cst.Else):
                self.run_block(orelse.body.body, scope)

        self.run_alternatives(env, [lambda scope: self.run_block(stmt.body.body, scope),
                                    otherwise], self.code(stmt.test), self.loc(stmt))

    def run_alternatives(self, env: Env, branches: list[Any], condition: str, loc: Loc) -> None:
        """Run each branch from the same state; a name they leave different is a choice."""
        before = dict(env.names)
        outcomes: list[dict[str, Any]] = []
        returned: _Return | None = None
        started: list[list[Writer]] = []
        for branch in branches:
            env.names = dict(before)
            mark = len(self.effects.queries)
            try:
                branch(env)
            except _Return as ret:
                returned = returned or ret
            outcomes.append(dict(env.names))
            started.append(self.effects.queries[mark:])
            del self.effects.queries[mark:]
        kept = _started_in_branches(started, condition, loc)
        for writer in (w for writers in started for w in writers):
            # A branch's query not kept is the kept one's alternative: seen, not lost.
            self.effects.consumed.update(source.loc for source in writer.plan.sources)
            self.effects.alternatives.add(writer.loc)
        self.effects.queries.extend(kept)
        env.names = dict(outcomes[0])
        for name in set().union(*outcomes):
            values = [outcome.get(name, before.get(name)) for outcome in outcomes]
            merged = values[0]
            for other in values[1:]:
                if other is not merged and other != merged:
                    merged = _branch(merged, other, condition, loc)
            env.names[name] = merged
        if returned is not None:
            raise _Return(_branch(returned.value, returned.value, condition, loc))

    def run_for(self, stmt: cst.For, env: Env) -> None:
        items = self.ev(stmt.iter, env)
        if isinstance(items, dict):
            items = tuple(items)
        if isinstance(items, tuple) and 0 < len(items) <= 50:
            for item in items:
                self.assign(stmt.target, item, env)
                self.run_block(stmt.body.body, env)
        else:
            self.assign(stmt.target, Unknown(self.code(stmt.target)), env)
            self.run_block(stmt.body.body, env)
        if stmt.orelse is not None:
            self.run_block(stmt.orelse.body.body, env)

    def assign(self, target: cst.CSTNode, value: Any, env: Env) -> None:
        if isinstance(target, cst.Name):
            if target.value in env.global_names:
                env = self.context.globals
            env.names[target.value] = value
        elif isinstance(target, cst.Tuple | cst.List):
            elements = [e.value for e in target.elements]
            if isinstance(value, tuple) and len(value) == len(elements):
                for element, item in zip(elements, value, strict=True):
                    self.assign(element, item, env)
            else:
                for i, element in enumerate(elements):
                    self.assign(element, Unknown(f"{_text(value)}[{i}]"), env)
        elif isinstance(target, cst.Attribute):
            owner = self.ev(target.value, env)
            if isinstance(owner, Instance | Class):
                owner.attributes[target.attr.value] = value
        elif isinstance(target, cst.Subscript):
            owner = self.ev(target.value, env)
            key = self.ev(target.slice[0].slice.value, env) if target.slice and isinstance(
                target.slice[0].slice, cst.Index) else None
            if isinstance(owner, dict) and isinstance(key, str | int):
                owner[key] = value
            elif isinstance(owner, Unknown) and isinstance(target.value, cst.Name | cst.Attribute):
                # `opts["checkpointLocation"] = path` on options streamlint cannot see: they
                # stay unknown, but what was put in them is part of what they are now.
                self.assign(target.value, Unknown(
                    f"{owner.text} with [{_text(key)}] = {_text(value)}"), env)

    def define_class(self, node: cst.ClassDef, env: Env) -> Class:
        cls = Class(node, env, context=self.context)
        for base in node.bases:
            parent = self.ev(base.value, env)
            if isinstance(parent, Class):
                cls.bases.append(parent)
                cls.attributes.update(parent.attributes)
                cls.methods.update(parent.methods)
                cls.method_defaults.update(parent.method_defaults)
        body_env = Env(env)
        for stmt in node.body.body:
            if isinstance(stmt, cst.FunctionDef):
                cls.methods[stmt.name.value] = stmt
                cls.method_defaults[stmt.name.value] = self.defaults(stmt.params, body_env)
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        cls.attributes.setdefault("__fields__", ())
                        cls.attributes["__fields__"] += (small.target.value,)
                    self.run_small(small, body_env)
        for name, value in body_env.names.items():
            cls.attributes[name] = value
        return cls

    # -- calls --------------------------------------------------------------------------

    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any], node: cst.Call) -> Any:
        if isinstance(func, Function):
            return self.call_function(func, args, kwargs, node)
        if isinstance(func, Lambda):
            env = Env(func.env)
            for i, param in enumerate(func.node.params.params):
                name = param.name.value
                env.names[name] = (args[i] if i < len(args) else kwargs.get(
                    name, func.defaults.get(name, Unknown(name))))
            return self.ev(func.node.body, env)
        if isinstance(func, Native):
            return func.call(self, args, kwargs, node)
        if isinstance(func, Partial):
            return self.call(func.func, [*func.args, *args], {**func.kwargs, **kwargs}, node)
        if isinstance(func, FunctionRef) and func.module in ("builtins", "functools"):
            if func.name == "super":
                return self.super_object()
            if func.name == "getattr" and len(args) >= 2 and isinstance(args[1], str):
                return self.attribute(args[0], args[1], node)
            if func.name == "partial" and args:
                return Partial(args[0], tuple(args[1:]), dict(kwargs))
            if func.name == "reduce" and len(args) >= 2 and isinstance(args[1], tuple):
                items = list(args[1]) if len(args) == 2 else [args[2], *args[1]]
                if not items:
                    return Unknown(self.code(node))
                result = items[0]
                for item in items[1:]:
                    result = self.call(args[0], [result, item], {}, node)
                return result
        if isinstance(func, BoundMethod) and isinstance(func.target, FunctionRef) and (
                func.target.name == "DataFrame" and args):
            # DataFrame.unionByName(a, b), as handed to functools.reduce: a.unionByName(b).
            return api.call_method(self, args[0], func.name, list(args[1:]), kwargs, node)
        if isinstance(func, Class):
            return self.instantiate(func, args, kwargs, node)
        if isinstance(func, BoundMethod):
            return api.call_method(self, func.target, func.name, args, kwargs, node)
        if isinstance(func, FunctionRef):
            return api.call_library(self, func, args, kwargs, node)
        return Unknown(self.code(node))

    def call_function(
        self, func: Function, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode
    ) -> Any:
        if self.depth >= MAX_DEPTH:
            return Unknown(self.code(node))
        self.executed.add(id(func.node))
        env = Env(func.env)
        defaults = func.defaults
        if defaults is None:
            defaults = self.defaults(func.node.params, func.env)
        params = func.node.params
        positional = list(params.posonly_params) + list(params.params)
        values = list(args)
        decorators = {self.code(d.decorator) for d in func.node.decorators}
        if func.owner is not None and "staticmethod" not in decorators:
            owner: Any = func.owner.cls if "classmethod" in decorators else func.owner
            values.insert(0, owner)
        for i, param in enumerate(positional):
            name = param.name.value
            if i < len(values):
                env.names[name] = values[i]
            elif name in kwargs:
                env.names[name] = kwargs.pop(name)
            elif name in defaults:
                env.names[name] = defaults[name]
            else:
                env.names[name] = Unknown(name)
        if isinstance(params.star_arg, cst.Param):
            env.names[params.star_arg.name.value] = tuple(values[len(positional) :])
        for param in params.kwonly_params:
            name = param.name.value
            env.names[name] = kwargs.pop(name, defaults.get(name, Unknown(name)))
        if params.star_kwarg is not None:
            env.names[params.star_kwarg.name.value] = dict(kwargs)
        self.depth += 1
        self.frames.append(func)
        caller = self.context
        if func.context is not None:
            self.context = func.context
        try:
            body = func.node.body
            if isinstance(body, cst.IndentedBlock):
                self.run_block(body.body, env)
            else:
                for small in body.body:
                    self.run_small(small, env)
        except _Return as ret:
            return ret.value
        finally:
            self.depth -= 1
            self.frames.pop()
            self.context = caller
        return None

    def defaults(self, params: cst.Parameters, env: Env) -> dict[str, Any]:
        """Default argument values, evaluated once where the def (or lambda) runs."""
        return {param.name.value: self.ev(param.default, env)
                for param in (*params.posonly_params, *params.params, *params.kwonly_params)
                if param.default is not None}

    def method(self, cls: Class, name: str, owner: Instance | None) -> Function:
        return Function(cls.methods[name], cls.env, owner, defaults=cls.method_defaults.get(name),
                        context=cls.context)

    def super_object(self) -> Any:
        """`super()` in a method: the same object, seen through the defining class's parent."""
        frame = self.frames[-1] if self.frames else None
        if frame is None or frame.owner is None:
            return Unknown("super()")
        defining = next((c for c in _classes_of(frame.owner.cls)
                         if any(stmt is frame.node for stmt in c.node.body.body)), None)
        if defining is None or not defining.bases:
            return Unknown("super()")
        return Instance(defining.bases[0], frame.owner.attributes)

    def entry_instance(self, cls: Class, node: cst.CSTNode) -> Instance:
        """An instance built by code this file does not show: every argument of `__init__` is
        unknown, its defaults included (the caller may well pass `trigger_type=...`)."""
        init = cls.methods.get("__init__")
        if init is None:
            return self.instantiate(cls, [], {}, node)
        params = init.params
        args = [Unknown(p.name.value) for p in (*params.posonly_params, *params.params)[1:]]
        kwargs = {p.name.value: Unknown(p.name.value) for p in params.kwonly_params}
        return self.instantiate(cls, args, kwargs, node)

    def instantiate(
        self, cls: Class, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode
    ) -> Instance:
        instance = Instance(cls, {})
        if "__init__" in cls.methods:
            self.call_function(self.method(cls, "__init__", instance), args, kwargs, node)
        else:  # a dataclass or a plain record: fields by position, then by keyword
            fields = cls.attributes.get("__fields__", ())
            for name, value in zip(fields, args, strict=False):
                instance.attributes[name] = value
            for name, value in kwargs.items():
                instance.attributes[name] = value
            if "__post_init__" in cls.methods:
                self.call_function(self.method(cls, "__post_init__", instance), [], {}, node)
        return instance

    # -- expressions --------------------------------------------------------------------

    def ev(self, node: cst.CSTNode, env: Env) -> Any:  # noqa: C901 - one dispatch table
        self.budget.step(self, node)
        if isinstance(node, cst.SimpleString):
            return node.evaluated_value
        if isinstance(node, cst.Integer | cst.Float):
            return node.evaluated_value
        if isinstance(node, cst.ConcatenatedString):
            return self.binary("Add", self.ev(node.left, env), self.ev(node.right, env), node)
        if isinstance(node, cst.FormattedString):
            return self.fstring(node, env)
        if isinstance(node, cst.Name):
            if node.value in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.value]
            try:
                return env.lookup(node.value)
            except KeyError:
                return _builtin(node.value)
        if isinstance(node, cst.Attribute):
            return self.attribute(self.ev(node.value, env), node.attr.value, node)
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
            return tuple(items)
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
            return self.subscript(node, env)
        if isinstance(node, cst.BinaryOperation):
            left, right = self.ev(node.left, env), self.ev(node.right, env)
            result = self.binary(type(node.operator).__name__, left, right, node)
            if isinstance(result, Unknown) and result.text == self.code(node):
                return self.opaque(node, env)  # `"/chk/" % stamp` names where stamp came from
            return result
        if isinstance(node, cst.UnaryOperation):
            value = self.ev(node.expression, env)
            op = type(node.operator).__name__
            if isinstance(value, Col):
                return col_unary(op, value)
            if op == "Not" and _is_plain(value):
                return not value
            if op == "Minus" and isinstance(value, int | float):
                return -value
            return Unknown(self.code(node))
        if isinstance(node, cst.Comparison):
            return self.compare(node, env)
        if isinstance(node, cst.BooleanOperation):
            left = self.ev(node.left, env)
            if isinstance(left, Col):
                return col_binary(type(node.operator).__name__, left, self.ev(node.right, env))
            if _is_plain(left):
                is_and = isinstance(node.operator, cst.And)
                if (is_and and not left) or (not is_and and left):
                    return left
                return self.ev(node.right, env)
            right = self.ev(node.right, env)
            if isinstance(node.operator, cst.Or) and _is_plain(right) and right:
                # `os.environ.get(K) or "default"` (or getenv): the default is the static
                # answer, as for os.environ.get(K, "default").
                if isinstance(left, Unknown) and _ENV_LOOKUP_RE.match(left.text):
                    return right
                return Unknown(self.code(node))
            return Unknown(self.code(node))
        if isinstance(node, cst.IfExp):
            test = self.ev(node.test, env)
            if _is_plain(test) and not isinstance(test, EnvDefault):
                return self.ev(node.body if test else node.orelse, env)
            return _branch(self.ev(node.body, env), self.ev(node.orelse, env),
                           self.code(node.test), self.loc(node))
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
                if not all(_is_plain(t) for t in tests):
                    return False
                if all(tests) and not run(clause.inner_for_in, inner):
                    return False
            return True

        if run(node.for_in, env):
            if isinstance(node, cst.DictComp):
                if all(isinstance(k, str | int) for k, _ in results):
                    return dict(results)
                return self.opaque(node, env)
            return tuple(results)
        return self.opaque(node, env)

    def opaque(self, node: cst.CSTNode, env: Env) -> Unknown:
        """An expression streamlint cannot evaluate, with the known values it reads.

        Naming the inputs keeps "unchanged code" honest: if `COLS` changes between versions,
        `[... for c in COLS]` must not compare equal just because its text did not change.
        """
        inputs: dict[str, str] = {}
        pending = [node]
        while pending and len(inputs) < 20:
            current = pending.pop()
            self.budget.step(self, current)  # a walk over the code: work like evaluating it
            if isinstance(current, cst.Name):
                try:
                    value = env.lookup(current.value)
                except KeyError:
                    continue
                if _is_data(value):
                    inputs[current.value] = repr(value)
                elif isinstance(value, Unknown | Template) and _text(value) != current.value:
                    inputs[current.value] = f"<unresolved: {_text(value)}>"  # where it came from
                elif isinstance(value, BoundMethod) and isinstance(value.target, Unknown):
                    # `uuid4().hex`: an attribute of a value known only at run time
                    inputs[current.value] = f"<unresolved: {value.target.text}.{value.name}>"
            else:
                pending.extend(current.children)
        text = self.code(node)
        if inputs:
            text += " where " + ", ".join(f"{k} = {v}" for k, v in sorted(inputs.items()))
        return Unknown(text)

    def ev_call(self, node: cst.Call, env: Env) -> Any:
        func = self.ev(node.func, env)
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for arg in node.args:
            value = self.ev(arg.value, env)
            if arg.star == "*":
                args.extend(value if isinstance(value, tuple) else [templates.starred(value)])
            elif arg.star == "**":
                if isinstance(value, dict):
                    kwargs.update({str(k): v for k, v in value.items()})
                else:
                    kwargs[f"**{self.code(arg.value)}"] = (
                        value if isinstance(value, Unknown) else Unknown(self.code(arg.value)))
            elif arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        result = self.call(func, args, kwargs, node)
        if isinstance(result, Unknown):
            target = func.target if isinstance(func, BoundMethod) else None
            escaped(self, (target, *args, *kwargs.values()), self.code(node.func))
        if isinstance(result, Unknown) and result.text == self.code(node):
            return self.opaque(node, env)  # an unknown callee: remember what it was given
        return result

    def attribute(self, target: Any, name: str, node: cst.CSTNode) -> Any:
        if isinstance(target, ModuleRef):
            return _member(target.name, name)
        if isinstance(target, RepoModule):
            return self.loader.member(self, target, name, node)
        if isinstance(target, FunctionRef) and target.name == "SparkSession":
            if name == "builder":
                return Builder()
            return BoundMethod(Spark(), name)
        if isinstance(target, Instance):
            if name in target.attributes:
                return target.attributes[name]
            if name in target.cls.methods:
                method = target.cls.methods[name]
                func = self.method(target.cls, name, target)
                decorators = {self.code(d.decorator) for d in method.decorators}
                if "property" in decorators or "cached_property" in decorators:
                    return self.call_function(func, [], {}, node)
                return func
            if name in target.cls.attributes:
                return target.cls.attributes[name]
            return Unknown(self.code(node))
        if isinstance(target, Class):
            if name in target.attributes:
                return target.attributes[name]
            if name in target.methods:
                decorators = {self.code(d.decorator) for d in target.methods[name].decorators}
                # `Job.start()` on a @classmethod still gets the class as `cls`.
                owner = Instance(target, target.attributes) if "classmethod" in decorators else None
                return self.method(target, name, owner)
            return Unknown(self.code(node))
        if isinstance(target, dict) and name in ("get", "items", "keys", "values"):
            return BoundMethod(target, name)
        return api.get_attribute(self, target, name, node)

    def subscript(self, node: cst.Subscript, env: Env) -> Any:
        target = self.ev(node.value, env)
        element = node.slice[0].slice if len(node.slice) == 1 else None
        if isinstance(element, cst.Slice) and isinstance(target, tuple | str):
            bounds = [None if part is None else self.ev(part, env)
                      for part in (element.lower, element.upper, element.step)]
            if all(b is None or isinstance(b, int) for b in bounds):
                return target[slice(*bounds)]
        if not isinstance(element, cst.Index):
            return self.opaque(node, env)
        key = self.ev(element.value, env)
        if isinstance(target, dict) and isinstance(key, str | int) and key in target:
            return target[key]
        if isinstance(target, tuple) and isinstance(key, int) and -len(target) <= key < len(target):
            return target[key]
        if isinstance(target, Plan) and isinstance(key, str):
            return col_of(key)
        if isinstance(target, Col) and isinstance(key, str | int):
            return col_method(target, "getItem", [key])
        # Anything else, an unknown config dict as much as a DataFrame from another module, is
        # not guessed to be a column: it stays unknown, naming what it read.
        return self.opaque(node, env)

    def compare(self, node: cst.Comparison, env: Env) -> Any:
        left = self.ev(node.left, env)
        result: Any = True
        for target in node.comparisons:
            right = self.ev(target.comparator, env)
            op = type(target.operator).__name__
            if isinstance(left, Col) or isinstance(right, Col):
                left_col = as_col(left) if isinstance(left, Col) else left
                return col_binary(op, left_col, right)
            if not (_is_plain(left) and _is_plain(right)) or isinstance(
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
        if isinstance(left, Col) or isinstance(right, Col):
            return col_binary(op, left, right)
        if op == "Add":
            if isinstance(left, str) and isinstance(right, str):
                return left + right
            if isinstance(left, int | float) and isinstance(right, int | float):
                return left + right
            if isinstance(left, tuple) and isinstance(right, tuple):
                return left + right
            # Built like an f-string's parts, so `a + "/x"` and f"{a}/x" are one value.
            joined = templates.concat(left, right)
            if joined is not None:
                return joined
        if op == "Modulo" and isinstance(left, str) and _is_plain(right):
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


def _is_plain(value: Any) -> bool:
    return isinstance(value, str | int | float | bool | tuple) or value is None


def _text(value: Any) -> str:
    if isinstance(value, Unknown):
        return value.text
    if isinstance(value, Template):
        return str(value)
    if isinstance(value, str):
        return value
    return repr(value)


def _module_ref(name: str) -> Any:
    if name.startswith("pyspark.sql.connect.functions"):
        name = "pyspark.sql.functions"
    return ModuleRef(name) if name in KNOWN_MODULES else Unknown(name)


def _member(module: str, name: str) -> Any:
    full = f"{module}.{name}"
    if full in KNOWN_MODULES:
        return _module_ref(full)
    if module in FUNCTIONS_MODULES:
        return FunctionRef("pyspark.sql.functions", name)
    if module in KNOWN_MODULES or module.startswith("pyspark"):
        return FunctionRef(module, name)
    return Unknown(name)


def _import_star(module: str, env: Env) -> None:
    """`from pyspark.sql.functions import *` binds PySpark's own list of names, no others.

    Any other module's star import binds nothing we can know; its names stay unknown.
    """
    from streamlint.extract import pyspark_names

    if module in FUNCTIONS_MODULES:
        names, module = pyspark_names.FUNCTIONS, "pyspark.sql.functions"
    elif module == "pyspark.sql.types":
        names = pyspark_names.TYPES
    elif module in pipelines.MODULES:
        names = pipelines.STAR_NAMES
    else:
        return
    for name in names:
        env.names[name] = FunctionRef(module, name)


def _builtin(name: str) -> Any:
    if name in ("str", "int", "float", "dict", "list", "tuple", "len", "bool", "sorted", "set",
                "enumerate", "zip", "range", "super", "getattr", "display"):
        return FunctionRef("builtins", name)
    return Unknown(name)


_LOC_RE = re.compile(r"Loc\(path='[^']*', line=\d+, column=\d+\)")


def _digest(value: Any) -> str:
    """A short, location-free fingerprint of a DataFrame's shape (sources and operators),
    with what a grouping or a writer adds; only plain records go in, so it is stable."""
    if isinstance(value, Plan):
        parts: Any = (value.sources, value.operators)
    elif isinstance(value, Grouped):
        parts = (value.plan.sources, value.plan.operators, value.method, value.keys)
    elif isinstance(value, Writer):
        parts = (value.plan.sources, value.plan.operators, value.format, value.options,
                 value.output_mode, value.trigger)
    else:
        parts = value if _is_data(value) else type(value).__name__
    return f"{binascii.crc32(_LOC_RE.sub('', repr(parts)).encode()):08x}"


def _branch(first: Any, second: Any, condition: str, loc: Loc) -> Any:
    """The value of a name that a run-time condition chooses between.

    A DataFrame (or its grouping, or its writer) is followed through one branch, and the
    query carries a note that the other branch may run instead: never a silent guess.
    """
    chosen = first if isinstance(first, Plan | Grouped | Writer) else second
    if isinstance(chosen, Plan | Grouped | Writer):
        branch = "first" if chosen is first else "other"
        other = second if chosen is first else first
        # The branch not read still counts: its shape, as a short digest, is part of the note,
        # so a change there makes the note differ between versions (and the diff ask).
        note = (f"the DataFrame depends on the run-time condition `{condition}`"
                f" (streamlint read the {branch} branch; the other is #{_digest(other)})", loc)
        plan = chosen if isinstance(chosen, Plan) else chosen.plan
        noted = records.replace(plan, unresolved=(*plan.unresolved, note))
        if isinstance(chosen, Plan):
            return noted
        return records.replace(chosen, plan=noted)
    if isinstance(first, Reader | Function | Instance):
        return first
    if first == second:
        return first
    return Unknown(f"{_text(first)} if {condition} else {_text(second)}")


def _started_in_branches(started: list[list[Writer]], condition: str, loc: Loc) -> list[Writer]:
    """The queries the branches of a run-time condition start. Only one branch runs, so
    when several start queries (`if not partition_keys: ...toTable(t) else:
    ...partitionBy(k).toTable(t)`), the first branch's are the query and carry a note with
    the others' shape, which makes a change there a finding (as `_branch` does for values)."""
    starting = [writers for writers in started if writers]
    if len(starting) <= 1:
        return [w for writers in started for w in writers]
    others = tuple(w for writers in starting[1:] for w in writers)
    note = (f"the query depends on the run-time condition `{condition}` (streamlint read the "
            f"first branch that starts one; the others are "
            f"#{_digest(tuple(_digest(w) for w in others))})", loc)
    return [records.replace(w, plan=records.replace(w.plan, unresolved=(*w.plan.unresolved,
                                                                        note)))
            for w in starting[0]]


def _first_name(node: cst.CSTNode) -> cst.Name | None:
    """The first name written inside a statement or expression (only names have positions).

    Depth-first in source order: a statement's first child is often whitespace (`if` is
    followed by a space before its test), so taking the first child alone finds nothing.
    """
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            return current
        children = [c for c in current.children if not isinstance(c, cst.Decorator)]
        stack.extend(reversed(children))
    return None


_MUTATORS = {"append", "extend", "insert", "remove", "update", "setdefault", "pop"}


def _is_data(value: Any) -> bool:
    """Plain data worth naming in an unknown's text (never a symbolic object)."""
    if isinstance(value, str | int | float | bool) or value is None:
        return True
    if isinstance(value, tuple):
        return all(_is_data(v) for v in value)
    if isinstance(value, dict):
        return all(_is_data(k) and _is_data(v) for k, v in value.items())
    return False


def _classes_of(cls: Class) -> list[Class]:
    """A class and its ancestors defined in the file, nearest first."""
    order, pending = [], [cls]
    while pending:
        current = pending.pop(0)
        if all(current is not seen for seen in order):
            order.append(current)
            pending.extend(current.bases)
    return order
