"""The engine's reads behind the report's charts and tables: price steps and dated points
of the history, spot bands, the cheapest cost per token, the buy-vs-rent table, the
warehouse's facts. The report draws what these return and reads the warehouse no other
way (rates, plans and alerts it takes from the same functions the command line calls), so
a report and a command answer from one engine. Each reads one query of
`warehouse/queries/` (named in its docstring)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import duckdb
import polars as pl

from warehouse import queries


def read_price_steps(con: duckdb.DuckDBPyConnection, gpu: str | None) -> pl.DataFrame:
    """The cheapest verified whole-machine rate of each GPU and pricing model at every
    point a price period starts or ends (`report_price_steps`); `gpu` None: every GPU."""
    return queries.read(con, "report_price_steps", {"gpu": gpu})


def read_dated_points(con: duckdb.DuckDBPyConnection, gpu: str | None) -> pl.DataFrame:
    """The historical sheet rows drawn as points at the date each held
    (`report_dated_points`)."""
    return queries.read(con, "report_dated_points", {"gpu": gpu})


def read_latest_fetch(con: duckdb.DuckDBPyConnection) -> datetime | None:
    """When the newest price was fetched (`latest_fetch`)."""
    return queries.read(con, "latest_fetch")["t"][0]


def read_spot_bands(con: duckdb.DuckDBPyConnection, gpu: str) -> pl.DataFrame:
    """Per provider and region, the 5th, 50th and 95th percentile of a GPU's spot price
    points (`report_spot_bands`)."""
    return queries.read(con, "report_spot_bands", {"gpu": gpu})


def read_cost_per_token_best(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per GPU and pricing model, the offer with the lowest cost per 1M training tokens
    per 1B parameters (`report_cost_per_token`, from mart_cost_per_token)."""
    return queries.read(con, "report_cost_per_token")


def read_breakeven_table(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The buy-vs-rent rows of mart_breakeven_onprem with a break-even, soonest first
    (`report_breakeven`): per GPU, the offer `breakeven_onprem` compares with."""
    return queries.read(con, "report_breakeven")


def read_report_meta(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The warehouse's facts the report states (`report_meta`)."""
    return queries.read(con, "report_meta").row(0, named=True)
