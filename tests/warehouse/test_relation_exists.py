"""`db.relation_exists`: the one question "is this table or view created yet?", asked of a
warehouse that may be of an earlier version (a staged table not made yet, a view not built)."""

from __future__ import annotations

import duckdb

from warehouse.db import relation_exists


def test_tables_and_views_exist_and_other_names_do_not(tmp_path):
    con = duckdb.connect()
    con.execute("CREATE TABLE staged_offers (x INT)")
    con.execute("CREATE VIEW int_offers_unioned AS SELECT 1 AS x")
    con.execute("CREATE TEMP VIEW int_spot_prices_unioned AS SELECT 1 AS x")
    assert relation_exists(con, "staged_offers")
    assert relation_exists(con, "int_offers_unioned")
    assert relation_exists(con, "int_spot_prices_unioned")
    assert not relation_exists(con, "staged_aws_spot")


def test_a_named_database_is_asked_alone(tmp_path):
    other = tmp_path / "published.duckdb"
    with duckdb.connect(str(other)) as published:
        published.execute("CREATE TABLE staged_azure (x INT)")
    con = duckdb.connect()
    con.execute("CREATE TABLE staged_gcp (x INT)")
    con.execute(f"ATTACH '{other}' AS _published (READ_ONLY)")
    assert relation_exists(con, "staged_azure", database="_published")
    assert relation_exists(con, "staged_azure")  # any attached database
    assert not relation_exists(con, "staged_gcp", database="_published")
    assert not relation_exists(con, "staged_azure", database="memory")
