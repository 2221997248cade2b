"""Which changed jobs and modules reach each other across the repository, at both refs:
the import graph `check` walks, upwards from a changed module to the jobs that import it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from streamlint.extract import mentions_streaming
from streamlint.extract.bundles import (
    Clusters,
    deployment,
    spark_version,
)
from streamlint.extract.project import MappingFiles
from streamlint.workflow.modules import Side, reads_config


class Graph:
    """Both sides of a check, read only as far as the jobs need."""

    def __init__(self, root: Path, base: str, head: str | None, changed: set[str],
                 roots: tuple[str, ...], configs: set[str] | None = None) -> None:
        self.root, self.base_ref, self.head_ref = root, base, head
        self.changed = changed
        self.changed_configs = configs or set()
        self.roots = roots
        self._base: Side | None = None
        self._head: Side | None = None

    @property
    def base(self) -> Side:
        if self._base is None:
            self._base = Side(self.root, self.base_ref)
        return self._base

    @property
    def head(self) -> Side:
        if self._head is None:
            self._head = Side(self.root, self.head_ref)
        return self._head

    def files(self, old: dict[str, str], new: dict[str, str]
              ) -> tuple[dict[str, MappingFiles], dict[str, MappingFiles]]:
        """The modules each job version may import (job path -> its files), both sides."""
        olds = self.base.reach(old, self.roots) if old else {}
        news = self.head.reach(new, self.roots) if new else {}
        return ({job: self._with_configs(self.base, job, old[job], found)
                 for job, found in olds.items()},
                {job: self._with_configs(self.head, job, new[job], found)
                 for job, found in news.items()})

    @staticmethod
    def _with_configs(side: Side, job: str, job_text: str, found: dict[str, str]
                      ) -> MappingFiles:
        return MappingFiles({**side.bundle(job), **side.configs_for(
            job, [job_text, *found.values()]), **found})

    def spark_version(self, job: str) -> Clusters | None:
        """The runtime of the clusters the head's Databricks bundle runs the job on, and
        where that was read."""
        texts = self.head.bundle(job)
        return spark_version(deployment(MappingFiles(texts), job)) if texts else None

    def config_affected(self, done: set[str]) -> dict[str, list[str]]:
        """Jobs (at both refs, not changed themselves) that may read a changed configuration
        file, naming it or through a module that names it: job -> the changed files."""
        if not self.changed_configs:
            return {}
        readers = self.base.readers(self.changed_configs) | self.head.readers(
            self.changed_configs)
        configs = sorted(self.changed_configs)
        # A notebook a bundle runs takes its parameters from the bundle's files.
        bundled = self.base.bundled(self.changed_configs)
        for job, files in self.head.bundled(self.changed_configs).items():
            bundled.setdefault(job, []).extend(files)

        def hits(job: str, texts: list[str], modules: set[str]) -> list[str]:
            return [c for c in configs if reads_config(c, job, texts) or c in bundled.get(job, ())]

        return self._rejudged(readers | self.base.importers(readers) |
                              self.head.importers(readers) | set(bundled), done, hits)

    def affected(self, done: set[str]) -> dict[str, list[str]]:
        """Jobs (at both refs, not changed themselves) that import a changed module at
        either ref: job -> the changed modules it reaches."""
        if not self.changed:
            return {}
        maybe = self.base.importers(self.changed) | self.head.importers(self.changed)
        return self._rejudged(maybe, done, lambda job, texts, modules: sorted(
            modules & self.changed))

    def _rejudged(self, maybe: set[str], done: set[str],
                  hits: Callable[[str, list[str], set[str]], list[str]]
                  ) -> dict[str, list[str]]:
        """Of `maybe`, the streaming jobs at both refs not judged already, each with what
        `hits(job, texts, modules)` finds in its code and the modules it reaches."""
        base, head = self.base, self.head
        maybe = {p for p in maybe - done if p in base.exists and p in head.exists}
        base.load(maybe)
        head.load(maybe)
        jobs = {p for p in maybe
                if base.texts.get(p) is not None and head.texts.get(p) is not None}
        reached_base = base.reach({p: base.texts[p] for p in jobs}, self.roots)  # type: ignore[misc]
        reached_head = head.reach({p: head.texts[p] for p in jobs}, self.roots)  # type: ignore[misc]
        affected: dict[str, list[str]] = {}
        for path in sorted(jobs):
            modules = {**reached_base[path], **reached_head[path]}
            texts = [t for t in (base.texts[path], head.texts[path],
                                 *reached_base[path].values(), *reached_head[path].values())
                     if t is not None]
            hit = hits(path, texts, set(modules))
            if hit and any(mentions_streaming(t) for t in texts):
                affected[path] = hit
        return affected

