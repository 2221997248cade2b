"""The interpreter's calls: functions, lambdas, classes and their instances, attributes.

A call or an attribute on an object the interpreter does not define itself (a library's) is
looked up in `registry`. A mixin of `Interpreter` (extract/interpreter.py).
"""

from __future__ import annotations

import binascii
from typing import Any

import libcst as cst

from streamlint.extract import registry, templates
from streamlint.extract.bindings import member
from streamlint.extract.choices import per_choice, run_each
from streamlint.extract.code_text import code_text
from streamlint.extract.coverage import escaped
from streamlint.extract.positions import children_of
from streamlint.extract.spark_values import Native
from streamlint.extract.symbolic import (
    ABSENT,
    Raised,
    Return,
    after_guard_writes,
    after_guards,
    choose,
    classes_of,
)
from streamlint.extract.unset import unset_attribute
from streamlint.extract.values import (
    Alternatives,
    BoundMethod,
    Class,
    Env,
    Function,
    FunctionRef,
    Instance,
    Lambda,
    ModuleRef,
    Partial,
    RepoModule,
)
from streamlint.model import Unknown

MAX_DEPTH = 40
# Calls of functions chosen at run time inside one another (each runs every option).
MAX_NESTED_ALTERNATIVES = 4


def is_generator(node: cst.FunctionDef) -> bool:
    """Whether `yield` is in the function's own body (not in a def, lambda or class inside)."""
    pending: list[cst.CSTNode] = [node.body]
    while pending:
        current = pending.pop()
        if isinstance(current, cst.Yield):
            return True
        if not isinstance(current, cst.FunctionDef | cst.Lambda | cst.ClassDef):
            pending.extend(children_of(current))
    return False


def _crc(text: str) -> str:
    return f"{binascii.crc32(text.encode()):08x}"


