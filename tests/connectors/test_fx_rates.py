"""The recorded-rate conversion shared by every connector (connectors/kit/fx.py via
connectors/kit/normalise.py): a price in a currency with a rate in sql/seeds/seed_fx_rates.csv
becomes USD with the rate noted; one without a rate is quarantined naming the currency;
a malformed rates file is one clear error."""

from __future__ import annotations

import pytest

from common.errors import InvalidInput
from connectors.azure import parse as azure_parse
from connectors.kit import fx as kit_fx
from connectors.kit.normalise import normalise
from tests.connectors.azure.test_azure_parse import fixture, retail_pages


def azure_offers(currency: str):
    page = fixture("retail_page_1")
    base = page["Items"][1]  # ND96asr v4, on-demand, eastus: 27.197 per hour
    body = {"BillingCurrency": currency, "Items": [{**base, "currencyCode": currency}],
            "NextPageLink": None}  # fmt: skip
    return normalise(azure_parse.parse(retail_pages(body)))


def test_an_azure_item_in_eur_becomes_usd_with_the_recorded_rate():
    res = azure_offers("EUR")
    (row,) = res.offers.rows(named=True)
    # 27.197 EUR/h x 1.1463 USD/EUR = 31.1759211 USD/h, over 8 GPUs
    assert row["price_usd_per_hour"] == 31.1759211
    assert row["price_usd_per_gpu_hour"] == pytest.approx(31.1759211 / 8, abs=1e-9)
    assert (row["source_currency"], row["source_price"]) == ("EUR", 27.197)
    assert row["source_unit"].endswith("converted to USD at 1.1463 USD per EUR, reference "
                                       "rate of 2026-09-22 (ECB euro foreign exchange "
                                       "reference rates)")  # fmt: skip


def test_a_currency_without_a_recorded_rate_is_quarantined_naming_it():
    res = azure_offers("CHF")
    assert res.offers.is_empty()
    assert res.rejected["reason"].to_list() == [
        "non-USD price in CHF and no recorded conversion rate "
        "(sql/seeds/seed_fx_rates.csv has no CHF row)"
    ]


def test_usd_rows_are_left_as_they_are():
    (row,) = azure_offers("USD").offers.rows(named=True)
    assert (row["price_usd_per_hour"], row["source_unit"]) == (27.197, "1 Hour")


def test_the_recorded_rates_carry_a_date_and_a_source():
    table = kit_fx.rates()
    assert table["currency"].is_unique().all() and table["as_of"].null_count() == 0
    assert set(table["currency"]) >= {"EUR"}


@pytest.mark.parametrize(
    "row",
    ["EUR,1;1,2026-09-22,x", "EUR,1.1,22/09/2026,x", "euro,1.1,2026-09-22,x", "EUR,1.1,2026-09-22,",
     "EUR,1.1,2026-09-22,x\nEUR,1.2,2026-09-23,y"],
)
def test_a_malformed_rate_row_is_one_clear_error(tmp_path, monkeypatch, row):
    csv = tmp_path / "rates.csv"
    csv.write_text(f"currency,usd_per_unit,as_of,source\n{row}\n")
    monkeypatch.setattr(kit_fx, "RATES_CSV", csv)
    with pytest.raises(InvalidInput, match=r"rates\.csv: invalid or duplicate rate row"):
        kit_fx.rates()


def test_the_rates_are_in_the_warehouse_seed(tmp_path):
    import duckdb

    from warehouse import sql_runner

    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    sql_runner.load_seeds(con)
    got = con.sql("select currency, usd_per_unit::varchar, as_of::varchar from seed_fx_rates")
    assert ("EUR", "1.146300000", "2026-09-22") in got.fetchall()
