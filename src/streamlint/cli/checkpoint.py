"""The checkpoint commands behind the CLI: read, render, print; errors stay values."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from streamlint.rulebook.change import EXIT_OK


def run_checkpoint_show(path: str, output_format: str) -> int:
    from streamlint.checkpoint.reader import read_checkpoint
    from streamlint.checkpoint.show_data import show_data

    data = show_data(read_checkpoint(path))
    if output_format == "json":
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        from streamlint.checkpoint.show_text import render_show_text

        sys.stdout.write(render_show_text(data))
    return EXIT_OK


def run_checkpoint_offsets(path: str, batch: int | None, output_format: str) -> int:
    from streamlint.checkpoint.reader import read_batch_offsets, read_checkpoint
    from streamlint.checkpoint.starting_offsets import choose_batch, offsets_data

    checkpoint = read_checkpoint(path, with_operators=False)
    chosen, notes = choose_batch(checkpoint, batch)
    if checkpoint.last_committed is not None and chosen == checkpoint.last_committed.batch_id:
        entry = checkpoint.last_committed
    else:
        entry = read_batch_offsets(path, chosen)
    data = offsets_data(checkpoint, entry, notes)
    if output_format == "json":
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        from streamlint.checkpoint.offsets_text import render_offsets_text

        sys.stdout.write(render_offsets_text(data))
    return EXIT_OK


def run_checkpoint_diff(path: str, new_path: str, output_format: str,
                        spark_version: str | None = None, confirm: bool = False,
                        timeout: float = 120.0, old_path: str | None = None) -> str:
    """Print the findings of `diff --checkpoint PATH NEW`; return the verdict. With
    `confirm`, Spark's run of the new code adds its findings (`spark.checkpoint_confirm`);
    with `old_path`, the static diff of the old code decides what the checkpoint cannot
    show (CK06 gives way to its findings)."""

    from streamlint.checkpoint.compare import CheckpointComparison
    from streamlint.checkpoint.fs import open_fs
    from streamlint.checkpoint.job_match import query_for_checkpoint
    from streamlint.checkpoint.reader import read_checkpoint_fs
    from streamlint.diff import Report
    from streamlint.extract import extract_file
    from streamlint.model import JobFile
    from streamlint.model.records import replace
    from streamlint.policy.config import load_config
    from streamlint.report.remedy import with_remedies
    from streamlint.report.result import Result
    from streamlint.rulebook.book import parse_version
    from streamlint.rulebook.matrix import worst
    from streamlint.workflow.target import project_files, resolve

    config = load_config(Path(new_path).parent)
    if config.root is not None:
        config = config.for_path(os.path.relpath(os.path.abspath(new_path), config.root))
    target = resolve(spark_version, config.spark_version, config.path,
                     *project_files(new_path))
    version_text = target.version
    version = parse_version(version_text)
    fs, root = open_fs(path)
    checkpoint = read_checkpoint_fs(fs, root, path)
    job = extract_file(new_path)
    query = query_for_checkpoint(job, path)
    findings = tuple(CheckpointComparison(checkpoint, fs, root, query, version).run())
    if old_path is not None:
        findings = with_old_code(findings, old_path, path, job, query, version_text)
    state = None
    if confirm:
        from streamlint.spark.checkpoint_confirm import spark_findings, spark_state

        state = spark_state(checkpoint, Path(new_path), timeout)
        findings += tuple(spark_findings(checkpoint, state, query.label))
    verdict = worst([f.verdict for f in findings])
    report = Report(JobFile(path, "", ()), job, ((None, query),), findings, verdict,
                    version_text, spark_source=target.source)
    # Each incompatible finding ends with the next step, as `diff` and `check` give it.
    report = replace(report, findings=with_remedies(findings, report, path))
    confirmation = None
    if state is not None:
        from streamlint.spark.checkpoint_confirm import confirmation_of

        confirmation = confirmation_of(state, verdict)
    from streamlint.report import render_for

    sys.stdout.write(render_for(output_format, Result((report,), single=True,
                                                         checkpoint=path,
                                                         confirmation=confirmation), new_path))
    return verdict




def with_old_code(findings: tuple, old_path: str, checkpoint_path: str, job: object,
                  query: object, version_text: str) -> tuple:
    """The checkpoint's findings, its "cannot tell" ones (CK06) replaced by the static diff
    of the old code's query against the new one (a finding both give is kept once)."""
    from streamlint.checkpoint.job_match import query_for_checkpoint
    from streamlint.diff import diff_pairs
    from streamlint.extract import extract_file

    old_job = extract_file(old_path)
    old_query = query_for_checkpoint(old_job, checkpoint_path)
    report = diff_pairs(old_job, job, ((old_query, query),), version_text)  # type: ignore[arg-type]
    kept = [f for f in findings if f.code != "CK06"]
    seen = {(f.code, f.new) for f in kept}
    return tuple(kept + [f for f in report.findings if (f.code, f.new) not in seen])
