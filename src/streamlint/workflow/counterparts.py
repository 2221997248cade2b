"""The other version's file of each module only one version of a job was followed into.

A job whose code moved into `consumer.py` follows that module in its new version only; the
old version's repository had the file too. Compared with nothing, every line of it would be
new; compared with what it was, the lines the change touched are the ones a pull request's
diff shows (`policy/at_change.py` places findings there).
"""

from __future__ import annotations

from streamlint.extract.project import Files
from streamlint.model import JobFile
from streamlint.model.records import replace


def with_counterparts(old: JobFile, new: JobFile, old_files: Files | None, old_job: str,
                      new_files: Files | None, new_job: str) -> tuple[JobFile, JobFile]:
    """Both versions, each with its repository's file (`JobFile.counterparts`) at the paths
    only the other version followed. `old_job`, `new_job`: each job's root-relative path."""
    return (_add(old, new, old_files, old_job), _add(new, old, new_files, new_job))


def _add(job: JobFile, other: JobFile, files: Files | None, relpath: str) -> JobFile:
    followed = {path for path, _, _ in job.sources} | {relpath}
    missing = [path for path, _, _ in other.sources if path not in followed]
    if files is None or not missing:
        return job
    prefix = job.path[: -len(relpath)] if job.path.endswith(relpath) else ""
    return replace(job, counterparts=tuple((path, prefix + path, files.read(path))
                                           for path in missing))
