"""The staged tables' DDL (flows.pipeline.make_staged_tables: every connector's staging
table and declared tables, and the columns added since) runs when the code declaring them
changed since the last published refresh, or a staging table is missing; otherwise a
refresh skips it, and with it the import of each connector's declarations (Polars)."""

from __future__ import annotations

import duckdb
import pytest

from connectors import registry
from flows import pipeline
from tests._warehouse import copy_warehouse, refresh_from


def _digests(path) -> list:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return [r[0] for r in con.execute("SELECT tables_digest FROM _runs ORDER BY started_at").fetchall()]
    finally:
        con.close()


def _tables(path) -> set[str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    finally:
        con.close()


def test_a_published_refresh_records_the_digest_of_the_code_declaring_its_tables(
    azure_warehouse, tmp_path
):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    assert _digests(path)[-1] == pipeline.tables_digest()
    declared = {c.staging_table for c in registry.PROVIDERS.values()} | {
        t.name for c in registry.PROVIDERS.values() for t in c.staged
    }
    assert declared <= _tables(path)


@pytest.mark.slow  # two refreshes of the demo's Azure pages
def test_tables_are_made_again_when_one_is_missing_or_the_code_changed(
    azure_warehouse, tmp_path, monkeypatch
):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    made = []
    real = pipeline.make_staged_tables
    monkeypatch.setattr(pipeline, "make_staged_tables", lambda con: made.append(1) or real(con))
    refresh_from(path, "demo", "azure")  # same code, every table there
    assert made == []
    con = duckdb.connect(str(path))
    con.execute("DROP TABLE stg_vastai__offers")
    con.close()
    refresh_from(path, "demo", "azure")
    assert made == [1] and "stg_vastai__offers" in _tables(path)
    monkeypatch.setattr(pipeline, "tables_digest", lambda: "other code")
    refresh_from(path, "demo", "azure")
    assert made == [1, 1] and _digests(path)[-1] == "other code"
