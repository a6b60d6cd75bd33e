"""Each intermediate view computed once per build (warehouse.materialise.computed_once): its
rows stored in a scratch database beside the warehouse and read through a temporary view of
the same name while the marts materialise and the tests run, the same rows as the view, and
gone afterwards (the views, the scratch database and its file)."""

from __future__ import annotations

import shutil

import pytest

from common.errors import WarehouseError
from warehouse import checks, db, lineage, materialise, sql_runner


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
        scratch = path.with_name(path.name + ".next" + db.HELD_SUFFIX)
        with materialise.computed_once(con) as held:
            assert "int_offers_current" in held
            temp = {r[0] for r in db.run(
                con, "SELECT view_name FROM duckdb_views() WHERE database_name = 'temp'"
            )}
            assert set(held) <= temp
            stored = {r[0] for r in db.run(
                con, "SELECT table_name FROM duckdb_tables() WHERE database_name = $d",
                {"d": materialise.HELD},
            )}
            assert stored == set(held)
            assert scratch.exists()  # on disk beside the build, not in memory
            # views read the held rows: the same as the view's own
            assert db.query(con, "SELECT * FROM int_offers_current ORDER BY ALL").equals(
                expected["int_offers_current"]
            )
            materialise.materialise(con)
            assert checks.assert_healthy(con)
        assert db.run(con, "SELECT count(*) FROM duckdb_views() WHERE database_name = 'temp'") == [
            (0,)
        ]
        assert db.run(con, "SELECT count(*) FROM duckdb_databases() WHERE database_name = $d",
                      {"d": materialise.HELD}) == [(0,)]  # fmt: skip
        assert not scratch.exists()
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


def test_the_stored_marts_are_built_among_the_held_views(demo_warehouse, tmp_path):
    """`materialise_marts`: each mart declared a table is stored at its place in the build
    order, so a view held after it (mart_spot_price_stats reads mart_gpu_offers_current)
    reads the stored rows; the marts are those `materialise` builds, row for row."""
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    stored = materialise.materialized()
    assert "mart_gpu_offers_current" in stored
    with db.building(path) as con:
        sql_runner.build_views(con)
        materialise.materialise(con)
        expected = {n: db.query(con, f"SELECT * FROM {n} ORDER BY ALL") for n in stored}
        sql_runner.build_views(con)  # the views again, as a refresh starts from
        kinds = sql_runner.relation_kinds(con)
        assert {kinds[n] for n in stored} == {"VIEW"}
        with materialise.computed_once(con, materialise_marts=True) as held:
            kinds = sql_runner.relation_kinds(con)
            assert {kinds[n] for n in stored} == {"TABLE"}
            # (mart_spot_price_stats reads mart_gpu_offers_current: a leaf mart, not held,
            # but read after it is stored, as the plan below shows)
            assert not set(stored) & set(held)
            # declared `meta: {held: false}`: each reader computes it again
            unheld = {r.name for r in sql_runner.relations().values() if not r.held}
            assert unheld >= {"int_offers_flagged", "int_offers_usable", "fct_gpu_prices"}
            assert not unheld & set(held)
            # a leaf mart (no view, macro or assertion reads it) is read by its tests only
            assert not {"mart_cost_per_token", "mart_reserved_breakeven"} & set(held)
            for name in stored:
                assert db.query(con, f"SELECT * FROM {name} ORDER BY ALL").equals(expected[name])
            body = lineage.select_of(sql_runner.view_files()["mart_spot_price_stats"])
            plan = str(db.run(con, f"EXPLAIN {body}"))
            # the stored table scanned, not computed again from the offers it is built from
            assert "mart_gpu_offers_current" in plan and "int_offers_current" not in plan
            assert checks.assert_healthy(con)
        rows = db.run(con, """SELECT count(*) FROM duckdb_tables() WHERE table_name IN
                              (SELECT unnest($n)) AND database_name = current_database()""",
                      {"n": stored})  # fmt: skip
        assert rows == [(len(stored),)]


def test_held_is_true_or_false(tmp_path):
    (tmp_path / "intermediate").mkdir()
    (tmp_path / "intermediate" / "v.sql").write_text("select 1 as x")
    (tmp_path / "intermediate" / "v.yml").write_text(
        "version: 2\nmodels:\n  - name: v\n    meta: {held: no thanks}\n"
    )
    with pytest.raises(WarehouseError, match=r"meta\.held must be true or false"):
        sql_runner.relations(tmp_path)


def test_the_scratch_database_goes_on_failure_and_a_stale_one_is_replaced(
    demo_warehouse, tmp_path
):
    """A build that fails inside the block leaves no scratch file and no held view; one
    left by a killed refresh (garbage, here) is removed before the next build."""
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    scratch = path.with_name(path.name + ".next" + db.HELD_SUFFIX)
    scratch.write_bytes(b"left by a killed refresh")
    with pytest.raises(RuntimeError, match="stop"), db.building(path) as con:
        assert not scratch.exists()
        sql_runner.build_views(con)
        with materialise.computed_once(con) as held:
            assert held and scratch.exists()
            raise RuntimeError("stop")
    assert not scratch.exists()
    assert not list(tmp_path.glob("w.duckdb.next*"))


def test_a_warehouse_in_a_folder_whose_name_holds_a_quote(demo_warehouse, tmp_path):
    """The scratch database is attached by its path written in SQL: a quote in the path is
    a quote, not the end of the statement's string."""
    folder = tmp_path / "o'brien's data"
    folder.mkdir()
    path = folder / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    with db.building(path) as con:
        sql_runner.build_views(con)
        with materialise.computed_once(con) as held:
            assert "int_offers_current" in held
            assert db.run(con, "SELECT count(*) > 0 FROM int_offers_current") == [(True,)]
    assert not list(folder.glob("w.duckdb.next*"))
