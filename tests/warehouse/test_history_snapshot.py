"""The offer history as a SQL snapshot model: sql/snapshots/snp_offers_history.sql run by
the SQL runner, and warehouses written under the history's earlier name migrated in place."""

from __future__ import annotations

import copy
from pathlib import Path

import duckdb
import polars as pl
import pytest

from common.errors import WarehouseError
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.page import Page
from tests._warehouse import copy_warehouse, query, refresh
from warehouse import db, sql_runner


def azure_demo() -> list[Page]:
    return list(kit_snapshot.read_provider(kit_snapshot.DEMO_DIR, "azure"))


def without(pages: list[Page], arm_sku: str) -> list[Page]:
    """The same pages with every price of one machine gone (the provider delisted it)."""
    out = []
    for page in pages:
        body = copy.deepcopy(page.decoded())
        body["Items"] = [i for i in body["Items"] if i["armSkuName"] != arm_sku]
        out.append(Page(page.provider, page.endpoint, page.fetched_at, page.request, body=body))
    return out


def tables(path: Path) -> set[str]:
    return set(query(path, "SELECT table_name FROM duckdb_tables()")["table_name"])


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_warehouse_with_the_old_history_name_keeps_every_row_under_the_new_name(
    azure_warehouse, tmp_path
):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    con = duckdb.connect(str(path))
    # the file as an earlier release left it: the history under its old name, asserted
    # with other SQL (so the next refresh rebuilds the views that read it)
    con.execute("ALTER TABLE snp_offers_history RENAME TO int_offers_historized")
    con.execute("UPDATE _runs SET asserted_sql = 'the SQL of an earlier release'")
    old = db.query(con, "SELECT * FROM int_offers_historized ORDER BY ALL")
    con.close()
    assert old.height > 100

    summary = refresh(path, {"azure": azure_demo()})
    assert summary.exit_code == 0 and summary.history == {"opened": 0, "closed": 0}
    assert "int_offers_historized" not in tables(path)
    assert query(path, "SELECT * FROM snp_offers_history ORDER BY ALL").equals(old)
    assert query(path, "SELECT count(*) AS n FROM fct_gpu_prices")["n"][0] == old.height

    # the next merge works on the renamed table: a delisted machine's periods close
    delisted = refresh(path, {"azure": without(azure_demo(), "Standard_ND96asr_v4")})
    closed = old.filter(
        (pl.col("instance_type") == "Standard_ND96asr_v4") & pl.col("valid_to").is_null()
    ).height
    assert closed > 0 and delisted.history == {"opened": 0, "closed": closed}
    after = query(path, "SELECT * FROM snp_offers_history ORDER BY ALL")
    assert after.drop("valid_to").equals(old.drop("valid_to"))


def test_a_warehouse_with_both_names_keeps_the_new_history(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE int_offers_historized AS SELECT * FROM snp_offers_history LIMIT 0")
    before = db.query(con, "SELECT * FROM snp_offers_history ORDER BY ALL")
    con.close()
    refresh(path, {"azure": azure_demo()})
    assert query(path, "SELECT * FROM snp_offers_history ORDER BY ALL").equals(before)


def snapshot_dir(tmp_path: Path, body: str) -> Path:
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "snapshots" / "snp_things.sql").write_text(body)
    return tmp_path


def test_a_snapshot_file_runs_with_its_named_parameters_and_reports_its_select(tmp_path):
    sql_dir = snapshot_dir(
        tmp_path,
        """-- a comment; with a semicolon
        insert into things select unnest($names), $as_of;
        select count(*) as n, max(seen_at) as last_seen from things;
        """,
    )
    con = duckdb.connect()
    con.execute("CREATE TABLE things (name VARCHAR, seen_at DATE)")
    rows = sql_runner.run_snapshot(
        con, "snp_things", {"names": ["a", "b"], "as_of": "2026-11-24"}, sql_dir
    )
    assert [(r["n"], str(r["last_seen"])) for r in rows] == [(2, "2026-11-24")]


def test_a_failing_statement_leaves_the_snapshot_table_as_it_was(tmp_path):
    sql_dir = snapshot_dir(
        tmp_path,
        """delete from things;
        insert into things select $name, error('the source says no');
        """,
    )
    con = duckdb.connect()
    con.execute("CREATE TABLE things (name VARCHAR, seen_at DATE)")
    con.execute("INSERT INTO things VALUES ('kept', DATE '2026-01-01')")
    with pytest.raises(WarehouseError, match=r"snp_things\.sql failed at `insert into things"):
        sql_runner.run_snapshot(con, "snp_things", {"name": "x"}, sql_dir)
    assert con.execute("SELECT name FROM things").fetchall() == [("kept",)]


def test_a_snapshot_given_other_parameters_than_it_names_is_refused(tmp_path):
    sql_dir = snapshot_dir(tmp_path, "select $as_of as at;")
    con = duckdb.connect()
    with pytest.raises(WarehouseError, match=r"takes parameters \['as_of'\], was given \['asof'\]"):
        sql_runner.run_snapshot(con, "snp_things", {"asof": "2026-11-24"}, sql_dir)
    with pytest.raises(WarehouseError, match="no snapshot snp_other"):
        sql_runner.run_snapshot(con, "snp_other", {}, sql_dir)


def test_the_history_merge_has_no_sql_text_in_python():
    source = (Path(sql_runner.__file__).parent / "history.py").read_text().lower()
    for keyword in ("select ", "update ", "insert ", "snp_offers_history "):
        assert keyword not in source
    assert "snp_offers_history" in sql_runner.snapshot_files()
