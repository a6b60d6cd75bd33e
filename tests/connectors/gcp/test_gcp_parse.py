"""GCP parse on recorded-shape SKU pages: pure function, no DuckDB, no network."""

from __future__ import annotations

import copy
import csv
import json
from datetime import datetime
from pathlib import Path

import polars as pl
import pytest

from connectors import registry
from connectors.errors import UnexpectedResponse
from connectors.gcp import parse, settings
from connectors.kit.normalise import normalise
from connectors.kit.page import Page, pages_frame
from samples.gcp import gcp_sku, gcp_sku_id
from tests.conftest import FIXTURES

SEED = Path(__file__).resolve().parents[3] / "sql" / "seeds" / "seed_gpu_specs.csv"
FETCHED = datetime(2026, 11, 20, 2)


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / "gcp" / f"{name}.json").read_text())


def sku_pages(*bodies: dict) -> pl.DataFrame:
    return pages_frame(
        Page("gcp", "skus", FETCHED, {"scope": settings.SERVICE}, body=b) for b in bodies
    )


def sku(description: str, price: float, usage: str = "OnDemand", regions=("us-central1",), **kw):
    group = kw.pop("group", "GPU")
    units = int(price)
    return gcp_sku(
        sku_id=kw.pop("sku_id", gcp_sku_id(description + usage + ",".join(regions))),
        description=description,
        resource_group=group,
        usage_type=usage,
        regions=list(regions),
        units=units,
        nanos=round((price - units) * 1e9),
        **kw,
    )


def parsed(*skus: dict) -> pl.DataFrame:
    return parse.parse(sku_pages({"skus": list(skus), "nextPageToken": ""}))


def recorded() -> pl.DataFrame:
    """Both fixture pages: the opencost recording and the recorded-shape page 2."""
    return parse.parse(sku_pages(fixture("skus_page_1"), fixture("skus_page_2")))


def offer(frame: pl.DataFrame, instance_type: str, region: str, model: str = "on_demand") -> dict:
    if "price_usd_per_gpu_hour" not in frame.columns:
        # the parse hands over machine prices; per-GPU-hour is the normalise step's
        key = ["instance_type", "region", "pricing_model", "pricing_detail"]
        staged = normalise(frame).offers.select(*key, "price_usd_per_gpu_hour")
        frame = frame.join(staged, on=key, how="left", nulls_equal=True)
    rows = frame.filter(
        (pl.col("instance_type") == instance_type)
        & (pl.col("region") == region)
        & (pl.col("pricing_model") == model)
        & (pl.col("status") == "ok")
    )
    assert rows.height == 1, rows
    return rows.row(0, named=True)


# a3-highgpu-8g bundles 16 x 375 GiB local SSD, billed with it at the Local SSD SKU
# (0.08 USD per GiB-month in the fixture) over 730 h a month
A3_HIGH_8G_SSD = 6000 * 0.08 / 730  # 0.657534...


def test_a3_highgpu_8g_on_demand_in_us_central1_is_43_06615_plus_its_local_ssd():
    row = offer(recorded(), "a3-highgpu-8g", "us-central1")
    host = 208 * 0.02152 + 1872 * 0.00266234  # 4.47616 + 4.98390048 = 9.46006048
    assert host == pytest.approx(9.46006048, abs=1e-12) and round(host, 5) == 9.46006
    machine = host + 8 * 4.2007612  # 9.46006048 + 33.6060896 = 43.06615008
    assert machine == pytest.approx(43.06615008, abs=1e-12)
    assert row["price_usd_per_hour"] == pytest.approx(machine + A3_HIGH_8G_SSD, abs=1e-9)
    assert row["price_usd_per_gpu_hour"] == pytest.approx((machine + A3_HIGH_8G_SSD) / 8)
    assert (row["gpu_name"], row["gpu_memory_gib"], row["gpu_count"]) == ("H100", 80, 8)
    assert (row["vcpus"], row["memory_gib"]) == (208, 1872)
    assert row["pricing_detail"] == settings.COMPOSED_SSD_DETAIL
    record = json.loads(row["record"])
    assert record["core_nanos"] == 21520000
    assert (record["local_ssd_gib"], record["ssd_nanos"]) == (6000, 80000000)


