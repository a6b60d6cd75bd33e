"""Meta-tests over the registry: every registered provider is documented, tested, wired
into the warehouse, and emits only GPUs the reference table knows."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import polars as pl
import pytest

from connectors import registry
from connectors.kit.connector import OFFER_EXTRA_COLUMNS
from connectors.kit.page import pages_frame
from connectors.kit.snapshot import DEMO_DIR, read_provider

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
SEED = ROOT / "sql" / "seeds" / "seed_gpu_specs.csv"
NAMES = sorted(registry.PROVIDERS)


def _non_empty(folder: Path) -> bool:
    return folder.is_dir() and any(p.is_file() for p in folder.rglob("*"))


def _seed_gpus() -> set[tuple[str, float]]:
    with SEED.open(newline="", encoding="utf-8") as fh:
        return {(r["gpu_name"], float(r["gpu_memory_gib"])) for r in csv.DictReader(fh)}


def _demo_pages(provider: str) -> pl.DataFrame:
    return pages_frame(read_provider(DEMO_DIR, provider))


@pytest.mark.parametrize("name", NAMES)
def test_every_registered_provider_has_fixtures_or_a_demo_snapshot(name):
    assert _non_empty(TESTS / "fixtures" / name) or _non_empty(DEMO_DIR / name), name


@pytest.mark.parametrize("name", NAMES)
def test_every_registered_provider_has_a_parse_test_that_imports_its_parser(name):
    uses_parser = re.compile(
        rf"from connectors\.{name} import [^\n]*\bparse\b|connectors\.{name}\.parse\b"
    )
    folder = TESTS / "connectors" / name  # the tests mirror the connector packages
    files = [p for p in folder.glob("test_*parse*.py") if uses_parser.search(p.read_text())]
    assert files, f"no tests/connectors/{name}/test_*parse*.py imports connectors.{name}.parse"


@pytest.mark.parametrize("name", NAMES)
def test_every_registered_provider_has_a_readme_in_its_package(name):
    readme = ROOT / "connectors" / name / "README.md"
    assert readme.is_file() and readme.read_text().strip(), readme


def test_a_new_connector_reaches_the_union_once_registered(tmp_path, monkeypatch):
    """A registered connector (the registry finds its folder; see
    test_new_provider_template) needs nothing else: the refresh creates its staging table
    and int_offers_unioned (generated from the staging tables) picks it up. Here a copy of
    the Lambda connector registered as `newcloud` replays Lambda's demo page."""
    import dataclasses
    import shutil

    import duckdb

    from flows import pipeline

    newcloud = dataclasses.replace(registry.get("lambdalabs"), name="newcloud")
    monkeypatch.setitem(registry.PROVIDERS, "newcloud", newcloud)
    snap = tmp_path / "snap"
    shutil.copytree(DEMO_DIR / "lambdalabs", snap / "newcloud")
    path = tmp_path / "w.duckdb"
    fetched = {"newcloud": pipeline.fetch_pages("newcloud", snap, pipeline.FetchContext())}
    summary = pipeline.load_and_publish(path, fetched, source="test")
    assert summary.exit_code == 0
    con = duckdb.connect(str(path), read_only=True)
    try:
        connectors = {
            r[0]
            for r in con.execute("SELECT DISTINCT connector FROM int_offers_unioned").fetchall()
        }
        offers = con.execute(
            "SELECT count(*) FROM mart_gpu_offers_current m JOIN fct_gpu_prices f USING (load_id)"
            " WHERE f.connector = 'newcloud'"
        ).fetchone()[0]
        # the warehouse's own docs (COMMENT ON, what duckdb and DBeaver show) name it too
        union_doc = con.execute(
            "SELECT comment FROM duckdb_views() WHERE view_name = 'int_offers_unioned'"
        ).fetchone()[0]
        table_doc = con.execute(
            "SELECT comment FROM duckdb_tables() WHERE table_name = 'stg_newcloud__offers'"
        ).fetchone()[0]
        undocumented = con.execute(
            "SELECT column_name FROM duckdb_columns()"
            " WHERE table_name = 'int_offers_unioned' AND comment IS NULL"
        ).fetchall()
    finally:
        con.close()
    assert connectors == {"newcloud"}
    assert offers > 0
    assert "newcloud" in union_doc.split(": ")[-1].rstrip(".").split(", ")
    assert "newcloud connector" in table_doc
    assert undocumented == []


@pytest.mark.parametrize("name", [n for n in NAMES if _non_empty(DEMO_DIR / n)])
def test_every_connector_parses_its_demo_pages_into_the_declared_contract(name):
    """`Connector.parse` returns one `Parsed`: canonical offers, and for every table the
    connector declares (`Connector.staged`) rows that insert into the table its declared
    DDL creates."""
    import duckdb

    from common.schemas import OFFER_SCHEMA
    from connectors.kit.connector import Parsed
    from warehouse import db

    connector = registry.get(name)
    parsed = connector.parse(_demo_pages(name))
    assert isinstance(parsed, Parsed) and parsed.offers.height
    # plus what the normalise step reads past the parse: the raw record, the GPU's words
    assert [c for c in parsed.offers.columns if c not in OFFER_EXTRA_COLUMNS] == list(
        OFFER_SCHEMA
    )
    assert set(parsed.staged) == {t.name for t in connector.staged}
    con = duckdb.connect()
    for table in connector.staged:
        rows = parsed.staged[table.name]
        assert rows.schema == table.columns, table.name
        db.run(con, table.ddl)
        assert db.insert_frame(con, table.name, rows) == rows.height


@pytest.mark.parametrize("name", [n for n in NAMES if _non_empty(DEMO_DIR / n)])
def test_every_gpu_a_connector_emits_from_its_demo_pages_is_in_the_gpu_reference(name):
    parsed = registry.get(name).parse(_demo_pages(name)).offers
    emitted = (
        parsed.filter(pl.col("gpu_name").is_not_null())
        .select("gpu_name", pl.col("gpu_memory_gib").cast(pl.Float64))
        .unique()
        .rows()
    )
    missing = sorted(set(emitted) - _seed_gpus(), key=str)
    assert not missing, f"{name} emits GPUs missing from {SEED.name}: {missing}"


def test_the_gpu_reference_has_the_gpus_the_demo_relies_on():
    seed = _seed_gpus()
    # Azure NVv3 (Tesla M60) and ND MI300X v5; Azure's NG V620 is unknown on purpose
    assert {("M60", 8.0), ("MI300X", 192.0)} <= seed
    assert not any(g == "V620" for g, _ in seed)


def test_the_sheets_connector_declares_every_provider_its_sheets_publish():
    sheets = registry.get("sheets")
    parsed = sheets.parse(_demo_pages("sheets")).offers
    assert set(parsed["provider"].drop_nulls()) <= set(sheets.emits_providers)
