"""Price sheets parse (connectors.sheets.parse): the rules on a fixture sheet, and the
bundled sheets as they are."""

from __future__ import annotations

from datetime import datetime

import polars as pl
import pytest

from connectors.kit.normalise import normalise
from connectors.sheets import parse, settings
from tests.conftest import FIXTURES


@pytest.fixture
def mixed(pages_frame):
    text = (FIXTURES / "sheets" / "mixed_sheet.csv").read_text()
    return normalise(parse.parse(pages_frame("price_sheet", text, scopes=["mixed_sheet.csv"])))


@pytest.fixture
def bundled(pages_frame):
    files = sorted(settings.SHEETS_DIR.glob("*.csv"))
    frame = pages_frame(
        "price_sheet", *[f.read_text() for f in files], scopes=[f.name for f in files]
    )
    return normalise(parse.parse(frame))


def test_prices_are_per_hour_for_the_whole_instance_and_divided_per_gpu(mixed):
    row = (
        mixed.offers.filter(pl.col("pricing_model") == "on_demand")
        .filter(pl.col("instance_type") == "H100 x8")
        .row(0, named=True)
    )
    assert (row["price_usd_per_hour"], row["price_usd_per_gpu_hour"]) == (24.0, 3.0)
    assert (row["provider"], row["region"], row["gpu_name"], row["gpu_count"]) == (
        "examplecloud", "us-east", "H100", 8.0
    )  # fmt: skip
    assert row["effective_at"] == datetime(2026, 10, 1) and row["expires_at"] is None
    assert row["source_unit"] == "USD per hour, whole instance (mixed_sheet.csv)"


def test_an_illustrative_row_is_published_with_its_provenance_not_an_anomaly_flag(mixed):
    row = mixed.offers.filter(pl.col("pricing_model") == "spot").row(0, named=True)
    assert (row["provenance"], row["price_flag"]) == ("illustrative", None)


def test_a_row_citing_no_public_url_is_unverified_and_a_cited_one_is_published(bundled):
    survey = bundled.offers.filter(pl.col("pricing_detail") == "price survey 2023-04-07")
    assert set(survey["provenance"]) == {"unverified"}  # source_url is not a web address
    paperspace = bundled.offers.filter(pl.col("provider") == "paperspace")
    assert set(paperspace["provenance"]) == {"published_sheet"}


def test_a_historical_row_carries_its_end_as_expires_at(mixed):
    row = mixed.offers.filter(pl.col("pricing_detail") == "survey 2024-01-15").row(0, named=True)
    assert row["effective_at"] == datetime(2024, 1, 15)
    assert row["expires_at"] == datetime(2024, 1, 16)


def test_a_sheet_row_in_euros_is_converted_with_the_recorded_rate(pages_frame):
    from connectors.kit import fx as kit_fx

    eur = kit_fx.rates().filter(pl.col("currency") == "EUR")["usd_per_unit"].item()
    sheet = "provider,instance_type,region,gpu,gpu_memory_gib,gpu_count,pricing_model,pricing_detail,price_usd_per_hour,as_of,valid_until,source_url,source_currency,source_price,illustrative,note\nexamplecloud,A100 x1,eu-west,A100,80,1,on_demand,,,2026-10-01,,https://example.com/preise,EUR,1.85,false,quoted in euros\n"
    result = normalise(parse.parse(pages_frame("price_sheet", sheet, scopes=["eur_sheet.csv"])))
    row = result.offers.row(0, named=True)
    assert result.rejected.is_empty()
    assert row["price_usd_per_hour"] == pytest.approx(1.85 * eur)
    assert (row["source_currency"], row["source_price"]) == ("EUR", 1.85)


def test_every_row_that_cannot_be_published_is_quarantined_with_a_reason(mixed):
    reasons = sorted(mixed.rejected["reason"])
    assert reasons == [
        "as_of '01/10/2026' is not a YYYY-MM-DD date",
        "non-USD price in CHF and no recorded conversion rate (sql/seeds/seed_fx_rates.csv has no CHF row)",
        "the same offer is listed 2 times (sheets: mixed_sheet.csv)",
        "the same offer is listed 2 times (sheets: mixed_sheet.csv)",
        "valid_until 2027-10-01 is after the sheet was read (2026-11-20): a current price "
        "has no valid_until, a historical one has ended",
    ]
    assert all('"sheet":"mixed_sheet.csv"' in r for r in mixed.rejected["record"])
    assert mixed.offers.height == 3


def test_a_sheet_that_is_not_csv_is_one_quarantined_row(pages_frame):
    ragged = "provider,instance_type\nx,y,z\n"  # more fields than the header
    res = normalise(parse.parse(pages_frame("price_sheet", ragged, scopes=["bad.csv"])))
    (reason,) = res.rejected["reason"].to_list()
    assert reason.startswith("sheet bad.csv is not readable CSV: ")
    assert res.offers.is_empty()