def test_a2_highgpu_1g_from_the_opencost_recording_is_its_published_3_673385():
    row = offer(recorded(), "a2-highgpu-1g", "us-east1")
    # 12 x 0.031611 + 85 x 0.004237 + 1 x 2.933908 = 0.379332 + 0.360145 + 2.933908
    assert row["price_usd_per_hour"] == pytest.approx(3.673385, abs=1e-12)
    assert row["load_id"] == "load-0"  # all three SKUs came from the recorded page


def test_per_gpu_offer_is_the_gpu_sku_alone_in_each_listed_region():
    frame = recorded()
    staged = normalise(frame).offers.select("instance_type", "region", "price_usd_per_gpu_hour")
    frame = frame.join(staged, on=["instance_type", "region"], how="left")
    rows = frame.filter(pl.col("instance_type") == "nvidia-tesla-a100").sort("region")
    assert rows["region"].to_list() == ["us-central1", "us-east1", "us-west1"]
    row = rows.row(0, named=True)
    assert row["price_usd_per_hour"] == row["price_usd_per_gpu_hour"] == 2.933908
    assert (row["gpu_count"], row["vcpus"], row["memory_gib"]) == (1, None, None)
    assert (row["gpu_name"], row["gpu_memory_gib"]) == ("A100", 40)
    assert row["pricing_detail"] == settings.PER_GPU_DETAIL
    assert (row["source_currency"], row["source_unit"], row["source_price"]) == (
        "USD",
        "h",
        2.933908,
    )
    assert row["effective_at"] == datetime(2023, 3, 24, 10, 52, 50, 681000)
    assert row["fetched_at"] == FETCHED and row["endpoint"] == "skus"


def test_region_comes_from_service_regions_never_from_the_description():
    frame = parsed(sku("Nvidia L4 GPU running in Americas", 0.64, regions=["europe-west4"]))
    assert frame["region"].to_list() == ["europe-west4"]


@pytest.mark.parametrize(
    ("usage", "description", "model"),
    [
        ("OnDemand", "Nvidia Tesla T4 GPU running in Americas", "on_demand"),
        ("Preemptible", "Spot Preemptible Nvidia Tesla T4 GPU running in Americas", "spot"),
        (
            "Commit1Yr",
            "Commitment v1: Nvidia Tesla T4 GPU running in Americas for 1 Year",
            "reserved_1y",
        ),
        (
            "Commit3Yr",
            "Commitment v1: Nvidia Tesla T4 GPU running in Americas for 3 Years",
            "reserved_3y",
        ),
        (
            "Commit3Yr",
            "Commitment v1: Nvidia Tesla T4 GPU running in Americas for 3 Year",
            "reserved_3y",
        ),
    ],
)
def test_usage_type_maps_to_the_pricing_model(usage, description, model):
    row = parsed(sku(description, 0.2, usage=usage)).row(0, named=True)
    assert (row["instance_type"], row["pricing_model"], row["status"]) == (
        "nvidia-tesla-t4",
        model,
        "ok",
    )


def test_a_spot_described_sku_categorised_on_demand_is_published_as_spot():
    row = parsed(
        sku("Spot Preemptible A4 Nvidia B200 (1 gpu slice) running in Americas", 4.95)
    ).row(0, named=True)
    assert (row["instance_type"], row["pricing_model"]) == ("nvidia-b200", "spot")


