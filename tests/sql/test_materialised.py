"""Marts declared `config: {materialized: table}`: tables after a refresh, with the very
columns, types, rows and descriptions of the view their SQL file defines."""

from __future__ import annotations

import duckdb
import pytest

from common.errors import WarehouseError
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


def test_each_stored_mart_keeps_the_order_its_schema_file_declares(warehouse):
    """A mart declaring `config: {cluster_by: [...]}` is stored in that order (the build
    itself inserts in no order): the current offers by the fetch that first saw each price,
    so the offers a night changes lie together and compress as one run of their dates and
    load instead of breaking the unchanged offers' runs (docs/benchmarks.md)."""
    declared = sql_runner.relations()
    clustered = {n: r.cluster_by for n, r in declared.items() if r.cluster_by}
    assert clustered["mart_gpu_offers_current"] == ("first_seen_at", "load_id", "cheapest_order")
    assert "mart_spot_on_demand_pairs" in clustered
    for name, columns in clustered.items():
        keys = ", ".join(columns)
        out_of_order, rows = warehouse.execute(
            f"""SELECT count(*) FILTER (WHERE n <> stored), count(*)
                FROM (SELECT row_number() OVER (ORDER BY {keys}) AS n,
                             row_number() OVER (ORDER BY rowid) AS stored FROM {name})"""
        ).fetchone()
        assert rows and out_of_order == 0, name


def test_cluster_by_names_a_stored_table_s_own_columns(tmp_path):
    marts = tmp_path / "sql" / "marts"
    marts.mkdir(parents=True)
    (marts / "mart_x.sql").write_text("select 1 as a\n")
    for config in ("{materialized: table, cluster_by: [b]}", "{cluster_by: [a]}"):
        (marts / "schema.yml").write_text(
            f"version: 2\nmodels:\n  - name: mart_x\n    config: {config}\n"
            "    description: X.\n    columns:\n      - {name: a, description: 'A.'}\n"
        )
        with pytest.raises(WarehouseError, match="cluster_by"):
            sql_runner.relations(tmp_path / "sql")


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
