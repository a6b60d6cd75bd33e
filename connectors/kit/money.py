"""Money from untrusted JSON, for every REST connector's parse.

Prices are decoded as text (a JSON number or a numeric string both arrive as text) and
cast explicitly to a Decimal, so arithmetic on them (cents to dollars, a per-instance
price split over its GPUs, a monthly price over the hours in a month) is exact: 0.69 USD
stays 0.69, never 0.6900000000000001. Anything that is not a number becomes null, which
the shared rules reject with the raw value in the reason. Floats appear only at the end,
in the canonical Float64 columns.
"""

from __future__ import annotations

import polars as pl

MONEY = pl.Decimal(38, 9)


def decimal(expr: pl.Expr) -> pl.Expr:
    """A price or quantity read as text, as a Decimal (null when not a number)."""
    text = expr.cast(pl.String).str.strip_chars()
    return pl.when(text.str.contains(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")).then(
        text.cast(MONEY, strict=False)
    )


def usd(expr: pl.Expr) -> pl.Expr:
    """A Decimal amount as the canonical Float64 column."""
    return expr.cast(pl.Float64)
