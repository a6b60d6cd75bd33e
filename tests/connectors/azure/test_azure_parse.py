"""Azure parse on recorded-shape pages: pure function, no DuckDB, no network."""

from __future__ import annotations

import json
from datetime import datetime

import polars as pl
import pytest

from connectors.azure import parse, settings
from connectors.kit.normalise import normalise
from connectors.kit.page import Page, pages_frame
from tests.conftest import FIXTURES


def retail_pages(*bodies: dict, endpoint: str = "retail_prices") -> pl.DataFrame:
    at = datetime(2026, 11, 20, 2)
    return pages_frame(Page("azure", endpoint, at, {"region": "eastus"}, body=b) for b in bodies)


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / "azure" / f"{name}.json").read_text())


def item(**overrides) -> dict:
    base = fixture("retail_page_1")["Items"][1]  # ND96asr v4, on-demand, eastus
    return {**base, **overrides}


def parsed(*items: dict) -> pl.DataFrame:
    return parse.parse(retail_pages({"Items": list(items), "NextPageLink": None}))


def test_nd96asr_v4_on_demand_is_3_3996_per_gpu_hour():
    offers = normalise(parsed(item())).offers
    row = offers.row(0, named=True)
    assert (row["instance_type"], row["pricing_model"], row["gpu_name"], row["gpu_memory_gib"]) == (
        "Standard_ND96asr_v4", "on_demand", "A100", 40.0)
    assert row["gpu_count"] == 8 and row["vcpus"] == 96
    assert row["price_usd_per_hour"] == 27.197
    assert row["price_usd_per_gpu_hour"] == pytest.approx(27.197 / 8)  # 3.399625
    assert row["load_id"] == "load-0" and row["provider"] == "azure" and row["zone"] is None


def test_spot_meter_maps_to_spot_pricing_model():
    row = parsed(item(meterName="ND96asr v4 Spot", skuName="ND96asr v4 Spot", retailPrice=10.9)).row(0, named=True)
    assert row["pricing_model"] == "spot" and row["status"] == "ok"


def test_reservation_total_is_spread_over_the_term_hours():
    one = parsed(item(type="Reservation", reservationTerm="1 Year", retailPrice=87600.0)).row(0, named=True)
    three = parsed(item(type="Reservation", reservationTerm="3 Years", retailPrice=262800.0)).row(0, named=True)
    assert (one["pricing_model"], one["price_usd_per_hour"]) == ("reserved_1y", 87600.0 / 8760)
    assert (three["pricing_model"], three["price_usd_per_hour"]) == ("reserved_3y", 262800.0 / (3 * 8760))
    assert one["pricing_detail"] == "1 Year reservation"


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"productName": "Virtual Machines NDasrA100_v4 Series Windows"}, settings.EXCLUDE_WINDOWS),
        ({"meterName": "ND96asr v4 Low Priority", "skuName": "ND96asr v4 Low Priority"}, settings.EXCLUDE_LOW_PRIORITY),
        ({"type": "DevTestConsumption"}, settings.EXCLUDE_DEVTEST),
        ({"armSkuName": ""}, settings.EXCLUDE_NOT_VM),
        ({"armSkuName": "Standard_NP10s"}, settings.EXCLUDE_FPGA),
    ],
)
def test_out_of_scope_meters_are_excluded_with_their_reason(overrides, reason):
    row = parsed(item(**overrides)).row(0, named=True)
    assert (row["status"], row["reason"]) == ("excluded", reason)


def test_the_recorded_learn_example_item_is_excluded_not_dropped():
    rows = parse.parse(retail_pages(fixture("retail_page_1")))
    real = rows.filter(pl.col("armSkuName") == "Standard_D14").row(0, named=True)
    assert real["status"] == "excluded"  # Windows DevTest spot meter of a non-GPU size


def test_unknown_vm_size_is_kept_with_null_gpu_and_counted():
    result = normalise(parsed(item(armSkuName="Standard_NX99foo_v9", retailPrice=0.38)))
    row = result.offers.row(0, named=True)
    assert row["gpu_name"] is None and row["price_usd_per_gpu_hour"] is None
    assert result.unknown_gpu["n"].sum() == 1


def test_a_quarter_of_a_radeon_v620_is_priced_per_gpu_hour():
    # NGads V620: Standard_NG8ads_V620_v1 is 1/4 of a Radeon PRO V620 (vm_sizes.csv)
    result = normalise(parsed(item(armSkuName="Standard_NG8ads_V620_v1", retailPrice=0.38)))
    row = result.offers.row(0, named=True)
    assert (row["gpu_name"], row["gpu_memory_gib"], row["gpu_count"]) == (
        "RADEON PRO V620", 32.0, 0.25
    )
    assert row["price_usd_per_gpu_hour"] == pytest.approx(1.52)


