"""Recorded currency conversion: money is USD, and a price in another currency becomes USD
only with a recorded rate, or is rejected with a reason naming the currency.

The rates are a dated reference table checked into the repository,
sql/seeds/seed_fx_rates.csv (also loaded into the warehouse as `seed_fx_rates`): one row
per currency with `usd_per_unit`, the `as_of` date of the reference rate, and its `source`
(publisher and URL). The shared normalise step applies them to every connector's rows, so
Azure items priced in a `currencyCode` other than USD and Seeweb's euro plans take the
same path. A converted row keeps its native amount in `source_price` / `source_currency`
and says the rate and its date at the end of `source_unit`.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from common.errors import InvalidInput

if TYPE_CHECKING:
    import polars as pl

RATES_CSV = Path(__file__).resolve().parents[2] / "sql" / "seeds" / "seed_fx_rates.csv"
_NUMBER = r"^\d+(\.\d+)?$"


def rates() -> pl.DataFrame:
    """currency, usd_per_unit (Float64), as_of (Date), note (what source_unit appends),
    from RATES_CSV as it is now (read once per path)."""
    return _read(RATES_CSV)


@functools.cache
def _read(path: Path) -> pl.DataFrame:
    import polars as pl

    raw = pl.read_csv(path, infer_schema=False)
    bad = raw.filter(
        ~pl.col("currency").str.contains(r"^[A-Z]{3}$").fill_null(False)
        | ~pl.col("usd_per_unit").str.contains(_NUMBER).fill_null(False)
        | pl.col("as_of").str.to_date("%Y-%m-%d", strict=False).is_null()
        | pl.col("source").str.strip_chars().fill_null("").eq("")
    )
    if not bad.is_empty() or raw["currency"].is_duplicated().any():
        row = (bad if not bad.is_empty() else raw.filter(pl.col("currency").is_duplicated()))
        raise InvalidInput(
            f"{path.name}: invalid or duplicate rate row {row.row(0, named=True)} "
            "(need a 3-letter currency, a positive decimal usd_per_unit, an as_of "
            "YYYY-MM-DD date and a source)"
        )
    return raw.select(
        "currency",
        pl.col("usd_per_unit").cast(pl.Float64),
        pl.col("as_of").str.to_date("%Y-%m-%d"),
        note=pl.format(
            "converted to USD at {} USD per {}, reference rate of {} ({})",
            "usd_per_unit",
            "currency",
            "as_of",
            pl.col("source").str.split(",").list.first(),
        ),
    ).filter(pl.col("usd_per_unit") > 0)


def _lookup(column: str, table: pl.DataFrame) -> pl.Expr:
    import polars as pl

    return pl.col("source_currency").replace_strict(
        table["currency"], table[column], default=None, return_dtype=table[column].dtype
    )


def needs_rate() -> pl.Expr:
    """A row priced in a currency other than USD."""
    import polars as pl

    return pl.col("source_currency").is_not_null() & (pl.col("source_currency") != "USD")


def convert(df: pl.DataFrame, table: pl.DataFrame | None = None) -> pl.DataFrame:
    """Price columns of non-USD rows multiplied by their recorded rate, and the rate noted
    in source_unit. Rows whose currency has no rate are left as they are: the shared
    checks reject them ("non-USD price in XXX and no recorded conversion rate")."""
    import polars as pl

    table = rates() if table is None else table
    rate = _lookup("usd_per_unit", table)
    hit = needs_rate() & rate.is_not_null()
    return df.with_columns(
        [
            pl.when(hit).then(pl.col(c) * rate).otherwise(pl.col(c)).alias(c)
            for c in ("price_usd_per_hour", "price_usd_per_gpu_hour")
        ]
        + [
            pl.when(hit)
            .then(
                pl.concat_str(
                    [pl.col("source_unit"), _lookup("note", table)], separator="; ", ignore_nulls=True
                )
            )
            .otherwise(pl.col("source_unit"))
            .alias("source_unit"),
            pl.when(hit).then(pl.lit(True)).otherwise(pl.lit(False)).alias("_fx_converted"),
        ]
    )
