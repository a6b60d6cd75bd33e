"""The newest stored row of each series of a staged time series, kept between refreshes.

A parse that reads only the pages landed since the last one gets, in place of the pages it
does not re-read, each series' newest stored row (warehouse.staging; the spot parse takes a
zone's current offer from it). Working that out scans the series and time columns of all
history (0.2 s CPU and ~50 MiB at a year of AWS spot points, 8.8M); so the rows are kept in
`_newest__<table>`, with what changed the table since:

- a night's insert (`appended`) notes the earliest time it added (`since`); the next read
  takes each series' newest of the kept rows and the rows from `since` on (DuckDB skips
  the older row groups by their min/max), and keeps those;
- points held back by the plausibility rules (`removed`, always rows a night added): when
  no kept row is among them, the kept rows still stand; else worked out again;
- a replaced table (every page parsed again: `keep`) or points whose provenance is filled
  in place (`forget`): worked out again from all history, then or at the next read.

`_series_kept` records the table's row count and columns as the kept rows know it; a read
trusts them only while both are unchanged (a count is table metadata in DuckDB, no scan),
so rows added or removed by anything else (a repair by hand, an older version of this
program) are never read from a stale copy: the rows are worked out again from all history.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb

from warehouse.db import query, run

if TYPE_CHECKING:
    import polars as pl

_LEDGER = """CREATE TABLE IF NOT EXISTS _series_kept (
    table_name VARCHAR PRIMARY KEY, row_count BIGINT, columns VARCHAR, since TIMESTAMP)"""


def _kept(table: str) -> str:
    return f"_newest__{table}"


def _shape(con: duckdb.DuckDBPyConnection, table: str) -> tuple[int, str]:
    """The table's row count and its columns with their types."""
    columns = con.execute(f"SELECT * FROM {table} LIMIT 0").description or []
    ((count,),) = run(con, f"SELECT count(*) FROM {table}")
    return count, ", ".join(f"{d[0]} {d[1]}" for d in columns)


def _ledger(con: duckdb.DuckDBPyConnection, table: str) -> tuple | None:
    """(row count, columns, since) as the kept rows of `table` know it; None: none kept."""
    run(con, _LEDGER)
    rows = run(
        con, "SELECT row_count, columns, since FROM _series_kept WHERE table_name = ?", [table]
    )
    return rows[0] if rows else None


def _note(con: duckdb.DuckDBPyConnection, table: str, count: int, columns: str, since) -> None:
    run(con, "DELETE FROM _series_kept WHERE table_name = ?", [table])
    run(con, "INSERT INTO _series_kept VALUES (?, ?, ?, ?)", [table, count, columns, since])


def _newest_sql(source: str, series: tuple[str, ...], time: str) -> str:
    """Each series' newest row of `source`: each series' newest time first (a scan of its
    series and time columns), then its rows at that time (DuckDB reads only the row groups
    from the oldest of those times on); numbering every stored row held and sorted a year
    of points, 60 MiB at 8.8M."""
    keys = ", ".join(series)
    same = " AND ".join(f"t.{c} IS NOT DISTINCT FROM n.{c}" for c in series)
    return f"""WITH newest AS (
            SELECT {keys}, max({time}) AS {time} FROM {source} GROUP BY ALL)
        SELECT t.* FROM {source} t
        SEMI JOIN newest n ON {same} AND t.{time} = n.{time}
        QUALIFY row_number() OVER (PARTITION BY {", ".join(f"t.{c}" for c in series)}) = 1"""


def _keep(con: duckdb.DuckDBPyConnection, table: str, select: str, params=None) -> None:
    run(con, _LEDGER)
    run(con, f"CREATE OR REPLACE TABLE {_kept(table)} AS {select}", params)
    _note(con, table, *_shape(con, table), None)


def keep(con: duckdb.DuckDBPyConnection, table: str, series: tuple[str, ...], time: str) -> None:
    """Work each series' newest row of `table` out from all its rows, and keep them
    (`series`: the columns of one series, `time`: its time column)."""
    _keep(con, table, _newest_sql(table, series, time))


def read(
    con: duckdb.DuckDBPyConnection, table: str, series: tuple[str, ...], time: str
) -> pl.DataFrame:
    """Each series' newest row of `table`: the kept rows brought up to date from the rows
    added since, when they stand for the table; else worked out from all history. Kept."""
    ledger = _ledger(con, table)
    if ledger is None or ledger[:2] != _shape(con, table):
        keep(con, table, series, time)
    elif ledger[2] is not None:
        source = f"""(SELECT * FROM {_kept(table)}
                      UNION ALL BY NAME
                      SELECT * FROM {table} WHERE {time} >= $since)"""
        _keep(con, table, _newest_sql(source, series, time), {"since": ledger[2]})
    return query(con, f"SELECT * FROM {_kept(table)}")


def appended(con: duckdb.DuckDBPyConnection, table: str, since, count_before: int) -> None:
    """After rows whose times are all at or after `since` were added to `table`, which held
    `count_before` rows: noted, when the kept rows stood for the table as it was (else
    forgotten); the next read brings them up to date."""
    ledger = _ledger(con, table)
    count, columns = _shape(con, table)
    if ledger is None or since is None or ledger[:2] != (count_before, columns):
        forget(con, table)
        return
    _note(con, table, count, columns, since if ledger[2] is None else min(ledger[2], since))


def removed(con: duckdb.DuckDBPyConnection, table: str, held: str, columns: tuple[str, ...],
            count_before: int) -> None:  # fmt: skip
    """After the rows of `table` matching the registered relation `held` on `columns`
    were deleted (points held back: rows a night added), `table` having held
    `count_before` rows: the kept rows still stand when none of them was deleted; else
    they are forgotten."""
    ledger = _ledger(con, table)
    count, shape = _shape(con, table)
    if ledger is None or ledger[:2] != (count_before, shape):
        forget(con, table)
        return
    same = " AND ".join(f"k.{c} IS NOT DISTINCT FROM h.{c}" for c in columns)
    ((hit,),) = run(con, f"SELECT count(*) FROM {_kept(table)} k SEMI JOIN {held} h ON {same}")
    if hit:
        forget(con, table)
        return
    _note(con, table, count, shape, ledger[2])


def forget(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """The kept rows of `table` no longer stand for it (rows replaced, removed or changed
    in place): worked out again from all history at the next read."""
    run(con, _LEDGER)
    run(con, "DELETE FROM _series_kept WHERE table_name = ?", [table])
