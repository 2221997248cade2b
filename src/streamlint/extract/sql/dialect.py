"""sqlglot's Spark dialect, with what Structured Streaming SQL writes that it does not read.

- `GROUP BY window(ts, '5 minutes'), k`: sqlglot takes a leading WINDOW for the start of a
  named-window clause (`WINDOW w AS (...)`) and stops the GROUP BY there. Here a WINDOW
  followed by `(` is the `window()` function, as Spark reads it.
- `FROM STREAM t` (Databricks): a streaming read of `t`, not a table named `stream` aliased
  `t`. `FROM STREAM(t)` parses as a table-valued call and is read as the same thing.
- `FROM STREAM(t) IDENTIFIED BY events` (Spark 4.2+ source evolution): the source's name, kept
  on the table in NAME_ARG (what `DataStreamReader.name("events")` says), not the alias
  `IDENTIFIED`.
- `FROM t WATERMARK ts DELAY OF INTERVAL 10 MINUTES` (Spark 4's watermark clause): kept on the
  table as `(column, delay)` in WATERMARK_ARG, not read as the alias `WATERMARK`.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.errors import ParseError, SqlglotError
from sqlglot.tokens import TokenType

STREAM_ARG = "streamlint_stream"  # set on an exp.Table read with `STREAM t`
WATERMARK_ARG = "streamlint_watermark"  # (column, delay) of `t WATERMARK c DELAY OF d`
NAME_ARG = "streamlint_source_name"  # the name of `STREAM t IDENTIFIED BY name`


class StreamingSpark(Spark):
    class Parser(Spark.Parser):
        # Every function call as written (`Anonymous`, its name and its arguments in order),
        # not sqlglot's cross-dialect classes: the lowering maps names itself, the way
        # pyspark.sql.functions spells them. Special syntax (CAST, CASE, IF, ...) still parses.
        FUNCTIONS: dict = {}

        def _parse_group(self, skip_group_by_token: bool = False) -> exp.Group | None:
            if not skip_group_by_token and not self._match(TokenType.GROUP_BY):
                return None
            if not self._window_call_ahead():
                return super()._parse_group(skip_group_by_token=True)
            first = self._parse_disjunction()  # the window(...) call
            rest = (super()._parse_group(skip_group_by_token=True)
                    if self._match(TokenType.COMMA) else None)
            group = rest or exp.Group()
            group.set("expressions", [first, *group.expressions])
            return group

        def _window_call_ahead(self) -> bool:
            curr, after = self._curr, self._next
            return (curr is not None and curr.token_type == TokenType.WINDOW
                    and after is not None and after.token_type == TokenType.L_PAREN)

        def _parse_table(self, *args: Any, **kwargs: Any) -> exp.Expr | None:
            curr, after = self._curr, self._next
            stream = (curr is not None and after is not None and curr.text.upper() == "STREAM"
                      and curr.token_type == TokenType.VAR
                      and after.token_type in (TokenType.VAR, TokenType.IDENTIFIER))
            if stream:
                self._advance()
            self._streamlint_watermark: tuple[exp.Expr, exp.Expr] | None = None
            self._streamlint_name: str | None = None
            table = super()._parse_table(*args, **kwargs)
            if isinstance(table, exp.Table):
                if stream:
                    table.set(STREAM_ARG, True)
                if self._streamlint_name is not None:
                    table.set(NAME_ARG, self._streamlint_name)
                if self._streamlint_watermark is not None:
                    table.set(WATERMARK_ARG, self._streamlint_watermark)
            return table

        def _parse_table_alias(self, *args: Any, **kwargs: Any) -> exp.TableAlias | None:
            if self._match_text_seq("IDENTIFIED", "BY"):
                name = self._parse_id_var(any_token=False)
                if name is None:
                    self.raise_error("expected the source's name after IDENTIFIED BY")
                else:
                    self._streamlint_name = name.name
            curr, after = self._curr, self._next
            if (curr is not None and after is not None and curr.text.upper() == "WATERMARK"
                    and after.token_type in (TokenType.VAR, TokenType.IDENTIFIER)):
                self._advance()
                column = self._parse_column()
                if not (self._match_text_seq("DELAY", "OF") and column is not None):
                    self.raise_error("expected WATERMARK column DELAY OF interval")
                delay = self._parse_bitwise()
                if delay is None:
                    self.raise_error("expected the watermark's delay")
                self._streamlint_watermark = (column, delay)
            return super()._parse_table_alias(*args, **kwargs)


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> tuple[exp.Expr | None, ...] | SqlglotError:
    logger = logging.getLogger("sqlglot")
    quiet = logger.disabled
    logger.disabled = True  # "falling back to parsing as a Command": a note says so instead
    try:
        return tuple(StreamingSpark().parse(text))
    except (SqlglotError, RecursionError) as err:
        return err if isinstance(err, SqlglotError) else ParseError(str(err))
    finally:
        logger.disabled = quiet


def parse_statements(text: str) -> list[exp.Expr | None]:
    """Every statement of `text`; raises sqlglot's errors (callers turn them into notes).

    Parsed once per text: the old and the new version of a job mostly hold the same SQL.
    The trees are shared, so callers read them and never change them."""
    parsed = _parsed(text)
    if isinstance(parsed, SqlglotError):
        raise parsed
    return list(parsed)


def parse_expr(text: str) -> exp.Expr:
    """One expression (a select item with its alias, a condition); raises on anything else."""
    statements = StreamingSpark().parse(f"SELECT {text}")
    select = statements[0] if len(statements) == 1 else None
    if not isinstance(select, exp.Select) or len(select.expressions) != 1 or any(
            select.args.get(k) for k in ("from_", "from", "where", "group", "joins", "having",
                                         "order", "limit", "distinct", "with_", "with")):
        raise ValueError(f"not one expression: {text}")
    return select.expressions[0]


def canonical_sql(text: str) -> str:
    """SQL in one spelling (keywords, spacing, quoting): for messages and notes."""
    try:
        statements = parse_statements(text)
        return "; ".join(s.sql(dialect=StreamingSpark) for s in statements if s is not None)
    except (SqlglotError, RecursionError):
        return " ".join(text.split())
