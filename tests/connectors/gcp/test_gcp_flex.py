"""GCP DWS flex-start: the "DWS Defined Duration" SKUs priced as pricing_model `flex`,
per GPU and composed into machine types like on-demand, while calendar mode stays
excluded. SKU descriptions and prices as Google's catalog lists them in billing data
quoted publicly (2025-08, us-central1 / "Americas"); shapes from samples.gcp.gcp_sku,
the recorded Cloud Billing shape."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.gcp import settings
from connectors.kit.normalise import normalise
from tests.connectors.gcp.test_gcp_parse import offer, parsed, sku

# Real descriptions and prices (SKU ids 341A-49A5-0C07, 9A32-36B2-7FBC, ED19-A584-4A84,
# 2303-1D6A-9C08)
FLEX_GPU = "Nvidia H100 80GB GPU attached to DWS Defined Duration VMs running in Americas"
FLEX_CORE = "DWS Defined Duration A3 Core running in Americas"
FLEX_RAM = "DWS Defined Duration A3 Ram running in Americas"
FLEX_SSD = "DWS Defined Duration SSD backed Local Storage running in Americas"
ON_DEMAND = [
    sku("Nvidia H100 80GB GPU running in Americas", 4.2007612),
    sku("A3 Instance Core running in Americas", 0.02152, group="CPU"),
    sku("A3 Instance Ram running in Americas", 0.00266234, group="RAM", usage_unit="GiBy.h"),
]
FLEX = [
    sku(FLEX_GPU, 4.200761, sku_id="341A-49A5-0C07"),
    sku(FLEX_CORE, 0.010934, group="CPU", sku_id="9A32-36B2-7FBC"),
    sku(FLEX_RAM, 0.000952, group="RAM", usage_unit="GiBy.h", sku_id="ED19-A584-4A84"),
    # 0.0001096 per GiB-hour in the published breakdown = 0.08 per GiB-month / 730
    sku(FLEX_SSD, 0.08, group="LocalSSD", usage_unit="GiBy.mo", sku_id="2303-1D6A-9C08"),
]


def test_defined_duration_skus_are_flex_not_on_demand():
    frame = parsed(*ON_DEMAND, *FLEX)
    gpu = offer(frame, "nvidia-h100-80gb", "us-central1", "flex")
    assert gpu["price_usd_per_hour"] == pytest.approx(4.200761, abs=1e-12)
    assert gpu["pricing_detail"].startswith(settings.FLEX_DETAIL)
    # the on-demand GPU offer is untouched by the flex SKU of the same GPU
    assert offer(frame, "nvidia-h100-80gb", "us-central1")["price_usd_per_hour"] == (
        pytest.approx(4.2007612, abs=1e-12)
    )


def test_flex_machine_is_composed_from_the_flex_gpu_core_and_ram_skus():
    row = offer(parsed(*ON_DEMAND, *FLEX), "a3-highgpu-8g", "us-central1", "flex")
    # 8 x 4.200761 + 208 x 0.010934 + 1872 x 0.000952 + 6000 x 0.08 / 730
    # = 33.606088 + 2.274272 + 1.782144 + 0.657534 = 38.320038, the published breakdown's
    # Compute Engine total for a flex-start a3-highgpu-8g (its SSD line rounded: 0.65753425)
    total = 37.662504 + 6000 * 0.08 / 730
    assert row["price_usd_per_hour"] == pytest.approx(total, abs=1e-9)
    assert round(row["price_usd_per_hour"], 6) == 38.320038
    assert row["price_usd_per_gpu_hour"] == pytest.approx(total / 8, abs=1e-9)
    assert row["pricing_detail"] == f"{settings.FLEX_DETAIL}; {settings.COMPOSED_SSD_DETAIL}"
    assert '"core_sku":"9A32-36B2-7FBC"' in row["record"]


def test_flex_machine_needs_its_own_host_skus_not_the_on_demand_ones():
    frame = parsed(*ON_DEMAND, FLEX[0])  # flex GPU, no flex core/RAM
    machines = frame.filter(
        (pl.col("instance_type") == "a3-highgpu-8g") & (pl.col("pricing_model") == "flex")
    )
    assert machines.is_empty()


def test_calendar_mode_stays_excluded_and_flex_passes_the_shared_rules():
    calendar = sku("DWS Calendar Mode A4 Nvidia B200 (1 gpu slice) running in Americas", 7.3)
    result = normalise(parsed(*FLEX, calendar))
    assert set(result.offers["pricing_model"]) == {"flex"}
    (reason,) = result.excluded["reason"]
    assert reason.startswith("DWS: Dynamic Workload Scheduler calendar mode")


def test_flex_l4_with_the_spot_style_attached_clause_is_matched():
    row = offer(
        parsed(sku("Nvidia L4 GPU attached to DWS Defined Duration VMs running in Americas", 0.31)),
        "nvidia-l4",
        "us-central1",
        "flex",
    )
    assert row["gpu_name"] == "L4"


def test_demo_flex_offers_reach_the_marts_and_rates(demo_warehouse):
    import json

    from typer.testing import CliRunner

    from gpu_pricing.cli import app
    from warehouse import db

    con = db.connect_readonly(demo_warehouse)
    try:
        cheapest = db.run(
            con,
            """SELECT gpu_name, gpu_memory_gib, provider, instance_type, price_usd_per_gpu_hour
               FROM mart_cheapest_gpu_hour WHERE pricing_model = 'flex' ORDER BY gpu_name""",
        )
    finally:
        con.close()
    # usable machines only (host included): a2-megagpu-16g per GPU = (16 x 1.61365 +
    # 96 x 0.01739 + 1360 x 0.00233) / 16 = 30.65664 / 16; a3-highgpu-Ng per GPU = 4.200761 +
    # 26 x 0.010934 + 234 x 0.000952 + 750 GiB local SSD x 0.08 / 730 (every A3 High size
    # alike: the first name wins the tie)
    assert [(g, m, p, i) for g, m, p, i, _ in cheapest] == [
        ("A100", 40.0, "gcp", "a2-megagpu-16g"),
        ("H100", 80.0, "gcp", "a3-highgpu-1g"),
    ]
    assert cheapest[0][4] == pytest.approx(30.65664 / 16, abs=1e-6)
    assert cheapest[1][4] == pytest.approx(
        4.200761 + 26 * 0.010934 + 234 * 0.000952 + 750 * 0.08 / 730, abs=1e-6
    )
    result = CliRunner().invoke(
        app, ["rates", "--gpu", "H100", "--pricing", "flex", "--json",
              "--warehouse", str(demo_warehouse)],
    )
    assert result.exit_code == 0, result.output
    rates = json.loads(result.output)["rates"]
    assert rates and {r["provider"] for r in rates} == {"gcp"}
    assert all(r["pricing_detail"].startswith(settings.FLEX_DETAIL) for r in rates)