class Calls:
    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any], node: cst.Call) -> Any:
        if isinstance(func, Function):
            split = per_choice(self, func, args, kwargs) if self.alternatives_depth < 2 else None
            return self.call_function(func, args, kwargs, node) if split is None else \
                run_each(self, *split, node)
        if isinstance(func, Alternatives):
            return self.call_alternatives(func, args, kwargs, node)
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
        if isinstance(func, Class):
            return self.instantiate(func, args, kwargs, node)
        if isinstance(func, BoundMethod):
            return registry.call_method(self, func.target, func.name, args, kwargs, node)
        if isinstance(func, FunctionRef):  # builtins and libraries: `python_api`, `pyspark_api`
            return registry.call_library(self, func, args, kwargs, node)
        return registry.call_value(self, func, args, kwargs, node)

    def call_function(
        self, func: Function, args: list[Any], kwargs: dict[str, Any], node: cst.CSTNode
    ) -> Any:
        if self.depth >= MAX_DEPTH:
            return Unknown(self.code(node))
        self.executed.add(id(func.node))
        env = self.bind(func, args, kwargs)
        # A generator function's value is what it yields (one frame less than a helper: the
        # interpreter's recursion is as deep as the job's own calls).
        generator = self.generators.get(id(func.node))  # the module's nodes live as long
        if generator is None:
            # Walking a body is slow in libcst; a file without `yield` has no generator.
            indexes = ([func.context.index] if func.context is not None else
                       [self.index, *(index for _, index in self.files)])
            has_yield = any(index.yields for index in indexes)
            generator = self.generators[id(func.node)] = has_yield and is_generator(func.node)
        if generator:
            self.yields.append([])
        self.depth += 1
        self.frames.append(func)
        self.sites.append(node)
        self.guards.append([])
        caller = self.context
        if func.context is not None:
            self.context = func.context
        value: Any = None
        try:
            body = func.node.body
            if isinstance(body, cst.IndentedBlock):
                self.run_block(body.body, env)
            else:
                for small in body.body:
                    self.run_small(small, env)
        except Return as ret:
            value = ret.value
        except Raised:  # past its guard clauses it always raises: they alone return
            value = guards[0][0] if (guards := self.guards[-1]) else None
        finally:
            self.depth -= 1
            self.frames.pop()
            self.sites.pop()
            guards = self.guards.pop()
            self.effects.uncertain -= len(guards)
            if guards:
                start = self.guard_writes.pop()
                after_guard_writes(self.effects.heap_log[start:], guards[0])
                if not self.guard_writes and not self.heap_watch:
                    del self.effects.heap_log[:]
            self.context = caller
            yielded = self.yields.pop() if generator else []
            self.changed_args = {env.params[name]: env.names[name] for name in env.mutated
                                 if name in env.params and name in env.names}
        if not generator:
            return after_guards(value, guards)
        # A generator's values are what it yields, in order (`for df in build(): ...`); one
        # that yields nothing readable is its code, so an edit there is still seen.
        return tuple(yielded) if yielded else Unknown(
            f"{self.code(node)} (a generator: #{_crc(code_text(func.node))})")

    def call_alternatives(self, func: Alternatives, args: list[Any], kwargs: dict[str, Any],
                          node: cst.Call) -> Any:
        """A call of whichever function the run chose: each is called, as the branches of an
        `if` are run; the queries they start and the values they return are chosen as the
        branches' are (the first followed, the others noted)."""
        if self.alternatives_depth >= MAX_NESTED_ALTERNATIVES:
            # Chosen functions calling chosen functions: each level doubles the work.
            # What they call is not read: the whole module's code stands for it, so any edit
            # there is asked about.
            return Unknown(f"{self.code(node)} (functions chosen at run time, nested too deep: "
                           f"#{self.module_code()})")
        return run_each(self, [(option, list(args), dict(kwargs)) for option in func.options],
                        func.condition, func.loc, node)

    def module_code(self) -> str:
        """A fingerprint of the running module's whole code: what stands for code streamlint
        did not read in it, so that any edit there is asked about."""
        module = self.context.module
        code = self.module_codes.get(id(module))
        if code is None:
            code = self.module_codes[id(module)] = _crc(code_text(module))
        return code

    @staticmethod
    def merge_choices(values: list[Any], condition: str, loc: Any) -> Any:
        value = values[0]
        for other in values[1:]:
            if other is not value and other != value:
                value = choose(value, other, condition, loc)
        return value

    def bind(self, func: Function, args: list[Any], kwargs: dict[str, Any]) -> Env:
        """The function's parameters bound to the call's arguments (its defaults, else
        unknown), in a new scope over the one it was defined in."""
        env = Env(func.env)
        defaults = func.defaults
        if defaults is None:
            defaults = self.defaults(func.node.params, func.env)
        params = func.node.params
        positional = list(params.posonly_params) + list(params.params)
        values = list(args)
        decorators = {self.code(d.decorator) for d in func.node.decorators}
        shift = 0
        if func.owner is not None and "staticmethod" not in decorators:
            owner: Any = func.owner.cls if "classmethod" in decorators else func.owner
            values.insert(0, owner)
            shift = 1
        for i, param in enumerate(positional):
            name = param.name.value
            if i < len(values):
                env.names[name] = values[i]
                if i >= shift:
                    env.params[name] = i - shift
            elif name in kwargs:
                env.names[name] = kwargs.pop(name)
                env.params[name] = name
            elif name in defaults:
                env.names[name] = defaults[name]
            else:
                env.names[name] = Unknown(name)
        if isinstance(params.star_arg, cst.Param):
            env.names[params.star_arg.name.value] = tuple(values[len(positional) :])
        for param in params.kwonly_params:
            name = param.name.value
            if name in kwargs:
                env.params[name] = name
            env.names[name] = kwargs.pop(name, defaults.get(name, Unknown(name)))
        if params.star_kwarg is not None:
            env.names[params.star_kwarg.name.value] = dict(kwargs)
        return env

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
        defining = next((c for c in classes_of(frame.owner.cls)
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

    def ev_call(self, node: cst.Call, env: Env) -> Any:
        popped = self.pop_item(node, env)
        if popped is not ABSENT:
            return popped
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
        self.changed_args = {}
        result = self.call(func, args, kwargs, node)
        if isinstance(func, Function) and self.changed_args:
            self.give_back(node, self.changed_args, env, args, kwargs)
        if isinstance(result, Unknown):
            target = func.target if isinstance(func, BoundMethod) else None
            escaped(self, (target, *args, *kwargs.values()), self.code(node.func))
        if isinstance(result, Unknown) and result.text == self.code(node) and not (
                result.unread or result.origin):
            # An unknown callee: remember what it was given, and a file not read it was given.
            opaque = self.opaque(node, env)
            given = next((v.unread for v in (*args, *kwargs.values())
                          if isinstance(v, Unknown) and v.unread), "")
            unknown = Unknown(opaque.text, opaque.unread or given, opaque.shown)
            return registry.unfollowed_call(self, unknown, args, kwargs)
        return result

    def decorate(self, stmt: cst.FunctionDef, function: Function, values: list[Any]) -> Any:
        """A `def` under decorators of the job's own (`@with_counts def build(df): ...`, a
        class whose instances are called): the name holds what they return, applied bottom
        up, so the wrapper's steps are part of every call. A library's decorator
        (`functools.wraps`, a pipeline's `@dp.table`) leaves the function as it is. One whose
        result streamlint cannot call makes the name unknown, with the code of both the
        decorator and the function in its text: an edit to either is seen."""
        value: Any = function
        for item, decorator in reversed(list(zip(stmt.decorators, values, strict=True))):
            if not isinstance(decorator, Function | Lambda | Partial | Alternatives | Class):
                continue
            value = self.call(decorator, [value], {}, item.decorator)
            if isinstance(value, Instance) and "__call__" in value.cls.methods:
                value = self.method(value.cls, "__call__", value)
            if not isinstance(value, Function | Lambda | Partial | Alternatives | Native):
                code = code_text(decorator.node) if isinstance(
                    decorator, Function | Class) else self.code(item.decorator)
                return Unknown(f"{stmt.name.value} (decorated by @{self.code(item.decorator)}:"
                               f" #{_crc(code)} #{_crc(code_text(stmt))})",
                               shown=f"{stmt.name.value} (decorated by "
                                     f"@{self.code(item.decorator)})")
        return value

    def decorated_method(self, owner: Instance, method: cst.FunctionDef, func: Function) -> Any:
        """A method under the job's own decorators: they wrap the plain function, and the
        instance is bound to what they return (its first argument, as Python binds it)."""
        cls = owner.cls
        values = [self.ev(item.decorator, cls.env) for item in method.decorators]
        if not any(isinstance(v, Function | Lambda | Partial | Alternatives | Class)
                   for v in values):
            return func
        plain = Function(method, cls.env, None, defaults=func.defaults, context=cls.context)
        wrapped = self.decorate(method, plain, values)
        return wrapped if isinstance(wrapped, Unknown) else Partial(wrapped, (owner,), {})

    def attribute(self, target: Any, name: str, node: cst.CSTNode) -> Any:
        if isinstance(target, Alternatives):  # a method of whichever object the run chose
            return self.merge_choices([self.attribute(o, name, node) for o in target.options],
                                      target.condition, target.loc)
        if isinstance(target, ModuleRef):
            return member(target.name, name)
        if isinstance(target, RepoModule):
            return self.loader.member(self, target, name, node)
        if isinstance(target, Instance):
            if name in target.attributes:
                return target.attributes[name]
            if name in target.cls.methods:
                method = target.cls.methods[name]
                func = self.method(target.cls, name, target)
                decorators = {self.code(d.decorator) for d in method.decorators}
                if "property" in decorators or "cached_property" in decorators:
                    return self.call_function(func, [], {}, node)
                if method.decorators and not decorators & {"staticmethod", "classmethod"}:
                    return self.decorated_method(target, method, func)
                return func
            if name in target.cls.attributes:
                return target.cls.attributes[name]
            return unset_attribute(self, target, name, node)
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
        return registry.get_attribute(self, target, name, node)