@pytest.mark.parametrize(
    ("description", "instance_type", "gpu_name", "memory"),
    [
        ("Nvidia Tesla A100 GPU running in Americas", "nvidia-tesla-a100", "A100", 40),
        ("Nvidia Tesla A100 80GB GPU running in EMEA", "nvidia-a100-80gb", "A100", 80),
        ("Nvidia H100 80GB GPU running in Americas", "nvidia-h100-80gb", "H100", 80),
        ("Nvidia H100 80GB Gpu running in Virginia", "nvidia-h100-80gb", "H100", 80),
        (
            "Nvidia H100 80GB GPU attached to A3 VMs running in Americas",
            "nvidia-h100-80gb",
            "H100",
            80,
        ),
        ("Nvidia H100 80GB Mega GPU running in Americas", "nvidia-h100-mega-80gb", "H100", 80),
        ("Nvidia H100 Mega 80GB GPU running in Americas", "nvidia-h100-mega-80gb", "H100", 80),
        ("Nvidia H100 80GB Plus GPU running in Americas", "nvidia-h100-mega-80gb", "H100", 80),
        ("H200 141GB GPU running in Americas", "nvidia-h200-141gb", "H200", 141),
        ("A4 Nvidia B200 (1 gpu slice) running in Americas", "nvidia-b200", "B200", 180),
        ("Nvidia L4 GPU running in APAC", "nvidia-l4", "L4", 24),
        (
            "Nvidia L4 GPU attached to Spot Preemptible VMs running in Americas",
            "nvidia-l4",
            "L4",
            24,
        ),
        ("Nvidia Tesla T4 GPU running in Frankfurt", "nvidia-tesla-t4", "T4", 16),
        ("Nvidia Tesla V100 GPU running in Americas", "nvidia-tesla-v100", "V100", 16),
        ("Nvidia Tesla P100 GPU running in Americas", "nvidia-tesla-p100", "P100", 16),
        ("Nvidia Tesla P4 GPU running in Americas", "nvidia-tesla-p4", "P4", 8),
        ("RTX 6000 96GB running in Americas", "nvidia-rtx-pro-6000", "RTX PRO 6000", 96),
        (
            "Commitment v1: A4 Nvidia B200 (1 gpu slice) in Americas for 1 Year",
            "nvidia-b200",
            "B200",
            180,
        ),
    ],
)
def test_gpu_description_matching_is_exact_per_family(description, instance_type, gpu_name, memory):
    usage = "Commit1Yr" if description.startswith("Commitment") else "OnDemand"
    row = parsed(sku(description, 1.5, usage=usage)).row(0, named=True)
    assert (row["status"], row["instance_type"], row["gpu_name"], row["gpu_memory_gib"]) == (
        "ok",
        instance_type,
        gpu_name,
        memory,
    )


@pytest.mark.parametrize(
    "description",
    [
        "Nvidia Tesla K80 GPU running in Americas",  # retired, not in the map
        "Nvidia A100 80GB GPU running in Americas",  # no "Tesla": not a recorded form
        "Nvidia H100 NVL GPU running in Americas",
        "Nvidia Tesla T4 Virtual Workstation GPU running in Americas",
        "Nvidia H200 141GB GPU running in Americas",  # the recorded form has no "Nvidia"
        "Nvidia H100 80GB Ultra GPU running in Americas",
    ],
)
def test_a_gpu_sku_that_matches_nothing_is_counted_as_unmatched_not_guessed(description):
    frame = parsed(sku(description, 2.0))
    assert frame.height == 1
    row = frame.row(0, named=True)
    assert (row["status"], row["reason"], row["gpu_name"]) == (
        "excluded",
        "unmatched SKU description",
        None,
    )
    counts = normalise(frame).excluded
    assert counts.rows() == [("load-0", "unmatched SKU description", 1)]


@pytest.mark.parametrize(
    ("description", "group", "reason_start"),
    [
        ("Reserved Nvidia H100 80GB Mega GPU in Americas", "GPU", "reserved:"),
        ("Sole Tenancy Premium for A3 Instance Core running in Americas", "CPU", "sole tenancy:"),
        ("DWS Calendar Mode A4 Nvidia B200 (1 gpu slice) running in Americas", "GPU", "DWS:"),
        ("Reserved Nvidia H100 80GB Mega GPU in Americas in Calendar Mode", "GPU", "reserved:"),
        ("N1 Custom Instance Core running in Americas", "N1Standard", "custom:"),
        (
            "Memory-optimized Upgrade Premium for Memory-optimized Instance Core running in Americas",
            "CPU",
            "premium:",
        ),
        ("E2 Instance Core running in Americas", "CPU", "not a GPU SKU"),
        ("Storage PD Capacity", "SSD", "not a GPU SKU"),
    ],
)
def test_out_of_scope_skus_are_excluded_with_a_reason_and_counted(description, group, reason_start):
    frame = parsed(sku(description, 0.5, group=group))
    row = frame.row(0, named=True)
    assert row["status"] == "excluded" and row["reason"].startswith(reason_start)
    result = normalise(frame)
    assert result.offers.is_empty() and result.rejected.is_empty()
    assert result.excluded["n"].sum() == 1


def test_a_usage_type_outside_the_vocabulary_is_excluded():
    row = parsed(sku("Nvidia L4 GPU running in Americas", 0.3, usage="Commit1Mo")).row(
        0, named=True
    )
    assert row["status"] == "excluded"
    assert row["reason"] == "usage type Commit1Mo is outside on_demand/spot/flex/reserved_1y/reserved_3y"


