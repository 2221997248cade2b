"""The pre-commit hook: each staged job file against its version in HEAD, statically.

pre-commit stashes unstaged changes before running hooks, so the working tree holds exactly
what is being committed. This is `streamlint check --base HEAD FILES...`: the old versions
are read with git (nothing checked out, nothing written), renames are followed, and the
configuration and `# streamlint: ignore[...]` comments apply as in CI. Only an incompatible
change (or a file that cannot be read, a staged job Python cannot parse among them) stops the
commit.
"""

from __future__ import annotations

import sys
from pathlib import Path

from streamlint.model.errors import FileError, InputError, UsageError
from streamlint.report.text import render_all
from streamlint.rulebook.change import EXIT_ERROR, EXIT_OK, exit_code
from streamlint.workflow.check import check
from streamlint.workflow.git import head_exists, repo_root


def main(argv: list[str] | None = None) -> int:
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        return EXIT_OK
    try:
        if not head_exists(repo_root(Path.cwd())):
            return EXIT_OK  # the first commit: nothing runs yet, nothing to restart from
        outcome = check("HEAD", None, paths)
    except (InputError, UsageError) as err:
        print(f"streamlint: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    # A staged job Python cannot parse is a file that cannot be read: it stops the commit
    # (`check` judges it beside the old version, QY26, where a review does not fail).
    unparsable = [FileError(r.new.path, *r.new.syntax_error[:2],
                            f"syntax error: {r.new.syntax_error[2]}")
                  for r in outcome.reports if r.new.syntax_error is not None]
    errors = [*outcome.errors, *unparsable]
    for error in errors:
        print(error, file=sys.stderr)
    shown = [r for r in outcome.reports if r.findings and r.new.syntax_error is None]
    if shown:
        sys.stdout.write(render_all(shown))
    # Only an incompatible change stops a commit: no --strict here.
    return exit_code(outcome.verdict, errors=bool(errors))


if __name__ == "__main__":
    sys.exit(main())
