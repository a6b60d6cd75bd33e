"""Composed GCP machines against the list prices Google publishes for them: the bundled
local SSD is part of the machine's price.

Published figures: Google's GKE cluster-autoscaler machine-type table (Google LLC,
`machinetypes` package of GKE's autoscaler, read 2026-11), which prices every machine
type the autoscaler provisions, on demand in us-central1:
- A2 family rates 0.031611 USD per vCPU-hour and 0.004237 per GiB-hour (the same values
  as the recorded Cloud Billing SKUs "A2 Instance Core/Ram running in Americas");
  a2-ultragpu-1g 5.0688 and a2-ultragpu-8g 40.5504 USD/h "with" local SSD, 5.0277 and
  40.2216 without ("price reduced by lssd cost: [375 GB] * [0.08 $ / GB / month] / 730");
- A3 family rates 0.02466 per vCPU-hour and 0.002147 per GiB-hour; a3-highgpu-1g 10.62,
  a3-highgpu-4g 42.47 and a3-highgpu-8g 84.94 USD/h, each with its local SSD (2, 8 and 16
  disks of 375 GiB).
The GPU SKU price is the one number not in that table: it is solved here from one
published machine price (arithmetic below) and the other sizes of the family are then an
independent check of the composition, SSD included."""

from __future__ import annotations

import polars as pl
import pytest

from connectors.kit.normalise import normalise
from tests.connectors.gcp.test_gcp_parse import parsed, sku

SSD_PER_GIB_MONTH = 0.08
HOURS_PER_MONTH = 730


def ssd_hourly(gib: int) -> float:
    return gib * SSD_PER_GIB_MONTH / HOURS_PER_MONTH


# A100 80GB solved from a2-ultragpu-1g = 5.0688:
# 5.0688 - 12 x 0.031611 - 170 x 0.004237 - 375 x 0.08 / 730 = 3.928082110 (to the nano)
A100_80 = round(5.0688 - 12 * 0.031611 - 170 * 0.004237 - ssd_hourly(375), 9)
# H100 solved from a3-highgpu-8g = 84.94:
# (84.94 - 208 x 0.02466 - 1872 x 0.002147 - 6000 x 0.08 / 730) / 8 = 9.391750219
H100 = round((84.94 - 208 * 0.02466 - 1872 * 0.002147 - ssd_hourly(6000)) / 8, 9)

CATALOG = [
    sku("Nvidia Tesla A100 80GB GPU running in Americas", A100_80),
    sku("A2 Instance Core running in Americas", 0.031611, group="CPU"),
    sku("A2 Instance Ram running in Americas", 0.004237, group="RAM", usage_unit="GiBy.h"),
    sku("Nvidia H100 80GB GPU running in Americas", H100),
    sku("A3 Instance Core running in Americas", 0.02466, group="CPU"),
    sku("A3 Instance Ram running in Americas", 0.002147, group="RAM", usage_unit="GiBy.h"),
    sku(
        "SSD backed Local Storage running in Americas",
        SSD_PER_GIB_MONTH,
        group="LocalSSD",
        usage_unit="GiBy.mo",
    ),
]


def published_price(machine_type: str) -> float:
    offers = normalise(parsed(*CATALOG)).offers
    row = offers.filter(
        (pl.col("instance_type") == machine_type) & (pl.col("pricing_model") == "on_demand")
    )
    assert row.height == 1, machine_type
    return row["price_usd_per_hour"][0]


def test_solved_gpu_prices_are_what_the_arithmetic_says():
    a100_80, h100 = A100_80, H100
    assert a100_80 == pytest.approx(3.92808211, abs=1e-9)
    assert h100 == pytest.approx(9.391750219, abs=1e-9)


@pytest.mark.parametrize(
    ("machine_type", "list_price"),
    [
        ("a3-highgpu-8g", 84.94),  # the price the H100 rate was solved from
        ("a3-highgpu-4g", 42.47),  # independent: 4 x 9.391750219 + 104 x 0.02466 + ...
        ("a3-highgpu-1g", 10.62),  # 9.391750219 + 0.64116 + 0.502398 + 0.082192 = 10.6175
        ("a2-ultragpu-1g", 5.0688),  # the price the A100 80GB rate was solved from
        ("a2-ultragpu-8g", 40.5504),  # independent: 31.424657 + 3.034656 + 5.76232 + 0.328767
    ],
)
def test_composed_machine_matches_googles_published_list_price(machine_type, list_price):
    # published to the cent (A3) or to 4 decimals (A2)
    tolerance = 0.005 if machine_type.startswith("a3") else 0.00005
    assert published_price(machine_type) == pytest.approx(list_price, abs=tolerance)


def test_without_its_local_ssd_the_machine_would_be_the_published_no_ssd_price():
    # a2-ultragpu-1g-nolssd 5.0277 and a2-ultragpu-8g-nolssd 40.2216 in the same table:
    # the SSD part is exactly what separates the two published prices
    assert published_price("a2-ultragpu-1g") - ssd_hourly(375) == pytest.approx(5.0277, abs=5e-5)
    assert published_price("a2-ultragpu-8g") - ssd_hourly(3000) == pytest.approx(
        40.2216, abs=5e-5
    )
    # and it is far more than the published rounding: 0.66 USD/h on a3-highgpu-8g
    assert ssd_hourly(6000) == pytest.approx(0.657534, abs=1e-6)