def test_a_row_of_a_sheet_without_the_required_columns_names_the_missing_field(pages_frame):
    res = normalise(parse.parse(pages_frame("price_sheet", "gpu\nH100\n", scopes=["x.csv"])))
    assert res.rejected["reason"].to_list() == ["missing field provider"]


def test_the_bundled_sheets_parse_without_a_single_rejection(bundled):
    assert bundled.rejected.is_empty()
    assert set(bundled.offers["provider"]) == set(settings.EMITS_PROVIDERS)


@pytest.mark.parametrize(
    ("provider", "memory", "model", "price"),
    [
        ("aws", 80, "on_demand", 5.12),
        ("aws", 80, "reserved_1y", 3.00),
        ("azure", 80, "spot", 2.25),
        ("oci", 80, "on_demand", 4.00),
        ("gcp", 80, "spot", 1.25),
        ("coreweave", 80, "reserved_1y", 1.80),
        ("lambdalabs", 80, "on_demand", 1.50),
        ("fluidstack", 80, "reserved_1y", 1.19),
        ("aws", 40, "spot", 1.22),
        ("gcp", 40, "reserved_1y", 1.03),
        ("lambdalabs", 40, "reserved_1y", 1.05),
        ("fluidstack", 40, "on_demand", 1.73),
    ],
)
def test_the_2023_survey_is_loaded_as_issue_4_states_it(bundled, provider, memory, model, price):
    survey = bundled.offers.filter(pl.col("pricing_detail") == "price survey 2023-04-07")
    row = survey.filter(
        (pl.col("provider") == provider)
        & (pl.col("gpu_memory_gib") == memory)
        & (pl.col("pricing_model") == model)
    ).row(0, named=True)
    assert row["price_usd_per_gpu_hour"] == price and row["gpu_name"] == "A100"


def test_the_2023_survey_has_32_prices_that_all_ended_the_next_day(bundled):
    survey = bundled.offers.filter(pl.col("pricing_detail") == "price survey 2023-04-07")
    assert survey.height == 32  # 15 for the 80 GB table, 17 for the 40 GB one
    assert set(survey["effective_at"]) == {datetime(2023, 4, 7)}
    assert set(survey["expires_at"]) == {datetime(2023, 4, 8)}


def test_only_the_fluidstack_row_is_illustrative_among_the_current_sheets(bundled):
    flagged = bundled.offers.filter(pl.col("provenance") == "illustrative")
    assert flagged.select("provider", "gpu_name").rows() == [("fluidstack", "H100")]


_HEADER = (
    "provider,instance_type,region,gpu,gpu_memory_gib,gpu_count,pricing_model,"
    "price_usd_per_hour,as_of,source_url\n"
)


@pytest.mark.parametrize(
    ("instance_type", "gpu", "memory", "expected"),
    [
        ("node-1", "h100 sxm 80gb", "", ("H100", 80.0, "SXM")),
        ("node-2", "A100-80G", "", ("A100", 80.0, None)),
        ("node-3", "H100", "80", ("H100", 80.0, None)),
        ("H100 PCIe x1", "", "80", ("H100", 80.0, "PCIe")),  # only the instance type says
        ("node-5", "NVIDIA H100 PCIe", "80", ("H100", 80.0, "PCIe")),
        ("node-6", "a6000", "48", ("RTX A6000", 48.0, None)),
    ],
)
def test_a_sheets_gpu_words_are_named_by_the_shared_rule(
    pages_frame, instance_type, gpu, memory, expected
):
    sheet = _HEADER + (
        f"examplecloud,{instance_type},any,{gpu},{memory},1,on_demand,2.0,2026-10-01,"
        "https://example.com/prices\n"
    )
    res = normalise(parse.parse(pages_frame("price_sheet", sheet, scopes=["s.csv"])))
    assert res.rejected.is_empty()
    row = res.offers.row(0, named=True)
    assert (row["gpu_name"], row["gpu_memory_gib"], row["gpu_variant"]) == expected


def test_a_gpu_the_rule_cannot_name_is_published_unnamed_and_counted(pages_frame):
    sheet = _HEADER + (
        "examplecloud,box-9,any,Quantum Widget 9000,32,1,on_demand,2.0,2026-10-01,"
        "https://example.com/prices\n"
    )
    res = normalise(parse.parse(pages_frame("price_sheet", sheet, scopes=["s.csv"])))
    row = res.offers.row(0, named=True)
    # never under the sheet's own spelling: no name, counted as unknown
    assert row["gpu_name"] is None and row["gpu_memory_gib"] == 32.0
    assert res.unknown_gpu["n"].sum() == 1


def test_a_sheet_stored_with_the_old_gpu_name_column_still_parses(pages_frame):
    old = _HEADER.replace(",gpu,", ",gpu_name,") + (
        "examplecloud,node,any,A100 40GB,,1,on_demand,2.0,2026-10-01,https://example.com/p\n"
    )
    res = normalise(parse.parse(pages_frame("price_sheet", old, scopes=["s.csv"])))
    row = res.offers.row(0, named=True)
    assert (row["gpu_name"], row["gpu_memory_gib"]) == ("A100", 40.0)
