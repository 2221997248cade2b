"""streamlint: can this changed Spark Structured Streaming job restart from its checkpoint?"""

# The one place the version is written: the package metadata (hatch reads it from here), the
# `--version` output, SARIF's tool version and the release tag `v<version>` all come from it.
# CHANGELOG.md says how a release is made.
__version__ = "0.1.0"
