"""Each intermediate view computed once per build (warehouse.sql_runner.computed_once): held
as a temporary table of the same name while the marts materialise and the tests run, the
same rows as the view, and gone afterwards."""

from __future__ import annotations

import shutil

from warehouse import checks, db, sql_runner


def test_the_held_views_give_the_same_rows_and_are_released(demo_warehouse, tmp_path):
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    con = db.connect_readonly(path)
    try:
        expected = {
            name: db.query(con, f"SELECT * FROM {name} ORDER BY ALL")
            for name in ("int_offers_current", "mart_cheapest_gpu_hour")
        }
    finally:
        con.close()
    with db.building(path) as con:
        sql_runner.build_views(con)
        with sql_runner.computed_once(con) as held:
            assert "int_offers_current" in held
            temp = {r[0] for r in db.run(
                con, "SELECT table_name FROM duckdb_tables() WHERE database_name = 'temp'"
            )}
            assert set(held) <= temp
            # views read the held rows: the same as the view's own
            assert db.query(con, "SELECT * FROM int_offers_current ORDER BY ALL").equals(
                expected["int_offers_current"]
            )
            sql_runner.materialise(con)
            assert checks.assert_healthy(con)
        assert db.run(con, "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'temp'") == [
            (0,)
        ]
    con = db.connect_readonly(path)
    try:
        got = db.query(con, "SELECT * FROM mart_cheapest_gpu_hour ORDER BY ALL")
        kind = db.run(
            con, "SELECT count(*) FROM duckdb_views() WHERE view_name = 'int_offers_current'"
        )
    finally:
        con.close()
    assert got.equals(expected["mart_cheapest_gpu_hour"])
    assert kind == [(1,)]  # the published warehouse keeps the view
