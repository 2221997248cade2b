"""Spark confirms a static verdict: `streamlint diff OLD NEW --confirm`.

Everything under this package may import pyspark, and only lazily, inside the functions that
run Spark: the static path (`streamlint diff` without `--confirm`) never imports it.
"""
