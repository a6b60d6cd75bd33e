"""Staging tables and quarantine: replace a provider's staged offers with the parse of its
current raw pages; add newly rejected records to quarantine with their reasons."""

from __future__ import annotations

import duckdb
import polars as pl

from warehouse.db import insert_frame, run
from warehouse.schemas import staging_ddl, staging_migrations


def replace_staged(
    con: duckdb.DuckDBPyConnection, table: str, offers: pl.DataFrame, ddl: str | None = None
) -> int:
    run(con, ddl or staging_ddl(table))
    for migration in [] if ddl else staging_migrations(table):
        run(con, migration)
    run(con, f"DELETE FROM {table}")
    return insert_frame(con, table, offers)


def quarantine(con: duckdb.DuckDBPyConnection, rejected: pl.DataFrame, at) -> int:
    """Insert rejected records not already quarantined (same load, reason and record)."""
    if rejected.is_empty():
        return 0
    frame = rejected.with_columns(pl.lit(at).cast(pl.Datetime("us")).alias("quarantined_at"))
    con.register("_rejected", frame.to_arrow())
    try:
        before = run(con, "SELECT count(*) FROM quarantine")[0][0]
        run(
            con,
            """
            INSERT INTO quarantine BY NAME
            SELECT DISTINCT r.* FROM _rejected r
            WHERE NOT EXISTS (
                SELECT 1 FROM quarantine q
                WHERE q.load_id = r.load_id AND q.reason = r.reason
                  AND q.record IS NOT DISTINCT FROM r.record)
            """,
        )
        return run(con, "SELECT count(*) FROM quarantine")[0][0] - before
    finally:
        con.unregister("_rejected")