def test_fractional_a10_counts_a_sixth_of_a_gpu():
    row = normalise(parsed(item(armSkuName="Standard_NV6ads_A10_v5", retailPrice=0.454))).offers.row(0, named=True)
    assert row["gpu_name"] == "A10" and row["gpu_memory_gib"] == 24
    assert row["gpu_count"] == pytest.approx(1 / 6)
    assert row["price_usd_per_gpu_hour"] == pytest.approx(0.454 * 6, rel=1e-6)


@pytest.mark.parametrize(
    ("overrides", "reason_part"),
    [
        ({"retailPrice": 0.0}, "not positive"),
        ({"retailPrice": -1.0}, "not positive"),
        ({"currencyCode": "CHF"}, "non-USD price in CHF and no recorded conversion rate"),
        ({"retailPrice": 8 * 250.0}, "above the 200.0 sanity limit"),
        ({"unitOfMeasure": "1 GB/Month"}, "is not hourly"),
    ],
)
def test_invalid_prices_go_to_quarantine_with_a_reason_and_the_raw_record(overrides, reason_part):
    result = normalise(parsed(item(**overrides)))
    assert result.offers.is_empty()
    (rejected,) = result.rejected.to_dicts()
    assert reason_part in rejected["reason"]
    assert json.loads(rejected["record"])["armSkuName"] == "Standard_ND96asr_v4"
    assert rejected["load_id"] == "load-0"


def test_a_price_sent_as_text_is_quarantined_with_its_value():
    result = normalise(parsed(item(retailPrice="call us")))
    assert result.offers.is_empty()
    assert result.rejected["reason"].to_list() == ["retailPrice call us is not a number"]


def test_a_numeric_price_sent_as_a_string_still_parses():
    assert parsed(item(retailPrice="27.197")).row(0, named=True)["price_usd_per_hour"] == 27.197


def test_missing_price_field_is_rejected_not_guessed():
    result = normalise(parse.parse(retail_pages(fixture("retail_page_missing_price"))))
    assert result.rejected["reason"].to_list() == ["missing field retailPrice"]


def test_unknown_fields_are_ignored():
    offers = normalise(parse.parse(retail_pages(fixture("retail_page_2_new_fields")))).offers
    # the NV6ads item's savingsPlan entry is a third offer (savings_plan_1y)
    assert offers["instance_type"].to_list() == [
        "Standard_NV6ads_A10_v5", "Standard_NG8ads_V620_v1", "Standard_NV6ads_A10_v5"]
    assert offers["pricing_model"].to_list() == ["on_demand", "on_demand", "savings_plan_1y"]


@pytest.mark.parametrize(
    ("size", "gpu", "memory", "variant"),
    [
        ("Standard_ND96asr_v4", "A100", 40, "SXM"),
        ("Standard_ND96amsr_A100_v4", "A100", 80, "SXM"),
        # Microsoft's NC A100 v4 page: "Nvidia PCIe A100 GPU (80GB)"
        ("Standard_NC24ads_A100_v4", "A100", 80, "PCIe"),
        ("Standard_ND96isr_H100_v5", "H100", 80, "SXM"),
        ("Standard_NC40ads_H100_v5", "H100NVL", 94, None),
        ("Standard_NC80adis_H100_v5", "H100NVL", 94, None),
        ("Standard_ND96isr_H200_v5", "H200", 141, None),
        ("Standard_NC4as_T4_v3", "T4", 16, None),
        # NCv3: V100 16 GB PCIe cards (no NVLink, unlike the ND v2's SXM2 V100s)
        ("Standard_NC6s_v3", "V100", 16, "PCIe"),
        ("Standard_NC24rs_v3", "V100", 16, "PCIe"),
        ("Standard_ND40rs_v2", "V100", 32, "SXM"),
        ("Standard_NV36ads_A10_v5", "A10", 24, None),
        ("Standard_ND96isr_MI300X_v5", "MI300X", 192, None),
    ],
)
def test_the_vm_family_gives_gpu_name_memory_and_form_factor(size, gpu, memory, variant):
    # the family table is sql/seeds/seed_instance_families.csv, read by the shared rule
    row = normalise(parsed(item(armSkuName=size))).offers.row(0, named=True)
    assert (row["gpu_name"], row["gpu_memory_gib"], row["gpu_variant"]) == (gpu, memory, variant)


