"""Effective-dated offer history (SCD type 2): the refresh's entry to
`sql/snapshots/snp_offers_history.sql`, where the rules and the merge live."""

from __future__ import annotations

from datetime import datetime

import duckdb

from warehouse import sql_runner

SNAPSHOT = "snp_offers_history"


def merge(con: duckdb.DuckDBPyConnection, connectors: list[str], as_of: datetime) -> dict[str, int]:
    """Merge the staged offers of `connectors` into the history as of `as_of`; returns the
    price periods opened and closed."""
    if not connectors:
        return {"opened": 0, "closed": 0}
    (report,) = sql_runner.run_snapshot(
        con, SNAPSHOT, {"connectors": connectors, "as_of": as_of}
    )
    return {"opened": int(report["opened"]), "closed": int(report["closed"])}
