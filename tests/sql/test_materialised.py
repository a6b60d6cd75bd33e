"""Marts declared `config: {materialized: table}`: tables after a refresh, with the very
columns, types, rows and descriptions of the view their SQL file defines."""

from __future__ import annotations

import duckdb

from warehouse import lineage, materialise, sql_runner


def test_the_expensive_marts_are_tables_equal_to_their_views(warehouse):
    names = materialise.materialized()
    assert {"mart_cheapest_gpu_hour", "mart_gpu_offers_current"} <= set(names)
    files = sql_runner.view_files()
    declared = sql_runner.relations()
    for name in names:
        kind = warehouse.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [name]
        ).fetchone()
        assert kind == (1,), name
        body = lineage.select_of(files[name])
        warehouse.execute(f"CREATE VIEW probe AS {body}")
        assert warehouse.execute(f"DESCRIBE {name}").fetchall() == (
            warehouse.execute("DESCRIBE probe").fetchall()
        ), name
        assert warehouse.execute(f"SELECT count(*) FROM {name}").fetchone()[0] > 0
        for a, b in ((name, "probe"), ("probe", name)):
            extra = warehouse.execute(
                f"SELECT count(*) FROM (SELECT * FROM {a} EXCEPT ALL SELECT * FROM {b})"
            ).fetchone()
            assert extra == (0,), (name, a)
        warehouse.execute("DROP VIEW probe")
        comment = warehouse.execute(
            "SELECT comment FROM duckdb_tables() WHERE table_name = ?", [name]
        ).fetchone()
        assert comment == (declared[name].description,)


def test_the_stored_current_offers_are_in_cheapest_order(warehouse):
    """int_offers_current gives its rows in cheapest_order, and the stored current offers
    keep that order: sorted, their prices and specs compress to runs (at a million offers
    under half the blocks of the same rows in any order)."""
    out_of_order = warehouse.execute(
        """SELECT count(*) FILTER (WHERE cheapest_order < previous), count(*)
           FROM (SELECT cheapest_order,
                        lag(cheapest_order) OVER (ORDER BY rowid) AS previous
                 FROM mart_gpu_offers_current)"""
    ).fetchone()
    assert out_of_order[1] > 1000 and out_of_order[0] == 0


def test_a_rebuild_turns_the_table_back_into_a_view_and_materialise_again(tmp_path):
    sql = tmp_path / "sql"
    for folder in ("intermediate", "marts", "alert_inputs", "macros", "tests", "seeds"):
        (sql / folder).mkdir(parents=True)
    (sql / "intermediate" / "int_x.sql").write_text("select * from base\n")
    (sql / "marts" / "mart_x.sql").write_text(
        "select sum(v)::DECIMAL(10, 2) as total from int_x\n"
    )
    (sql / "marts" / "mart_y.sql").write_text("select total * 2 as twice from mart_x\n")
    (sql / "marts" / "schema.yml").write_text(
        "version: 2\nmodels:\n  - name: mart_x\n    config: {materialized: table}\n"
        "    description: The total.\n"
        "    columns:\n      - {name: total, description: 'USD, summed.'}\n"
    )
    con = duckdb.connect()
    con.execute("CREATE TABLE base AS SELECT 1.5 AS v")

    def kind() -> str:
        return con.execute(
            """SELECT 'TABLE' FROM duckdb_tables() WHERE table_name = 'mart_x'
               UNION ALL SELECT 'VIEW' FROM duckdb_views() WHERE view_name = 'mart_x'"""
        ).fetchone()[0]

    for v in (1.5, 4.0):
        con.execute("UPDATE base SET v = ?", [v])
        sql_runner.build_views(con, sql)
        assert kind() == "VIEW"
        view_types = con.execute("DESCRIBE mart_x").fetchall()
        assert materialise.materialise(con, sql) == ["mart_x"]
        assert kind() == "TABLE"
        assert con.execute("DESCRIBE mart_x").fetchall() == view_types
        assert con.execute("SELECT twice FROM mart_y").fetchall() == [(2 * v,)]  # reads the table
        assert con.execute(
            "SELECT comment FROM duckdb_columns() WHERE table_name = 'mart_x'"
        ).fetchall() == [("USD, summed.",)]
        assert con.execute(
            "SELECT comment FROM duckdb_tables() WHERE table_name = 'mart_x'"
        ).fetchall() == [("The total.",)]