def test_every_bundled_size_maps_to_a_gpu():
    sizes = parse.bundled_specs()["arm_sku_name"].to_list()
    rows = normalise(parsed(*[item(armSkuName=s) for s in sizes])).offers
    assert rows.height == len(sizes)
    assert rows.filter(pl.col("gpu_name").is_null())["instance_type"].to_list() == []


def test_resource_skus_specs_override_the_bundled_table_but_not_fractions():
    skus = {"value": [
        {"resourceType": "virtualMachines", "name": "Standard_ND96asr_v4",
         "capabilities": [{"name": "vCPUs", "value": "96"}, {"name": "MemoryGB", "value": "900.5"},
                          {"name": "GPUs", "value": "8"}]},
        {"resourceType": "virtualMachines", "name": "Standard_NV6ads_A10_v5",
         "capabilities": [{"name": "vCPUs", "value": "6"}, {"name": "MemoryGB", "value": "55"},
                          {"name": "GPUs", "value": "1"}]},
        {"resourceType": "disks", "name": "Premium_LRS", "capabilities": []},
    ]}
    frame = pl.concat([
        retail_pages({"Items": [item(), item(armSkuName="Standard_NV6ads_A10_v5")], "NextPageLink": None}),
        retail_pages(skus, endpoint="resource_skus"),
    ])
    rows = parse.parse(frame).sort("instance_type")
    assert rows["memory_gib"].to_list() == [900.5, 55.0]
    assert rows["gpu_count"].to_list() == pytest.approx([8.0, 1 / 6])


def test_recorded_resource_skus_page_parses_to_specs():
    body = fixture("resource_skus_page")
    specs = parse.parse_resource_skus(retail_pages(body, endpoint="resource_skus"))
    row = specs.row(0, named=True)
    assert row == {"arm_sku_name": "Standard_A0", "vcpus": 1.0, "memory_gib": 0.75, "gpu_count": None}


def test_an_item_whose_price_is_an_object_is_quarantined_alone():
    """One malformed item used to fail the whole page decode (and so every Azure price);
    now it is rejected with its value and the other items of its page are published."""
    bad = item(retailPrice={"amount": 27.197, "currency": "USD"}, meterId="bad-meter")
    other = item(meterName="ND96asr v4 Spot", skuName="ND96asr v4 Spot", retailPrice=10.9)
    result = normalise(parsed(item(), bad, other))
    assert result.offers["pricing_model"].sort().to_list() == ["on_demand", "spot"]
    (rejected,) = result.rejected.to_dicts()
    assert rejected["reason"] == "retailPrice holds an object or a list, not a value"
    record = json.loads(rejected["record"])
    assert record["meterId"] == "bad-meter"
    assert json.loads(record["retailPrice"]) == {"amount": 27.197, "currency": "USD"}


def test_an_array_in_a_text_field_is_quarantined_and_other_pages_still_parse():
    healthy = {"Items": [item()], "NextPageLink": None}
    broken = {"Items": [item(armRegionName=["eastus", "westus"])], "NextPageLink": None}
    result = normalise(parse.parse(retail_pages(healthy, broken)))
    assert result.offers["load_id"].to_list() == ["load-0"]
    assert result.rejected.select("load_id", "reason").rows() == [
        ("load-1", "armRegionName holds an object or a list, not a value")
    ]


def test_an_effective_date_centuries_ahead_is_quarantined_with_the_reason():
    # fetched 2026-11-20 (pages_frame): 2999-01-01 is no price in force
    result = normalise(parsed(item(effectiveStartDate="2999-01-01T00:00:00Z"), item()))
    assert result.offers.height == 1
    (reason,) = result.rejected["reason"].to_list()
    assert reason == (
        "effective date 2999-01-01 is more than 400 days after the fetch (2026-11-20): "
        "a placeholder or a data error, not a price in force"
    )


def test_an_announced_price_months_ahead_is_kept():
    result = normalise(parsed(item(effectiveStartDate="2027-03-01T00:00:00Z")))
    assert result.rejected.is_empty() and result.offers.height == 1


def test_each_item_keeps_its_own_effective_date():
    """Dates are read once per distinct value and looked up per item: each item still gets
    its own, a fractional second survives, and a date that does not read is null."""
    dates = ["2025-01-01T00:00:00Z", "2024-06-01T12:30:00.25Z", None, "not a date",
             "2025-01-01T00:00:00Z"]  # fmt: skip
    rows = parsed(*(item(effectiveStartDate=d, meterId=str(i)) for i, d in enumerate(dates)))
    assert rows.sort(pl.col("_item").struct.field("meterId"))["effective_at"].to_list() == [
        datetime(2025, 1, 1), datetime(2024, 6, 1, 12, 30, 0, 250000), None, None,
        datetime(2025, 1, 1),
    ]  # fmt: skip
