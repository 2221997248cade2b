"""The Spark SQL front end: SQL in strings and `%sql` cells lowered into the same model
expressions and operators as DataFrame code, through sqlglot (dialect spark).

Imported only where a file has SQL (`spark.sql`, `selectExpr`, `expr`, string filters and
join conditions, `%sql` cells), so a job without SQL never loads sqlglot. The modules:
`dialect` (sqlglot's Spark dialect, with streaming SQL it does not read), `expressions`
(`parse_expression`: SQL text → model expression), `statements` (`run_sql`: a statement →
the DataFrame method handlers' plan), `bridge` (`to_col`: model expression → the
extractor's `Col`), `cells` (`%sql` notebook cells).
"""

from streamlint.extract.sql.parse import parse_expression

__all__ = ["parse_expression"]
