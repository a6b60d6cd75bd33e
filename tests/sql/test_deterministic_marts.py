"""The same warehouse reads the same bytes: every mart and intermediate view, read several
times, gives identical rows (an aggregate that adds floats in a varying parallel order,
as a plain stddev_samp does, changed the last digits on every read, so every publish
rewrote the mart)."""

from __future__ import annotations

import hashlib

import duckdb
import pytest

from warehouse import sql_runner

pytestmark = pytest.mark.slow  # every test here: over ~2 s on a quiet 2-core machine

READS = 4


def _digest(con: duckdb.DuckDBPyConnection, name: str) -> str:
    rows = con.sql(f'SELECT * FROM "{name}" ORDER BY ALL').fetchall()
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def test_every_model_reads_the_same_bytes_each_time(demo_warehouse):
    con = duckdb.connect(str(demo_warehouse), read_only=True)
    try:
        con.execute("SET threads = 4")  # parallel aggregation, as on a reader's machine
        names = [
            n for n in sql_runner.view_files() if n.startswith(("mart_", "fct_", "dim_", "int_"))
        ]
        assert "mart_spot_price_stats" in names
        changing = {
            name: n for name in names if (n := len({_digest(con, name) for _ in range(READS)})) > 1
        }
    finally:
        con.close()
    assert changing == {}, f"models whose rows differ between reads: {changing}"
