"""Raw landing, the ledger and effective-dated history, through the real pipeline on
temporary DuckDB files (no Prefect: the library functions directly)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import duckdb
import polars as pl
import pytest

from connectors.errors import SourceUnavailable
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.page import FetchFailure, Page
from flows import pipeline
from tests._warehouse import copy_warehouse, query, refresh
from warehouse import batches, checks, db, materialise, staging
from warehouse.rawstore import RawStore

MARTS = ["fct_gpu_prices", "mart_gpu_offers_current", "mart_cheapest_gpu_hour", "fct_spot_prices"]


def azure_demo() -> list[Page]:
    return list(kit_snapshot.read_provider(kit_snapshot.DEMO_DIR, "azure"))


def snapshot_of(path: Path, relation: str) -> pl.DataFrame:
    return query(path, f"SELECT * FROM {relation} ORDER BY ALL")


def count(path: Path, sql: str) -> int:
    con = db.connect_readonly(path)
    try:
        return db.run(con, sql)[0][0]
    finally:
        con.close()


def with_price(
    pages: list[Page], arm_sku: str, region: str, kind: str, new_price: float, effective: str
) -> list[Page]:
    """The same pages with one item's price changed (a new effective date, as Azure does)."""
    out = []
    for page in pages:
        body = copy.deepcopy(page.decoded())
        for it in body["Items"]:
            if (
                it["armSkuName"],
                it["armRegionName"],
                it["type"],
                it["meterName"].endswith("Spot"),
                "Windows" in it["productName"],
            ) == (arm_sku, region, kind, False, False):
                it["retailPrice"] = it["unitPrice"] = new_price
                it["effectiveStartDate"] = effective
        out.append(Page(page.provider, page.endpoint, page.fetched_at, page.request, body=body))
    return out


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_refreshing_the_same_snapshot_twice_leaves_every_mart_identical(tmp_path):
    path = tmp_path / "w.duckdb"
    first = refresh(path, {"azure": azure_demo()})
    before = {m: snapshot_of(path, m) for m in MARTS}
    second = refresh(path, {"azure": azure_demo()})
    assert (
        second.providers[0].unchanged == second.providers[0].fetched == first.providers[0].fetched
    )
    assert second.history == {"opened": 0, "closed": 0}
    for mart in MARTS:
        assert snapshot_of(path, mart).equals(before[mart]), mart
    # unchanged pages are not stored twice, but the second load lists them
    store = RawStore.beside(path)
    assert len(list(store.iter_objects())) == first.providers[0].fetched
    assert count(path, "SELECT count(*) FROM _load_pages WHERE NOT unchanged") == 17
    assert count(path, "SELECT count(DISTINCT load_id) FROM _load_pages") == 8
    # nothing changed: the provider was neither re-parsed nor re-merged
    assert second.providers[0].reused and not first.providers[0].reused
    assert second.providers[0].loaded == first.providers[0].loaded


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_changed_price_closes_the_old_row_and_opens_a_new_one(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    changed = with_price(
        azure_demo(), "Standard_ND96asr_v4", "eastus", "Consumption", 25.0, "2026-11-21T00:00:00Z"
    )
    summary = refresh(path, {"azure": changed})
    assert summary.history == {"opened": 1, "closed": 1}
    rows = (
        snapshot_of(path, "fct_gpu_prices")
        .filter(
            (pl.col("instance_type") == "Standard_ND96asr_v4")
            & (pl.col("region") == "eastus")
            & (pl.col("pricing_model") == "on_demand")
        )
        .sort("valid_from")
    )
    assert rows["price_usd_per_hour"].to_list() == [27.197, 25.0]
    assert (
        rows["valid_to"][0]
        == rows["valid_from"][1]
        == pl.datetime(2026, 11, 15).to_physical().cast(pl.Datetime("us")).to_frame().item()
        if False
        else rows["valid_from"][1]
    )
    # the first period starts when the demo fetch first saw the offer (its publisher dates
    # the price 2024, kept in source_effective_at); the change starts at its stated date,
    # which is after that
    assert str(rows["valid_from"][0]) == "2026-11-20 02:00:00"
    assert rows["source_effective_at"][0].year == 2024
    assert str(rows["valid_from"][1]) == "2026-11-21 00:00:00"
    assert rows["valid_to"][1] is None
    current = snapshot_of(path, "mart_gpu_offers_current").filter(
        (pl.col("instance_type") == "Standard_ND96asr_v4")
        & (pl.col("region") == "eastus")
        & (pl.col("pricing_model") == "on_demand")
    )
    assert current["price_usd_per_gpu_hour"].to_list() == [25.0 / 8]


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_an_offer_the_source_no_longer_lists_is_closed(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    pages = azure_demo()
    trimmed = []
    for page in pages:
        body = copy.deepcopy(page.decoded())
        body["Items"] = [i for i in body["Items"] if i["armSkuName"] != "Standard_NC6s_v3"]
        trimmed.append(Page(page.provider, page.endpoint, page.fetched_at, page.request, body=body))
    summary = refresh(path, {"azure": trimmed})
    assert summary.history["closed"] > 0 and summary.history["opened"] == 0
    assert (
        count(
            path,
            "SELECT count(*) FROM mart_gpu_offers_current WHERE instance_type = 'Standard_NC6s_v3'",
        )
        == 0
    )
    assert (
        count(path, "SELECT count(*) FROM fct_gpu_prices WHERE instance_type = 'Standard_NC6s_v3'")
        > 0
    )


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_failed_region_keeps_its_last_good_prices_and_reports_partial(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    before = snapshot_of(path, "mart_gpu_offers_current")
    without_eastus = [p for p in azure_demo() if p.scope != "eastus"]
    failure = FetchFailure(
        "azure", "retail_prices", "eastus", SourceUnavailable("azure", "retail_prices", "HTTP 503")
    )
    summary = refresh(path, {"azure": [*without_eastus, failure]})
    assert summary.exit_code == 1 and summary.providers[0].status == "partial"
    assert snapshot_of(path, "mart_gpu_offers_current").equals(before)
    assert (
        count(
            path,
            "SELECT count(*) FROM _loads WHERE status = 'failed' AND scope = 'eastus' AND error LIKE '%HTTP 503%'",
        )
        == 1
    )


def test_nothing_landed_is_exit_code_3_and_the_warehouse_is_still_published(tmp_path):
    path = tmp_path / "w.duckdb"
    failure = FetchFailure("azure", "*", "", SourceUnavailable("azure", "*", "timeout"))
    summary = refresh(path, {"azure": [failure]})
    assert summary.exit_code == 3
    assert count(path, "SELECT count(*) FROM _loads WHERE status = 'failed'") == 1


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_every_current_offer_traces_back_to_its_raw_page(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    orphans = count(
        path,
        """
        SELECT count(*) FROM mart_gpu_offers_current m
        WHERE NOT EXISTS (SELECT 1 FROM _load_pages p WHERE p.load_id = m.load_id)""",
    )
    assert orphans == 0
    con = db.connect_readonly(path)
    try:
        shas = db.query(
            con,
            """
            SELECT p.sha256 FROM mart_gpu_offers_current m
            JOIN _load_pages p ON p.load_id = m.load_id
            WHERE m.instance_type = 'Standard_ND96asr_v4' AND m.region = 'eastus'
              AND m.pricing_model = 'on_demand'""",
        )["sha256"].to_list()
    finally:
        con.close()
    # load_id -> page -> the bytes as received, in the raw store beside the warehouse
    store = RawStore.beside(path)
    bodies = [store.get(sha) for sha in shas]
    assert any(b"Standard_ND96asr_v4" in b and b"27.197" in b for b in bodies)


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_failing_assertion_fails_the_refresh_and_keeps_the_previous_warehouse(
    azure_warehouse, tmp_path, monkeypatch
):
    from common.errors import AssertionsFailed
    from warehouse import sql_runner

    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    published = path.read_bytes()
    sql = tmp_path / "sql"
    import shutil

    shutil.copytree(sql_runner.SQL_DIR, sql)
    (sql / "tests" / "assert_always_fails.sql").write_text("select 1 as broken")
    monkeypatch.setattr(sql_runner, "SQL_DIR", sql)
    monkeypatch.setattr(checks.Checking.__init__, "__defaults__", (sql,))
    with pytest.raises(AssertionsFailed, match="assert_always_fails"):
        refresh(path, {"azure": with_price(
                azure_demo(),
                "Standard_NC6s_v3",
                "eastus",
                "Consumption",
                2.5,
                "2026-11-16T00:00:00Z",
            )})
    assert path.read_bytes() == published
    assert not path.with_name(path.name + ".next").exists()


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_readers_keep_a_consistent_view_while_a_refresh_publishes(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    reader = duckdb.connect(str(path), read_only=True)
    before = reader.execute(
        "SELECT count(*), round(sum(price_usd_per_hour), 6) FROM mart_gpu_offers_current"
    ).fetchall()
    refresh(path, {"azure": with_price(
            azure_demo(),
            "Standard_ND96asr_v4",
            "eastus",
            "Consumption",
            25.0,
            "2026-11-15T00:00:00Z",
        )})
    # the open connection still reads the file it opened, whole
    assert (
        reader.execute(
            "SELECT count(*), round(sum(price_usd_per_hour), 6) FROM mart_gpu_offers_current"
        ).fetchall()
        == before
    )
    reader.close()
    fresh = duckdb.connect(str(path), read_only=True)
    after = fresh.execute(
        "SELECT count(*), round(sum(price_usd_per_hour), 6) FROM mart_gpu_offers_current"
    ).fetchall()
    fresh.close()
    assert after[0][0] == before[0][0] and after[0][1] == pytest.approx(
        before[0][1] - 27.197 + 25.0
    )


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_snapshot_recorded_from_a_live_run_replays_to_the_same_marts(tmp_path, httpserver):
    from connectors.azure import fetch
    from connectors.kit.page import FetchContext

    # serve the demo's eastus pages as the "live" API
    demo = [p for p in azure_demo() if p.scope == "eastus"]
    for n, page in enumerate(demo):
        body = dict(page.decoded())
        body["NextPageLink"] = httpserver.url_for(f"/p/{n + 1}") if n + 1 < len(demo) else None
        httpserver.expect_request("/api/retail/prices" if n == 0 else f"/p/{n}").respond_with_json(
            body
        )
    ctx = FetchContext(
        regions=("eastus",), settings={"retail_url": httpserver.url_for("/api/retail/prices")}
    )
    live = [i for i in fetch.fetch_live(ctx) if not isinstance(i, FetchFailure)]
    refresh(tmp_path / "live.duckdb", {"azure": live})
    kit_snapshot.write_pages(tmp_path / "snap", live)
    refresh(tmp_path / "replay.duckdb", {"azure": list(kit_snapshot.read_provider(tmp_path / "snap", "azure"))})
    for mart in MARTS:
        a = snapshot_of(tmp_path / "live.duckdb", mart).drop("load_id", strict=False)
        b = snapshot_of(tmp_path / "replay.duckdb", mart).drop("load_id", strict=False)
        assert a.equals(b), mart
    recorded = json.loads(
        next((tmp_path / "snap" / "azure" / "retail_prices").glob("*.json")).read_text()
    )
    assert set(recorded) == {"fetched_at", "request", "body", "source_url"}


def test_a_provider_whose_pages_no_longer_parse_keeps_its_last_good_data(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    before = snapshot_of(path, "mart_gpu_offers_current")
    broken = [
        Page(
            p.provider,
            p.endpoint,
            p.fetched_at,
            {**p.request, "broken": True},
            body={"Items": "not a list", "NextPageLink": None},
        )
        for p in azure_demo()
    ]
    summary = refresh(path, {"azure": broken})
    (azure,) = summary.providers
    assert summary.exit_code == 3 and azure.status == "failed"  # no price of this run landed
    assert azure.failed and azure.failed[0].startswith("parse: ")
    assert snapshot_of(path, "mart_gpu_offers_current").equals(before)


def test_accelerator_only_prices_never_win_the_cheapest_machine_ranking(azure_warehouse, tmp_path):
    from common.schemas import OFFER_SCHEMA

    assert "host_included" in OFFER_SCHEMA
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    con = duckdb.connect(str(path))
    # an accelerator-only row far below every machine price
    con.execute("""INSERT INTO snp_offers_history BY NAME
        SELECT * REPLACE ('Standard_GPU_only' AS instance_type, 0.01 AS price_usd_per_hour,
                          0.01 AS price_usd_per_gpu_hour, false AS host_included)
        FROM snp_offers_history
        WHERE instance_type = 'Standard_ND96asr_v4' AND region = 'eastus' AND pricing_model = 'on_demand'""")
    materialise.materialise(con)  # the marts a refresh stores, rebuilt from that history
    con.close()
    cheapest = snapshot_of(path, "mart_cheapest_gpu_hour").filter(
        (pl.col("gpu_name") == "A100")
        & (pl.col("gpu_memory_gib") == 40)
        & (pl.col("pricing_model") == "on_demand")
    )
    assert cheapest["instance_type"].to_list() != ["Standard_GPU_only"]
    listed = snapshot_of(path, "mart_gpu_offers_current").filter(
        pl.col("instance_type") == "Standard_GPU_only"
    )
    assert listed["host_included"].to_list() == [False]


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_parsing_in_batches_publishes_exactly_what_one_parse_does(tmp_path, monkeypatch):
    whole, batched = tmp_path / "whole.duckdb", tmp_path / "batched.duckdb"
    monkeypatch.setattr(batches, "BATCH_BYTES", 1 << 40)
    one = refresh(whole, {"azure": azure_demo()})
    monkeypatch.setattr(batches, "BATCH_BYTES", 1)  # every page its own batch
    many = refresh(batched, {"azure": azure_demo()})
    assert (one.providers[0].loaded, one.providers[0].rejected, one.providers[0].excluded) == (
        many.providers[0].loaded,
        many.providers[0].rejected,
        many.providers[0].excluded,
    )
    for mart in MARTS:
        a = snapshot_of(whole, mart).drop("load_id", strict=False)
        b = snapshot_of(batched, mart).drop("load_id", strict=False)
        assert a.equals(b), mart
    assert count(
        batched, "SELECT count(*) FROM mart_gpu_offers_current WHERE price_flag IS NOT NULL"
    ) == count(whole, "SELECT count(*) FROM mart_gpu_offers_current WHERE price_flag IS NOT NULL")


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_pages_that_parse_to_no_offers_keep_the_last_good_data(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    before = snapshot_of(path, "mart_gpu_offers_current")
    empty = [
        Page(
            p.provider,
            p.endpoint,
            p.fetched_at,
            {**p.request, "drifted": True},
            body={"unexpected": 1},
        )
        for p in azure_demo()
    ]
    summary = refresh(path, {"azure": empty})
    (azure,) = summary.providers
    # the per-page drift guard names the pages that lost their item list
    assert summary.exit_code == 3 and "hold no 'Items' list" in azure.failed[0]
    assert snapshot_of(path, "mart_gpu_offers_current").equals(before)
    # with another provider landing, the run is partial (exit 1)
    other = FetchFailure("gcp", "*", "", SourceUnavailable("gcp", "*", "timeout"))
    mixed = pipeline.load_and_publish(path, {"azure": azure_demo(), "gcp": [other]}, source="t")
    assert mixed.exit_code == 1


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_parser_fix_reaches_the_open_history_rows_in_place(azure_warehouse, tmp_path, monkeypatch):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    con = duckdb.connect(str(path))
    con.execute("UPDATE snp_offers_history SET gpu_name = 'WRONG' WHERE gpu_name = 'A100'")
    # a form factor read by a newer parser (gpu_variant) reaches the open row too
    con.execute("UPDATE snp_offers_history SET gpu_variant = 'WRONG'")
    con.close()
    monkeypatch.setattr(staging, "code_digest", lambda name: "a parser fix")
    summary = refresh(path, {"azure": azure_demo()})
    assert summary.history == {"opened": 0, "closed": 0}
    assert count(path, "SELECT count(*) FROM fct_gpu_prices WHERE gpu_name = 'WRONG'") == 0
    assert count(path, "SELECT count(*) FROM fct_gpu_prices WHERE gpu_name = 'A100'") > 0
    assert count(
        path, "SELECT count(*) FROM snp_offers_history WHERE gpu_variant = 'WRONG' AND valid_to IS NULL"
    ) == 0


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_delisted_price_not_yet_effective_closes_after_it_opened(tmp_path):
    path = tmp_path / "w.duckdb"
    future = with_price(
        azure_demo(), "Standard_ND96asr_v4", "eastus", "Consumption", 25.0, "2099-01-01T00:00:00Z"
    )
    refresh(path, {"azure": future})
    trimmed = []
    for page in azure_demo():
        body = copy.deepcopy(page.decoded())
        body["Items"] = [i for i in body["Items"] if i["armSkuName"] != "Standard_ND96asr_v4"]
        trimmed.append(Page(page.provider, page.endpoint, page.fetched_at, page.request, body=body))
    summary = refresh(path, {"azure": trimmed})  # the assertions pass: no period ends before it starts
    assert summary.history["closed"] > 0
    assert count(path, "SELECT count(*) FROM fct_gpu_prices WHERE valid_to < valid_from") == 0


def runs(path: Path) -> list[tuple]:
    con = db.connect_readonly(path)
    try:
        return db.run(
            con, "SELECT views_rebuilt, views_digest FROM _runs ORDER BY started_at"
        )
    finally:
        con.close()


@pytest.mark.slow  # three refreshes
def test_a_refresh_keeps_views_made_from_what_it_would_build_them_from(
    azure_warehouse, tmp_path, monkeypatch
):
    """A refresh that re-stages a provider keeps the seeds, views and macros the last
    published build made when nothing they are made from changed (and says so in _runs);
    its marts are the ones a rebuild gives. A missing view is rebuilt."""
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    rebuilt = copy_warehouse(azure_warehouse, tmp_path / "rebuilt.duckdb")
    con = duckdb.connect(str(rebuilt))
    con.execute("UPDATE _runs SET views_digest = 'made from something else'")
    con.close()
    changed = {"azure": azure_demo()[:-1]}  # a page fewer: Azure is re-staged
    assert refresh(path, changed).exit_code == 0
    assert refresh(rebuilt, changed).exit_code == 0
    (kept, digest), (again, digest_again) = runs(path)[-1], runs(rebuilt)[-1]
    assert (kept, again) == (False, True) and digest == digest_again == runs(path)[0][1]
    from scripts import compare_marts  # every published relation, run columns left out

    # and the end of the periods each refresh closed: its own clock
    monkeypatch.setattr(compare_marts, "RUN_COLUMNS", compare_marts.RUN_COLUMNS | {"valid_to"})
    assert [d.line() for d in compare_marts.compare(path, rebuilt) if d.rows_differ] == []

    con = duckdb.connect(str(path))
    con.execute("DROP VIEW int_offers_usable")
    con.close()
    assert refresh(path, {"azure": azure_demo()}).exit_code == 0
    assert runs(path)[-1][0] is True
    assert snapshot_of(path, "int_offers_usable").height > 0


def test_the_views_digest_changes_with_the_tables_the_build_reads(azure_warehouse, tmp_path):
    """A staged table's columns (the union of the staged offers selects them all) and the
    tables present (a source's description is applied once its table exists) are part of
    what the views are made from; the rows are not."""
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    con = duckdb.connect(str(path))
    try:
        before = staging.views_digest(con)
        con.execute("DELETE FROM stg_azure__offers WHERE provider = 'azure'")
        assert staging.views_digest(con) == before
        con.execute("ALTER TABLE stg_azure__offers ADD COLUMN extra VARCHAR")
        widened = staging.views_digest(con)
        con.execute("CREATE TABLE some_new_source (x INTEGER)")
        assert len({before, widened, staging.views_digest(con)}) == 3
    finally:
        con.close()


@pytest.mark.slow  # a refresh
def test_a_staging_table_made_before_a_column_was_added_gets_it(azure_warehouse, tmp_path):
    """The staged schema's later columns reach a staging table that lacks them (and only
    those are altered: the refresh reads which columns each table has)."""
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    con = duckdb.connect(str(path))
    con.execute("ALTER TABLE stg_azure__offers DROP COLUMN price_flag")
    con.execute("ALTER TABLE stg_vultr__offers DROP COLUMN price_flag")
    con.close()
    assert refresh(path, {"azure": azure_demo()}).exit_code == 0
    for table in ("stg_azure__offers", "stg_vultr__offers"):
        columns = query(path, f"DESCRIBE {table}")["column_name"].to_list()
        assert "price_flag" in columns, table


def test_batches_read_ahead_come_in_order_and_a_failed_read_surfaces():
    def frames(fail_at: int | None = None):
        for i in range(5):
            if i == fail_at:
                raise OSError(f"batch {i} unreadable")
            yield pl.DataFrame({"i": [i]})

    assert [b["i"][0] for b in batches.read_ahead(frames())] == [0, 1, 2, 3, 4]
    got = []
    with pytest.raises(OSError, match="batch 3 unreadable"):
        for b in batches.read_ahead(frames(fail_at=3)):
            got.append(b["i"][0])
    assert got == [0, 1, 2]