def test_a3_megagpu_is_priced_with_the_mega_gpu_and_the_a3plus_host_not_a3():
    frame = recorded()
    central = offer(frame, "a3-megagpu-8g", "us-central1")
    # 208 x 0.0236 (A3Plus core) + 1872 x 0.0029 (A3Plus RAM) + 8 x 4.9 (Mega GPU)
    # (+ the same 6000 GiB of local SSD as a3-highgpu-8g)
    assert central["price_usd_per_hour"] == pytest.approx(
        4.9088 + 5.4288 + 39.2 + A3_HIGH_8G_SSD, abs=1e-9
    )
    east = offer(frame, "a3-megagpu-8g", "us-east4")  # the "Plus" spelling, in Virginia
    assert east["price_usd_per_hour"] == pytest.approx(
        4.9088 + 5.4288 + 8 * 5.1 + A3_HIGH_8G_SSD, abs=1e-9
    )
    # and a3-highgpu never picks up the Mega GPU
    assert offer(frame, "nvidia-h100-80gb", "us-central1")["price_usd_per_hour"] == 4.2007612


def test_a3_ultragpu_8g_is_h200_with_the_a3ultra_host():
    frame = parsed(
        sku("H200 141GB GPU running in Americas", 5.5),
        sku("A3Ultra Instance Core running in Americas", 0.03, group="CPU"),
        sku("A3Ultra Instance Ram running in Americas", 0.004, group="RAM", usage_unit="GiBy.h"),
        sku("SSD backed Local Storage running in Americas", 0.08, group="LocalSSD",
            usage_unit="GiBy.mo"),
    )
    row = offer(frame, "a3-ultragpu-8g", "us-central1")
    # 32 x 375 GiB = 12000 GiB of local SSD at 0.08 per GiB-month / 730 h
    assert row["price_usd_per_hour"] == pytest.approx(
        224 * 0.03 + 2952 * 0.004 + 8 * 5.5 + 12000 * 0.08 / 730, abs=1e-9
    )
    assert (row["gpu_name"], row["gpu_memory_gib"]) == ("H200", 141)


def test_a4_highgpu_8g_is_eight_gpu_slices_with_the_host_included():
    frame = recorded()
    row = offer(frame, "a4-highgpu-8g", "us-central1")
    # 8 slices x 10.0 + 12000 GiB local SSD x 0.08 / 730
    assert row["price_usd_per_hour"] == pytest.approx(80.0 + 12000 * 0.08 / 730, abs=1e-9)
    assert row["price_usd_per_gpu_hour"] == pytest.approx(10.0 + 1500 * 0.08 / 730, abs=1e-9)
    assert (row["gpu_name"], row["vcpus"], row["memory_gib"]) == ("B200", 224, 3968)
    per_gpu = offer(frame, "nvidia-b200", "us-central1")
    assert per_gpu["pricing_detail"] == settings.PER_GPU_DETAIL_HOST_INCLUDED


def test_n1_with_an_attached_t4_adds_the_n1_host():
    row = offer(recorded(), "n1-standard-8+1x-nvidia-tesla-t4", "us-central1")
    # 8 x 0.031611 + 30 x 0.004237 + 0.35 = 0.252888 + 0.12711 + 0.35
    assert row["price_usd_per_hour"] == pytest.approx(0.729998, abs=1e-12)
    assert (row["gpu_name"], row["gpu_count"]) == ("T4", 1)


def test_g2_shapes_compose_l4_with_the_g2_host():
    row = offer(recorded(), "g2-standard-48", "us-central1")
    # 48 x 0.0249 + 192 x 0.0029 + 4 x 0.56 = 1.1952 + 0.5568 + 2.24
    assert row["price_usd_per_hour"] == pytest.approx(3.992, abs=1e-12)
    assert row["price_usd_per_gpu_hour"] == pytest.approx(0.998, abs=1e-12)


