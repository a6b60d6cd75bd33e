"""The specialty connectors end to end: demo snapshot -> raw -> parse -> staging ->
history -> marts, on temporary DuckDB files (library functions, no Prefect), and the
CLI's `history` / `rates` documents over the result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from connectors.errors import UnexpectedResponse
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.page import FetchFailure, Page
from flows import pipeline
from gpu_pricing.cli import app
from tests._warehouse import copy_warehouse
from warehouse import db

PROVIDERS = ("azure", "lambdalabs", "runpod", "vastai", "oci", "sheets")
SURVEY = "price survey 2023-04-07"


def demo(*providers: str) -> dict[str, list]:
    return {p: list(kit_snapshot.read_provider(kit_snapshot.DEMO_DIR, p)) for p in providers}


def query(path: Path, sql: str, params=None):
    con = db.connect_readonly(path)
    try:
        return db.query(con, sql, params)
    finally:
        con.close()


def cli(*args: str) -> dict:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("specialty") / "w.duckdb"
    summary = pipeline.load_and_publish(path, demo(*PROVIDERS), source="demo")
    assert summary.exit_code == 0 and not any(summary.assertions.values())
    return path


def test_a100_80_history_starts_with_the_2023_survey_and_continues_with_current_prices(
    warehouse,
):
    rows = cli(
        "history", "--gpu", "A100", "--memory", "80", "--json", "--warehouse", str(warehouse)
    )["history"]
    survey = [r for r in rows if r["pricing_detail"] == SURVEY]
    current = [r for r in rows if r["valid_to"] is None]
    assert {r["provider"] for r in survey} == {
        "aws", "azure", "oci", "gcp", "coreweave", "lambdalabs", "fluidstack"
    }  # fmt: skip
    assert len(survey) == 15
    assert all(
        (r["valid_from"], r["valid_to"]) == ("2023-04-07T00:00:00Z", "2023-04-08T00:00:00Z")
        for r in survey
    )
    # ordered by valid_from: the whole survey comes first, the current offers after it
    assert rows[: len(survey)] == survey
    assert {r["provider"] for r in current} >= {
        "azure", "lambdalabs", "runpod", "vastai", "oci", "coreweave"
    }  # fmt: skip
    lambda_2023 = next(
        r for r in survey if r["provider"] == "lambdalabs" and r["pricing_model"] == "on_demand"
    )
    assert lambda_2023["price_usd_per_gpu_hour"] == 1.50


def test_survey_prices_are_history_only_never_current_offers(warehouse):
    current = query(
        warehouse,
        "SELECT count(*) AS n FROM mart_gpu_offers_current WHERE instance_type LIKE 'A100-%GB'",
    )
    assert current["n"][0] == 0
    rates = cli(
        "rates", "--gpu", "A100", "--json", "--limit", "1000", "--warehouse", str(warehouse)
    )
    assert all(r["pricing_detail"] != SURVEY for r in rates["rates"])


def test_h100_rates_compare_at_least_six_providers(warehouse):
    rates = cli(
        "rates", "--gpu", "H100", "--json", "--limit", "1000", "--include-illustrative",
        "--warehouse", str(warehouse),
    )  # fmt: skip
    providers = {r["provider"] for r in rates["rates"]}
    assert providers >= {"lambdalabs", "runpod", "vastai", "oci", "coreweave", "fluidstack"}
    assert len(providers) >= 6
    fluidstack = [r for r in rates["rates"] if r["provider"] == "fluidstack"]
    assert [r["provenance"] for r in fluidstack] == ["illustrative"]


def test_vastai_gpu_mart_publishes_min_and_median_with_the_cheapest_offer_named(warehouse):
    mart = query(warehouse, "SELECT * FROM mart_vastai_gpu_prices ORDER BY ALL")
    offers = query(
        warehouse,
        """SELECT gpu_name, gpu_memory_gib, pricing_model, instance_type, price_usd_per_gpu_hour
           FROM mart_gpu_offers_current WHERE provider = 'vastai' AND gpu_name IS NOT NULL""",
    )
    for row in mart.iter_rows(named=True):
        prices = offers.filter(
            (offers["gpu_name"] == row["gpu_name"])
            & (offers["gpu_memory_gib"] == row["gpu_memory_gib"])
            & (offers["pricing_model"] == row["pricing_model"])
        )
        assert row["offers"] == prices.height
        assert row["min_usd_per_gpu_hour"] == prices["price_usd_per_gpu_hour"].min()
        assert row["median_usd_per_gpu_hour"] == pytest.approx(
            prices["price_usd_per_gpu_hour"].median()
        )
        cheapest = prices.filter(prices["instance_type"] == row["cheapest_instance_type"])
        assert cheapest["price_usd_per_gpu_hour"][0] == row["min_usd_per_gpu_hour"]
    h100 = mart.filter((mart["gpu_name"] == "H100") & (mart["pricing_model"] == "on_demand"))
    assert h100["min_usd_per_gpu_hour"][0] < h100["median_usd_per_gpu_hour"][0]


def test_the_ledger_counts_exclusions_and_unknown_gpus_per_load(warehouse):
    loads = query(
        warehouse,
        """SELECT provider, sum(rows) AS rows, sum(excluded) AS excluded,
                  sum(unknown_gpu) AS unknown_gpu, sum(rejected) AS rejected
           FROM _loads WHERE provider IN ('lambdalabs', 'runpod', 'vastai', 'oci', 'sheets')
           GROUP BY provider ORDER BY provider""",
    )
    counts = {r["provider"]: r for r in loads.iter_rows(named=True)}
    assert counts["oci"]["excluded"] == 4  # 2 licences, Cloud@Customer, VMware per node
    # the H100T part no shape uses is quarantined, not published as an unknown GPU
    assert (counts["oci"]["rejected"], counts["oci"]["unknown_gpu"]) == (1, 0)
    assert counts["runpod"]["excluded"] == 1  # RTX 3070: in neither cloud
    # the Quadro RTX 6000 is in the GPU reference now (QUADRO RTX 6000): nothing unknown
    assert counts["lambdalabs"]["unknown_gpu"] == 0
    assert counts["sheets"]["rows"] == 51 and counts["sheets"]["rejected"] == 0


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_refreshing_the_same_demo_again_adds_no_history(tmp_path):
    path = tmp_path / "w.duckdb"
    pipeline.load_and_publish(path, demo("sheets", "oci"), source="demo")
    before = query(path, "SELECT * FROM fct_gpu_prices ORDER BY ALL")
    summary = pipeline.load_and_publish(path, demo("sheets", "oci"), source="demo")
    assert summary.history == {"opened": 0, "closed": 0}
    assert query(path, "SELECT * FROM fct_gpu_prices ORDER BY ALL").equals(before)


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_sheet_that_fails_keeps_its_last_good_prices(tmp_path, sheets_warehouse):
    path = copy_warehouse(sheets_warehouse, tmp_path / "w.duckdb")  # the demo's sheets, refreshed
    broken = FetchFailure(
        "sheets", "price_sheet", "coreweave_2026-09-20.csv",
        UnexpectedResponse("sheets", "price_sheet", "sheet coreweave_2026-09-20.csv: missing column(s)"),
    )  # fmt: skip
    others = [p for p in demo("sheets")["sheets"] if p.scope != "coreweave_2026-09-20.csv"]
    summary = pipeline.load_and_publish(path, {"sheets": [*others, broken]}, source="test")
    assert summary.providers[0].status == "partial"
    coreweave = query(
        path, "SELECT count(*) AS n FROM mart_gpu_offers_current WHERE provider = 'coreweave'"
    )
    assert coreweave["n"][0] == 12


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_sheet_emptied_to_its_header_closes_the_offers_it_published(tmp_path, sheets_warehouse):
    path = copy_warehouse(sheets_warehouse, tmp_path / "w.duckdb")  # the demo's sheets, refreshed
    header_only = tmp_path / "paperspace_2026-09-20.csv"
    pages = []
    for page in demo("sheets")["sheets"]:
        if page.scope == header_only.name:
            header_only.write_text(page.payload.splitlines()[0] + "\n")
            page = Page(
                page.provider, page.endpoint, page.fetched_at, page.request, path=header_only
            )
        pages.append(page)
    summary = pipeline.load_and_publish(path, {"sheets": pages}, source="test")
    assert summary.history["closed"] == 6
    current = query(
        path, "SELECT count(*) AS n FROM mart_gpu_offers_current WHERE provider = 'paperspace'"
    )
    assert current["n"][0] == 0


def test_lambda_rtx_6000_is_published_named_at_exactly_69_cents(warehouse):
    row = query(
        warehouse,
        """SELECT gpu_name, gpu_memory_gib, price_usd_per_hour, price_usd_per_gpu_hour
           FROM mart_gpu_offers_current WHERE instance_type = 'gpu_1x_rtx6000'""",
    ).row(0)
    assert row == ("QUADRO RTX 6000", 24.0, 0.69, 0.69)
    assert repr(row[2]) == "0.69"  # not 0.6900000000000001
    dim = query(warehouse, "SELECT vendor FROM dim_gpus WHERE gpu_name = 'QUADRO RTX 6000'")
    assert dim["vendor"].to_list() == ["nvidia"]
