"""Rule documentation generated from `rules/*.toml`, so the docs cannot drift."""

from __future__ import annotations

import json

from streamlint.rulebook.matrix import documented_fix
from streamlint.rulebook.profiles import (
    holds_for,
    profiles_for,
    runtime_column,
    runtimes_for,
    shown_holds,
    spark_column,
)
from streamlint.rulebook.rule import Rule

FOLDER = "docs/rules"  # the generated pages (streamlint.rulebook.pages)


def page(code: str) -> str:
    """Where a code's page is, relative to the repository root."""
    return f"{FOLDER}/{code}.md"


FAMILIES = {
    "sources": "Sources", "sinks": "Sinks", "query": "Query, trigger and output mode",
    "projection": "Projections, filters and watermarks", "aggregation": "Aggregation",
    "dedup": "Deduplication", "join": "Stream-stream joins",
    "state": "Arbitrary stateful operators", "stateful": "Stateful operators as a whole",
    "config": "Session configuration", "unresolved": "What streamlint cannot see",
}


def _ordered(rules: tuple[Rule, ...]) -> list[Rule]:
    return sorted(rules, key=lambda r: r.code)


def rules_text(rules: tuple[Rule, ...]) -> str:
    """One rule a line, in columns as wide as their longest entry: code, verdict, name, the
    Spark versions and the Databricks runtimes it holds for."""
    rows = [(r.code, r.verdict, r.name, f"Spark {spark_column(r)}", f"DBR {runtime_column(r)}")
            for r in _ordered(rules)]
    if not rows:
        return ""
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True))
             + "  " + row[4] for row in rows]
    return "\n".join(lines) + "\n"


def rules_json(rules: tuple[Rule, ...]) -> str:
    data = [
        {"code": r.code, "name": r.name, "verdict": r.verdict, "change": r.change,
         "spark": r.spark or None, "databricks": r.databricks or None,
         # The Apache Spark profiles it holds for: none for a rule bound to Databricks.
         "profiles": [] if r.databricks else list(profiles_for(r.spark)),
         "databricks_runtimes": [] if r.databricks else list(runtimes_for(r.spark)),
         "holds_for": shown_holds(r),
         "message": r.message, "why": r.why, "fix": r.fix, "docs": r.docs}
        for r in _ordered(rules)
    ]
    return json.dumps(data, indent=2) + "\n"


def rules_markdown(rules: tuple[Rule, ...]) -> str:
    lines = ["| code | name | verdict | Spark | Databricks Runtime | what it means |",
             "|---|---|---|---|---|---|"]
    for r in _ordered(rules):
        summary = " ".join(r.why.split()).split(". ")[0].replace("|", "\\|").rstrip(".") + "."
        lines.append(f"| {r.code} | `{r.name}` | {r.verdict} | {spark_column(r)} | "
                     f"{runtime_column(r)} | {summary} |")
    return "\n".join(lines) + "\n"


def _held(rule: Rule) -> str:
    """`Spark 4.1-4.3 (>=4.1); Databricks Runtime 18-19`; a rule without a range holds for
    every profile; a rule bound to Databricks runtimes, `Databricks Runtime 18.3+ (>=18.3)`."""
    if rule.databricks:
        return f"{shown_holds(rule)} ({rule.databricks}), not on Apache Spark"
    spark, runtimes = holds_for(rule.spark).split("; ")
    return f"{spark} ({rule.spark or 'every version'}); {runtimes}"


def explain(rule: Rule) -> str:
    parts = [
        f"{rule.code} {rule.name} ({rule.verdict}; {_held(rule)})",
        "",
        "What it checks:",
        (f"  a change of kind {', '.join(rule.change)}"
         + "".join(f"\n  when {key} is {' or '.join(values)}" for key, values in rule.when))
        if rule.change else "  raised by streamlint itself, not by a change of the matrix",
        f"  reported as: {rule.message}",
        "",
        "Why it matters:",
        *("  " + line for line in rule.why.splitlines()),
    ]
    if rule.fix:
        parts += ["", "What to do:",
                  *("  " + line for line in documented_fix(rule.fix).splitlines())]
    for example in rule.examples:
        parts += ["", f"Example ({example.name}, {example.verdict}):"]
        if example.kind == "judge":
            parts.append(f"  a change of kind {example.change}: {example.old} -> {example.new}")
            continue
        if example.kind in ("checkpoint", "confirm"):
            parts.append(f"  checkpoint: {example.checkpoint}")
        else:
            parts += ["  old:", *("    " + line for line in example.old.strip().splitlines())]
        parts += ["  new:", *("    " + line for line in example.new.strip().splitlines())]
        if example.accept:
            parts += ["  .streamlint-accept.toml:",
                      *("    " + line for line in example.accept.strip().splitlines())]
    parts += ["", f"Docs: {page(rule.code)}" + (f" and {rule.docs}" if rule.docs else ""), ""]
    return "\n".join(parts)