def test_spot_and_committed_machines_use_parts_of_the_same_pricing_model():
    frame = recorded()
    spot = offer(frame, "a3-highgpu-8g", "us-central1", "spot")
    # spot local SSD 0.032 per GiB-month
    assert spot["price_usd_per_hour"] == pytest.approx(
        208 * 0.0097 + 1872 * 0.0012 + 8 * 2.25 + 6000 * 0.032 / 730
    )
    committed = offer(frame, "a3-highgpu-8g", "us-central1", "reserved_1y")
    # no committed Local SSD SKU in the fixture: the SSD at its on-demand rate, and said so
    assert committed["price_usd_per_hour"] == pytest.approx(
        208 * 0.015 + 1872 * 0.0019 + 8 * 2.9 + A3_HIGH_8G_SSD
    )
    assert committed["pricing_detail"] == (
        f"{settings.COMPOSED_SSD_DETAIL}; "
        "local SSD at its on-demand rate (no reserved_1y SSD SKU in the region)"
    )
    assert spot["pricing_detail"] == settings.COMPOSED_SSD_DETAIL


def test_a_machine_with_bundled_ssd_is_not_published_without_an_ssd_price():
    frame = parsed(
        sku("Nvidia H100 80GB GPU running in Americas", 4.2007612),
        sku("A3 Instance Core running in Americas", 0.02152, group="CPU"),
        sku("A3 Instance Ram running in Americas", 0.00266234, group="RAM", usage_unit="GiBy.h"),
    )
    assert frame.filter(pl.col("instance_type").str.starts_with("a3-highgpu")).is_empty()
    # the accelerator-only offer is still there
    assert offer(frame, "nvidia-h100-80gb", "us-central1")["price_usd_per_hour"] == 4.2007612


def test_a_machine_is_composed_only_where_all_its_parts_are_priced():
    frame = recorded()
    # the H100 3-year commitment exists, the A3 3-year host commitments do not
    assert (
        offer(frame, "nvidia-h100-80gb", "us-central1", "reserved_3y")["price_usd_per_hour"] == 1.9
    )
    machines = frame.filter(
        pl.col("instance_type").str.starts_with("a3-highgpu")
        & (pl.col("pricing_model") == "reserved_3y")
    )
    assert machines.is_empty()
    # nor is there a T4 spot machine: no spot T4 or N1 SKUs in the fixture
    assert frame.filter(
        pl.col("instance_type").str.contains("t4") & (pl.col("pricing_model") == "spot")
    ).is_empty()


def test_two_skus_for_the_same_offer_keep_the_newest_and_exclude_the_other():
    frame = parsed(
        sku(
            "Nvidia H100 80GB Mega GPU running in Americas",
            4.9,
            sku_id="AAAA-0000-0001",
            effective="2026-11-19T10:00:00Z",
        ),
        sku(
            "Nvidia H100 80GB Plus GPU running in Americas",
            5.0,
            sku_id="AAAA-0000-0002",
            effective="2026-11-19T11:00:00Z",
        ),
    )
    kept = offer(frame, "nvidia-h100-mega-80gb", "us-central1")
    assert kept["price_usd_per_hour"] == 5.0
    dropped = frame.filter(pl.col("status") == "excluded").row(0, named=True)
    assert dropped["reason"] == "duplicate SKU for the same offer (kept SKU AAAA-0000-0002)"
    assert normalise(frame).offers.height == 1


def test_a_missing_units_field_is_zero_units_as_proto3_json_omits_defaults():
    raw = sku("Nvidia Tesla P4 GPU running in Americas", 0.6)
    del raw["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]["units"]
    assert parsed(raw).row(0, named=True)["price_usd_per_hour"] == 0.6


def _broken(change) -> dict:
    raw = sku("Nvidia Tesla V100 GPU running in Americas", 2.48, sku_id="BAD0-0000-0001")
    change(raw)
    return raw


def _money(raw: dict) -> dict:
    return raw["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda r: r.update(pricingInfo=[]), "SKU has no pricingInfo"),
        (
            lambda r: r["pricingInfo"][0]["pricingExpression"].update(tieredRates=[]),
            "SKU has no tieredRates[0].unitPrice",
        ),
        (lambda r: _money(r).update(units="2.48"), "unit price units 2.48 is not an integer"),
        (
            lambda r: _money(r).update(currencyCode="EUR"),
            "non-USD price in EUR and no recorded conversion rate",
        ),
        (lambda r: _money(r).update(units="0", nanos=0), "price 0.0 USD per h is not positive"),
        (
            lambda r: r["pricingInfo"][0]["pricingExpression"].update(usageUnit="mo"),
            "usage unit mo is not the h a gpu SKU is priced in",
        ),
        (lambda r: r.update(serviceRegions=[]), "SKU lists no serviceRegions"),
    ],
)
def test_an_invalid_sku_is_rejected_to_quarantine_with_a_reason(change, reason):
    result = normalise(parsed(_broken(change)))
    assert result.offers.is_empty()
    assert result.rejected["reason"].to_list() == [reason]
    record = json.loads(result.rejected["record"][0])
    assert record["skuId"] == "BAD0-0000-0001"  # the raw SKU, for the quarantine


