"""What an import statement or a builtin name binds: the modules streamlint knows by name.

A module it knows is a `ModuleRef` whose members are `FunctionRef`s (their calls are looked
up in `registry`); any other module is unknown, and so is every name bound from it.
"""

from __future__ import annotations

import re
from typing import Any

from streamlint.extract import registry
from streamlint.extract.values import Env, FunctionRef, ModuleRef
from streamlint.model import Unknown

# Python's own modules, and the configuration readers a job uses (extract/config_files.py,
# extract/arguments.py); a library's modules are registered by its knowledge (`registry`).
KNOWN_MODULES = {
    "os", "os.environ", "os.path", "posixpath", "sys", "datetime", "dataclasses", "functools",
    "shutil", "json", "yaml", "tomllib", "tomli", "pathlib", "configparser", "dotenv",
    "argparse",
}
ENV_LOOKUP_RE = re.compile(r"^(?:os\.)?(?:environ\.get|getenv)\(")


def module_ref(name: str) -> Any:
    name = registry.canonical(name)
    return ModuleRef(name) if name in KNOWN_MODULES or registry.knows(name) else Unknown(name)


def member(module: str, name: str) -> Any:
    full = f"{module}.{name}"
    if full in KNOWN_MODULES or registry.knows(registry.canonical(full)):
        return module_ref(full)
    module = registry.canonical(module)
    if module in KNOWN_MODULES or registry.knows(module) or registry.in_package(module):
        return FunctionRef(module, name)
    return Unknown(name)


def import_star(module: str, env: Env) -> None:
    """`from pyspark.sql.functions import *` binds PySpark's own list of names, no others.

    Any other module's star import binds nothing we can know; its names stay unknown.
    """
    known = registry.star_import(module)  # PySpark's lists: `pyspark_api`, `pipelines`
    if known is None:
        return
    module, names = known
    for name in names:
        env.names[name] = FunctionRef(module, name)


def builtin_value(name: str) -> Any:
    if name in ("str", "int", "float", "dict", "list", "tuple", "len", "bool", "sorted", "set",
                "enumerate", "zip", "range", "super", "getattr", "sum", "open"):
        return FunctionRef("builtins", name)
    module = registry.predefined_module(name)
    return FunctionRef(module, name) if module is not None else Unknown(name)
