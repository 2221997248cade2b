"""Which changed values the diff can judge, and which are a question for a human.

A change whose old and new values are both known is judged by its own rule. So is one whose
values are only partly known but certainly different (`model.values.values_differ`): a
checkpoint moved from `{root}/orders` to `{root}/orders_v2` is a moved checkpoint whatever
`root` is. Only a change that might not be a change at all becomes "unresolved".
"""

from __future__ import annotations

from typing import Any

from streamlint.model import is_known
from streamlint.model.values import values_differ


def undecidable(old: Any, new: Any) -> bool:
    """The values are not both known and not certainly different: never guess."""
    if is_known(old) and is_known(new):
        return False
    return values_differ(old, new) is not True