def test_a_host_sku_with_a_bad_price_blocks_its_machines_but_not_the_per_gpu_offer():
    ram = sku(
        "A2 Instance Ram running in Americas", 0.004237, group="RAM", usage_unit="h"
    )  # RAM per hour?
    frame = parsed(
        sku("Nvidia Tesla A100 GPU running in Americas", 2.933908),
        sku("A2 Instance Core running in Americas", 0.031611, group="CPU"),
        ram,
    )
    result = normalise(frame)
    assert result.offers["instance_type"].to_list() == ["nvidia-tesla-a100"]
    assert result.rejected["reason"].to_list() == [
        "usage unit h is not the GiBy.h a ram SKU is priced in"
    ]


def test_every_published_gpu_is_in_the_gpu_spec_seed():
    with SEED.open() as fh:
        seed = {(r["gpu_name"], float(r["gpu_memory_gib"])) for r in csv.DictReader(fh)}
    # every GPU SKU is named by the shared GPU rule, with a memory of the reference
    gpus = parse.resources().filter(pl.col("component") == "gpu")
    assert gpus.filter(pl.col("gpu_name").is_null() | pl.col("gpu_memory_gib").is_null()).is_empty()
    mapped = set(gpus.select("gpu_name", "gpu_memory_gib").unique().iter_rows())
    assert mapped <= seed
    by_accelerator = dict(gpus.select("accelerator", "gpu_memory_gib").unique().iter_rows())
    assert (by_accelerator["nvidia-tesla-a100"], by_accelerator["nvidia-a100-80gb"]) == (40, 80)
    frame = normalise(recorded()).offers
    emitted = set(frame.select("gpu_name", "gpu_memory_gib").unique().iter_rows())
    assert emitted <= seed and len(emitted) >= 6


def test_every_machine_shape_names_a_mapped_accelerator_and_a_complete_host_family():
    shapes = parse.machine_shapes()
    accelerators = {a for a, *_ in settings.GPU_SKUS.values()}
    assert set(shapes["accelerator"]) <= accelerators
    parts = {(family, part) for family, part in settings.HOST_SKUS.values()}
    for family in shapes["host_family"].drop_nulls().unique():
        assert {(family, "core"), (family, "ram")} <= parts
    host_included = {a for a, inc in settings.GPU_SKUS.values() if inc}
    no_host = set(shapes.filter(pl.col("host_family").is_null())["accelerator"])
    assert no_host == host_included == {"nvidia-b200"}
    with parse.SHAPES_CSV.open() as fh:
        assert all(
            row["source"].startswith("https://cloud.google.com/") for row in csv.DictReader(fh)
        )


def test_the_published_offers_are_unique_per_offer_key():
    offers = normalise(recorded()).offers
    key = ["region", "instance_type", "pricing_model", "pricing_detail"]
    assert offers.height == offers.unique(key).height


def test_parse_of_no_pages_is_empty():
    assert parse.parse(sku_pages()).is_empty()


def test_a_stored_page_that_is_not_a_list_skus_response_names_its_load():
    """The connector's parse (connectors.kit.connector) names the page that does not
    decode, among good ones."""
    frame = sku_pages(fixture("skus_page_1"))
    frame = pl.concat(
        [frame, frame.with_columns(load_id=pl.lit("load-bad"), payload=pl.lit('{"skus": 5}'))]
    )
    with pytest.raises(UnexpectedResponse, match=r"gcp/skus: the page .*\(load load-bad, "):
        registry.get("gcp").parse(frame)


def test_parse_does_not_modify_or_depend_on_row_order():
    body = fixture("skus_page_2")
    reordered = copy.deepcopy(body)
    reordered["skus"].reverse()
    key = ["region", "instance_type", "pricing_model"]
    a = normalise(parse.parse(sku_pages(body))).offers.sort(key)
    b = normalise(parse.parse(sku_pages(reordered))).offers.sort(key)
    assert a.drop("load_id").equals(b.drop("load_id"))
