"""`streamlint rules` (the rulebook as a table, JSON or the README's markdown) and
`streamlint explain CODE` (one rule)."""

from __future__ import annotations

import argparse
import sys

from streamlint.model.errors import UsageError
from streamlint.rulebook.book import find_rule, load_rules
from streamlint.rulebook.change import EXIT_OK
from streamlint.rulebook.docs import explain, rules_json, rules_markdown, rules_text
from streamlint.rulebook.profiles import parse_profile


def run_rules(args: argparse.Namespace) -> int:
    rules = load_rules()
    if args.spark_version:
        runtime = parse_profile(args.spark_version).runtime
        rules = tuple(r for r in rules if r.holds_for(runtime))
    render = {"text": rules_text, "json": rules_json, "markdown": rules_markdown}[args.format]
    sys.stdout.write(render(rules))
    return EXIT_OK


def run_explain(args: argparse.Namespace) -> int:
    rule = find_rule(args.code)
    if rule is None:
        raise UsageError(f"no rule {args.code!r}; `streamlint rules` lists them")
    sys.stdout.write(explain(rule))
    return EXIT_OK
