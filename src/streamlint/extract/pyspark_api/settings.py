"""Session settings a job sets (`spark.conf.set`, a builder's `.config`, SQL's `SET`): the
ones Spark may pin in a checkpoint, recorded with their values masked where they are
credentials."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from streamlint.extract.columns import option_value
from streamlint.model import Loc, Setting
from streamlint.model.secrets import masked

if TYPE_CHECKING:
    from streamlint.extract.interpreter import Interpreter


def record_settings(interp: Interpreter, args: list[Any], kwargs: dict[str, Any],
                    loc: Loc) -> None:
    pairs: list[tuple[Any, Any]] = []
    if len(args) >= 2:
        pairs.append((args[0], args[1]))
    elif "key" in kwargs:
        pairs.append((kwargs["key"], kwargs.get("value")))
    mapping = kwargs.get("map") or (args[0] if len(args) == 1 and isinstance(args[0], dict)
                                    else None)
    if isinstance(mapping, dict):
        pairs.extend(mapping.items())
    for key, value in pairs:
        if isinstance(key, str) and key.startswith("spark."):  # the rules say which matter
            interp.effects.settings.append(Setting(key, masked(key, option_value(value)), loc))
