"""What to do next about an incompatible finding: the command that prints the old
checkpoint's offsets, and the deliberate reset as a short patch that fits the sources.

Kafka resumes from the offsets JSON (`startingOffsets`); Delta from a table version
(`startingVersion`); Auto Loader and the file source have no starting position at all: they
track the files they read in the checkpoint, so a new checkpoint lists the input again.
"""

from __future__ import annotations

import re
from typing import Any

from streamlint.model import Query, Template, code_of, is_known
from streamlint.model.labels import pair_labels
from streamlint.model.records import replace
from streamlint.model.secrets import mask_text
from streamlint.report.shared import belongs
from streamlint.rulebook.matrix import Finding, Remedy

PIPELINE = "pipeline"  # a pipeline's flow: its sink format (`streamlint.extract.pipelines`)
FILE_FORMATS = {"parquet", "json", "csv", "text", "orc", "avro", "binaryFile", "xml"}


def source_kinds(query: Query | None) -> list[str]:
    """Each streaming source's kind: kafka, delta, autoloader, file or other."""
    kinds = []
    for source in query.sources if query is not None else ():
        if not source.streaming:
            continue
        fmt = str(source.format)
        if fmt.lower() in ("kafka", "delta"):
            kinds.append(fmt.lower())
        elif fmt.lower() == "cloudfiles":
            kinds.append("autoloader")
        elif fmt in FILE_FORMATS:
            kinds.append("file")
        else:
            kinds.append("other")
    return kinds


def _path(value: Any) -> str | None:
    """A checkpoint path the code writes out in full."""
    if isinstance(value, str) and value and is_known(value):
        return value
    return None


def _next_checkpoint(path: str) -> str:
    """`.../orders` -> `.../orders_v2`, `.../orders_v2` -> `.../orders_v3`."""
    stripped = path.rstrip("/")
    match = re.search(r"_v(\d+)$", stripped)
    if match:
        return f"{stripped[:match.start()]}_v{int(match.group(1)) + 1}"
    return f"{stripped}_v2"


START = {
    "kafka": '+    .option("startingOffsets", \'<the JSON it printed>\')  # on the kafka source',
    "delta": '+    .option("startingVersion", "<the version after the one it printed>")'
             "  # on the delta source",
    "autoloader": "     # Auto Loader has no starting offsets: the new checkpoint lists the "
                  "input again (cloudFiles.includeExistingFiles=false skips the files "
                  "already there)",
    "file": "     # the file source has no starting offsets: the new checkpoint reads every "
            "file in the folder again",
    "other": "     # this source has no starting offsets: it starts as a new query does",
}


def remedy(finding: Finding, old: Query | None, new: Query | None,
           given: str | None = None) -> Remedy:
    """The next command and the reset patch for one incompatible finding. `given`: the
    checkpoint path the user named on the command line (`diff --checkpoint PATH`)."""
    queries = [q for q in (old, new) if q is not None]
    checkpoint = given or next((p for q in queries if (p := _path(q.sink.checkpoint))), None)
    at_run_time = next((q.sink.checkpoint for q in queries
                        if isinstance(q.sink.checkpoint, Template)), None)
    kinds = list(dict.fromkeys(source_kinds(new or old)))
    if checkpoint is not None:
        note = ""
        old_text, new_text = f'"{checkpoint}"', f'"{_next_checkpoint(checkpoint)}"'
    elif at_run_time is not None:
        written = code_of(at_run_time)
        note = (f"  (PATH: the old query's checkpointLocation, `{written}` in the code: "
                "its value is only known at run time)")
        old_text, new_text = f'f"{written}"', f'f"{_next_checkpoint(written)}"'
    else:
        note = "  (PATH: the old query's checkpointLocation)"
        old_text, new_text = '"<the old checkpoint>"', '"<a new, empty folder>"'
    resumes = any(kind in ("kafka", "delta") for kind in kinds)
    # A checkpoint URL may carry a SAS token.
    return Remedy(
        command=mask_text(f"streamlint checkpoint offsets {_quote(checkpoint or 'PATH')}"),
        note=mask_text(note),
        heading=("to start over on purpose, a new checkpoint that starts where the old one "
                 "ended:" if resumes else "to start over on purpose, a new checkpoint:"),
        patch=tuple(mask_text(line) for line in (
            f'-    .option("checkpointLocation", {old_text})',
            f'+    .option("checkpointLocation", {new_text})',
            *(START[kind] for kind in kinds or ["other"]))))


def _quote(path: str) -> str:
    return path if re.fullmatch(r"[\w./:@%+=,-]+", path) else f"'{path}'"


# How each kind of source starts a new checkpoint, for fixes that say startingOffsets.
STARTS_AS = {
    "delta": "startingVersion (the table version after the one the old checkpoint reached)",
    "autoloader": "no starting offsets (Auto Loader lists the input again; "
                  "cloudFiles.includeExistingFiles=false skips the files already there)",
    "file": "no starting offsets (the file source reads every file in the folder again)",
}


def fit_fix(fix: str, kinds: list[str]) -> str:
    """A fix that says startingOffsets, for queries whose sources have none."""
    kind = next((k for k in ("autoloader", "delta", "file") if kinds and set(kinds) == {k}),
                None)
    if kind is None or "startingOffsets" not in fix:
        return fix
    if kind == "delta":
        return fix.replace("startingOffsets", "startingVersion")
    fix = re.sub(r"\s*(?:and set |with |and carry the old offsets over with |set )"
                 r"startingOffsets[^.;]*", f" with {STARTS_AS[kind]}", fix, count=1)
    return fix.replace("startingOffsets", "a starting position")


# Changes a new checkpoint does not mend (Spark refuses the query whatever it starts from).
NO_RESET = frozenset({"query.refused"})


def with_remedies(findings: tuple[Finding, ...], report: Any,
                  checkpoint: str | None = None) -> tuple[Finding, ...]:
    """Findings whose fix fits their sources, incompatible ones with their next step
    (`checkpoint`: the path the user gave, for `diff --checkpoint PATH`)."""
    pairs = list(zip(report.pairs, pair_labels(report.pairs), strict=True))
    out = []
    for finding in findings:
        pair = next((p for p, label in pairs if belongs(finding, label)), None)
        if pair is None:
            out.append(finding)
            continue
        old, new = pair
        if (new or old).sink.format == PIPELINE:  # type: ignore[union-attr]
            out.append(finding)  # its remedy is the table's refresh (rules.pipeline_remedy)
            continue
        fix = fit_fix(finding.fix, source_kinds(new or old))
        # A query Spark refuses from any checkpoint: starting over does not help.
        steps = (remedy(finding, old, new, checkpoint) if finding.verdict == "incompatible"
                 and finding.kind not in NO_RESET else None)
        out.append(replace(finding, fix=fix, remedy=steps))
    return tuple(out)
