"""Column descriptions: the schema files are their source, the published warehouse carries
them as COMMENT ON, and every column of every relation docs/contract.md lists has one."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from warehouse import sql_runner

CONTRACT = Path(__file__).resolve().parents[2] / "docs" / "contract.md"


def contract_relations() -> list[str]:
    """The relations of the contract's warehouse section: its headings, and the rows of its
    bookkeeping table."""
    text = CONTRACT.read_text()
    section = text.split("## 3. Warehouse relations", 1)[1].split("\n## ", 1)[0]
    names = re.findall(r"^### `(\w+)`", section, flags=re.M)
    names += re.findall(r"^\| `(\w+)` \|", section.split("### Bookkeeping", 1)[1], flags=re.M)
    return names


@pytest.fixture(scope="module")
def published(demo_warehouse):
    con = duckdb.connect(str(demo_warehouse), read_only=True)
    yield con
    con.close()


def test_the_contract_lists_the_stable_relations():
    names = contract_relations()
    assert {"mart_gpu_offers_current", "fct_gpu_prices", "dim_gpus", "_loads", "alert_events"} <= set(names)
    assert len(names) == len(set(names)) >= 15


@pytest.mark.parametrize("relation", contract_relations())
def test_every_column_of_a_contract_relation_is_described(published, relation):
    declared = sql_runner.relations()
    assert relation in declared, f"{relation} has no entry in a schema file"
    columns = [
        r[0]
        for r in published.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = ? ORDER BY column_index",
            [relation],
        ).fetchall()
    ]
    assert columns, f"{relation} is not in the demo warehouse"
    described = {c for c, text in declared[relation].columns.items() if text}
    assert [c for c in columns if c not in described] == []
    assert declared[relation].description


def test_the_published_warehouse_shows_the_descriptions_as_comments(published):
    declared = sql_runner.relations()
    rows = published.execute(
        """SELECT table_name, column_name, comment FROM duckdb_columns()
           WHERE table_name IN ('mart_gpu_offers_current', '_loads', 'int_offers_current')"""
    ).fetchall()
    comments = {(t, c): text for t, c, text in rows}
    assert comments[("mart_gpu_offers_current", "price_usd_per_hour")] == (
        declared["mart_gpu_offers_current"].columns["price_usd_per_hour"]
    )
    assert "USD" in comments[("mart_gpu_offers_current", "price_usd_per_hour")]
    assert "raw store" in comments[("mart_gpu_offers_current", "load_id")]
    assert comments[("_loads", "status")] == "ok, failed or skipped."
    assert comments[("int_offers_current", "is_comparable")].startswith("A priced machine")
    views = dict(
        published.execute("SELECT view_name, comment FROM duckdb_views() WHERE NOT internal").fetchall()
    )
    assert views["int_offers_current"] == declared["int_offers_current"].description
    tables = dict(published.execute("SELECT table_name, comment FROM duckdb_tables()").fetchall())
    # a materialised mart is a table, described as its view was
    assert tables["mart_gpu_offers_current"] == declared["mart_gpu_offers_current"].description
    assert tables["_load_pages"] == declared["_load_pages"].description


def test_a_rebuilt_view_gets_its_comments_back(tmp_path):
    sql = tmp_path / "sql"
    for folder in ("intermediate", "marts", "alert_inputs", "macros", "tests", "seeds"):
        (sql / folder).mkdir(parents=True)
    (sql / "marts" / "mart_x.sql").write_text("select 1 as price_usd_per_hour\n")
    (sql / "marts" / "schema.yml").write_text(
        "version: 2\nmodels:\n  - name: mart_x\n    description: It's x.\n"
        "    columns:\n      - {name: price_usd_per_hour, description: 'USD per hour, it''s the price.'}\n"
    )
    con = duckdb.connect()
    for _ in range(2):  # CREATE OR REPLACE VIEW drops comments: the build puts them back
        sql_runner.build_views(con, sql)
        assert con.execute(
            "SELECT comment FROM duckdb_columns() WHERE table_name = 'mart_x'"
        ).fetchall() == [("USD per hour, it's the price.",)]
        assert con.execute("SELECT comment FROM duckdb_views() WHERE view_name = 'mart_x'").fetchall() == [
            ("It's x.",)
        ]
