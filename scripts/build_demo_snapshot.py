"""Build the bundled demo snapshot (connectors/demo_snapshot/) in the snapshot format.

Run: `uv run python -m scripts.build_demo_snapshot`. Deterministic: the same files every
time. Which values are real and which illustrative: connectors/demo_snapshot/README.md.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from benchmarks.shapes import (
    azure_retail_item,
    azure_retail_page,
    gcp_sku,
    gcp_sku_id,
    gcp_skus_page,
)

DEMO = Path(__file__).resolve().parent.parent / "connectors" / "demo_snapshot"
FETCHED_AT = "2026-11-20T02:00:00Z"
HOURS_PER_YEAR = 8760

# (arm sku, display name, series, eastus Linux on-demand USD/h). ND96asr_v4 27.197 is the
# real eastus price quoted in the foundation issue; the rest are illustrative, of the
# right order of magnitude (Azure pricing pages, 2024-2025).
AZURE_SIZES = [
    ("Standard_ND96asr_v4", "ND96asr v4", "NDasrA100_v4", 27.197),
    ("Standard_ND96amsr_A100_v4", "ND96amsr A100 v4", "NDamsrA100_v4", 32.77),
    ("Standard_NC24ads_A100_v4", "NC24ads A100 v4", "NCadsA100_v4", 3.673),
    ("Standard_NC96ads_A100_v4", "NC96ads A100 v4", "NCadsA100_v4", 14.692),
    ("Standard_ND96isr_H100_v5", "ND96isr H100 v5", "NDisrH100_v5", 98.32),
    ("Standard_NC40ads_H100_v5", "NC40ads H100 v5", "NCadsH100_v5", 6.98),
    ("Standard_NC80adis_H100_v5", "NC80adis H100 v5", "NCadsH100_v5", 13.96),
    ("Standard_NC4as_T4_v3", "NC4as T4 v3", "NCasT4_v3", 0.526),
    ("Standard_NC64as_T4_v3", "NC64as T4 v3", "NCasT4_v3", 4.352),
    ("Standard_NC6s_v3", "NC6s v3", "NCSv3", 3.06),
    ("Standard_NC24s_v3", "NC24s v3", "NCSv3", 12.24),
    ("Standard_ND40rs_v2", "ND40rs v2", "NDSv2", 22.032),
    ("Standard_NV6ads_A10_v5", "NV6ads A10 v5", "NVadsA10_v5", 0.454),
    ("Standard_NV36ads_A10_v5", "NV36ads A10 v5", "NVadsA10_v5", 3.20),
    # not in the GPU family map on purpose: kept with gpu_name null and counted
    ("Standard_NG8ads_V620_v1", "NG8ads V620 v1", "NGadsV620_v1", 0.38),
]
# region -> (display location, price factor vs eastus, sizes absent there)
AZURE_REGIONS = {
    "eastus": ("US East", 1.0, set()),
    "southcentralus": ("US South Central", 1.0, {"Standard_NG8ads_V620_v1"}),
    "westus2": ("US West 2", 1.0, {"Standard_ND96isr_H100_v5", "Standard_NG8ads_V620_v1"}),
    "westeurope": ("EU West", 1.1, {"Standard_ND40rs_v2", "Standard_NG8ads_V620_v1"}),
}
SPOT_FACTOR = 0.4  # illustrative: Azure spot discounts on GPU sizes run ~50-80%
RESERVED_1Y = 0.62  # effective hourly vs on-demand, illustrative
RESERVED_3Y = 0.45
PAGE_SIZE = 25


def _azure_items(region: str, location: str, factor: float, absent: set[str]) -> list[dict]:
    items = []
    for arm, display, series, base in AZURE_SIZES:
        if arm in absent:
            continue
        od = round(base * factor, 4)
        common = {
            "arm_sku": arm,
            "display": display,
            "series": series,
            "region": region,
            "location": location,
        }
        items += [
            azure_retail_item(**common, price=od),
            azure_retail_item(**common, price=round(od * SPOT_FACTOR, 4), suffix=" Spot"),
            azure_retail_item(**common, price=round(od * 1.12, 4), windows=True),
            azure_retail_item(**common, price=round(od * 0.2, 4), suffix=" Low Priority"),
            azure_retail_item(**common, price=od, kind="DevTestConsumption"),
            azure_retail_item(
                **common,
                kind="Reservation",
                term="1 Year",
                price=round(od * RESERVED_1Y * HOURS_PER_YEAR, 2),
            ),
            azure_retail_item(
                **common,
                kind="Reservation",
                term="3 Years",
                price=round(od * RESERVED_3Y * 3 * HOURS_PER_YEAR, 2),
            ),
        ]
    if region == "southcentralus":
        # a meter the API really does list at 0 (API_SHAPES §6): quarantined, not published
        items.append(
            azure_retail_item(
                arm_sku="Standard_NC4as_T4_v3",
                display="NC4as T4 v3",
                series="NCasT4_v3",
                region=region,
                location=location,
                price=0.0,
                suffix=" Spot",
                effective="2025-01-01T00:00:00Z",
            )
        )
    return items


def build_azure(root: Path) -> None:
    base = "https://prices.azure.com/api/retail/prices"
    for region, (location, factor, absent) in AZURE_REGIONS.items():
        items = _azure_items(region, location, factor, absent)
        params = {
            "api-version": "2023-01-01-preview",
            "$filter": f"serviceName eq 'Virtual Machines' and armRegionName eq '{region}' "
            "and contains(armSkuName, 'Standard_N')",
        }
        chunks = [items[i : i + PAGE_SIZE] for i in range(0, len(items), PAGE_SIZE)]
        url = base
        for n, chunk in enumerate(chunks, start=1):
            skip = n * PAGE_SIZE
            next_link = (
                f"{base}?api-version=2023-01-01-preview&$skip={skip}" if n < len(chunks) else None
            )
            page = {
                "fetched_at": FETCHED_AT,
                "request": {
                    "region": region,
                    "url": url,
                    "params": params if n == 1 else None,
                    "page": n,
                },
                "source_url": url,
                "body": azure_retail_page(chunk, next_link),
            }
            out = root / "azure" / "retail_prices" / f"{region}-{n:04d}.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps(page, indent=1) + "\n")
            url = next_link


# GCP: Cloud Billing Catalog SKU pages (CONTRACT §2, endpoint `skus`). Real values: the
# three SKUs of the opencost recording (A100 2.933908, A2 core 0.031611, A2 RAM 0.004237,
# us-central1/us-east1/us-west1, verbatim) and the us-central1 a3-highgpu-8g example of
# issue 4 (H100 4.2007612; A3 core 0.02152 and A3 RAM 0.00266234, solved so that
# 208 x core + 1872 x RAM = 9.46006048 ~ 9.46006 and the machine = 43.06615008 ~ 43.06615).
# Everything else is illustrative, of the right order of magnitude.
GCP_SERVICE = "services/6F81-5844-456A"
# The opencost recording (api-samples/gcp_cloudbilling_list_skus.json), rebuilt key for
# key: (skuId, description, resourceGroup, usageUnit, units, nanos)
GCP_RECORDED = [
    ("039F-D0DA-4055", "Nvidia Tesla A100 GPU running in Americas", "GPU", "h", 2, 933908000),
    ("2390-DCAF-DA38", "A2 Instance Ram running in Americas", "RAM", "GiBy.h", 0, 4237000),
    ("2922-40C5-B19F", "A2 Instance Core running in Americas", "CPU", "h", 0, 31611000),
]
GCP_RECORDED_REGIONS = ["us-central1", "us-east1", "us-west1"]
GCP_RECORDED_AT = "2023-03-24T10:52:50.681Z"
# geo word in the description -> (serviceRegions, price factor vs us-central1)
GCP_GEOS = {
    "Americas": (["us-central1"], 1.0),
    "Virginia": (["us-east4"], 1.127),
    "Netherlands": (["europe-west4"], 1.1),
    "Singapore": (["asia-southeast1"], 1.26),
}
_ALL = tuple(GCP_GEOS)
_NOT_US = ("Virginia", "Netherlands", "Singapore")  # Americas: the recorded A100/A2 SKUs
# (description stem, resourceGroup, usageUnit, us-central1 on-demand USD, geos,
#  commitment stem or None)
GCP_RESOURCES = [
    ("Nvidia Tesla A100 GPU", "GPU", "h", 2.933908, _NOT_US, None),
    ("Nvidia Tesla A100 80GB GPU", "GPU", "h", 3.92, _ALL, "Nvidia Tesla A100 80GB GPU"),
    ("Nvidia H100 80GB GPU", "GPU", "h", 4.2007612, _ALL, "Nvidia H100 80GB GPU"),
    ("Nvidia H100 80GB Mega GPU", "GPU", "h", 4.65, ("Americas", "Virginia"), None),
    ("Nvidia H100 80GB Plus GPU", "GPU", "h", 4.65, ("Netherlands",), None),
    ("H200 141GB GPU", "GPU", "h", 5.4, ("Americas", "Netherlands"), None),
    ("A4 Nvidia B200 (1 gpu slice)", "GPU", "h", 10.42, ("Americas",), None),
    ("Nvidia L4 GPU", "GPU", "h", 0.56, _ALL, "Nvidia L4 GPU"),
    ("Nvidia Tesla T4 GPU", "GPU", "h", 0.35, _ALL, "Nvidia Tesla T4 GPU"),
    ("Nvidia Tesla V100 GPU", "GPU", "h", 2.48, ("Americas", "Netherlands"), None),
    ("A2 Instance Core", "CPU", "h", 0.031611, _NOT_US, "A2 Cpu"),
    ("A2 Instance Ram", "RAM", "GiBy.h", 0.004237, _NOT_US, "A2 Ram"),
    ("A3 Instance Core", "CPU", "h", 0.02152, _ALL, "A3 Cpu"),
    ("A3 Instance Ram", "RAM", "GiBy.h", 0.00266234, _ALL, "A3 Ram"),
    ("A3Plus Instance Core", "CPU", "h", 0.0236, ("Americas", "Virginia", "Netherlands"), None),
    ("A3Plus Instance Ram", "RAM", "GiBy.h", 0.0029, ("Americas", "Virginia", "Netherlands"), None),
    ("A3Ultra Instance Core", "CPU", "h", 0.0287, ("Americas", "Netherlands"), None),
    ("A3Ultra Instance Ram", "RAM", "GiBy.h", 0.0038, ("Americas", "Netherlands"), None),
    ("G2 Instance Core", "CPU", "h", 0.0249, _ALL, "G2 Cpu"),
    ("G2 Instance Ram", "RAM", "GiBy.h", 0.0029, _ALL, "G2 Ram"),
    ("N1 Predefined Instance Core", "N1Standard", "h", 0.031611, _ALL, "Cpu"),
    ("N1 Predefined Instance Ram", "N1Standard", "GiBy.h", 0.004237, _ALL, "Ram"),
]
GCP_SPOT = 0.35  # illustrative: spot GPUs and hosts at ~60-70% off
GCP_COMMIT = {"Commit1Yr": (0.63, "1 Year"), "Commit3Yr": (0.45, "3 Years")}  # illustrative
# Out-of-scope SKUs the real catalog has, so the demo shows them excluded and counted,
# and one zero price, so it shows a quarantined record: (description, group, usage, USD).
GCP_OTHERS = [
    ("Reserved Nvidia H100 80GB Mega GPU in Americas", "GPU", "OnDemand", 4.65),
    ("DWS Calendar Mode A4 Nvidia B200 (1 gpu slice) running in Americas", "GPU", "OnDemand", 7.3),
    ("Sole Tenancy Premium for A3 Instance Core running in Americas", "CPU", "OnDemand", 0.0022),
    ("N1 Custom Instance Core running in Americas", "N1Standard", "OnDemand", 0.033174),
    ("Nvidia Tesla K80 GPU running in Americas", "GPU", "OnDemand", 0.45),
    ("E2 Instance Core running in Americas", "CPU", "OnDemand", 0.021811),
    ("Nvidia Tesla P4 GPU running in Singapore", "GPU", "OnDemand", 0.0),
]
GCP_PAGE_SIZE = 40


def _gcp_sku(
    description: str, group: str, usage: str, regions: list[str], price: float, unit: str = "h"
) -> dict:
    units = int(price)
    return gcp_sku(
        sku_id=gcp_sku_id(f"{description}/{usage}/{','.join(regions)}"),
        description=description,
        resource_group=group,
        usage_type=usage,
        regions=regions,
        units=units,
        nanos=round((price - units) * 1e9),
        usage_unit=unit,
    )


def _gcp_skus() -> list[dict]:
    skus = [
        gcp_sku(
            sku_id=sku_id,
            description=text,
            resource_group=group,
            usage_type="OnDemand",
            regions=GCP_RECORDED_REGIONS,
            units=units,
            nanos=nanos,
            usage_unit=unit,
            effective=GCP_RECORDED_AT,
        )
        for sku_id, text, group, unit, units, nanos in GCP_RECORDED
    ]
    for _, text, group, unit, units, nanos in GCP_RECORDED:  # their spot SKUs, illustrative
        spot = round((units + nanos / 1e9) * GCP_SPOT, 6)
        skus.append(
            _gcp_sku(
                f"Spot Preemptible {text}", group, "Preemptible", GCP_RECORDED_REGIONS, spot, unit
            )
        )
    for stem, group, unit, base, geos, commit in GCP_RESOURCES:
        for geo in geos:
            regions, factor = GCP_GEOS[geo]
            od = round(base * factor, 9 if factor == 1.0 else 6)
            spot = round(od * GCP_SPOT, 6)
            skus.append(_gcp_sku(f"{stem} running in {geo}", group, "OnDemand", regions, od, unit))
            spot_text = (
                f"{stem} attached to Spot Preemptible VMs running in {geo}"
                if stem == "Nvidia L4 GPU"
                else f"Spot Preemptible {stem} running in {geo}"
            )
            skus.append(_gcp_sku(spot_text, group, "Preemptible", regions, spot, unit))
            if commit is None:
                continue
            place = "running in" if group == "GPU" else "in"
            for usage, (share, term) in GCP_COMMIT.items():
                text = f"Commitment v1: {commit} {place} {geo} for {term}"
                skus.append(_gcp_sku(text, group, usage, regions, round(od * share, 6), unit))
    for text, group, usage, price in GCP_OTHERS:
        geo = text.rsplit(" ", 1)[-1]
        skus.append(_gcp_sku(text, group, usage, GCP_GEOS[geo][0], price))
    return skus


def build_gcp(root: Path) -> None:
    folder = root / "gcp" / "skus"
    shutil.rmtree(root / "gcp", ignore_errors=True)
    folder.mkdir(parents=True)
    skus = _gcp_skus()
    chunks = [skus[i : i + GCP_PAGE_SIZE] for i in range(0, len(skus), GCP_PAGE_SIZE)]
    token = ""
    for n, chunk in enumerate(chunks, start=1):
        next_token = f"demo-page-{n + 1}" if n < len(chunks) else ""
        page = {
            "fetched_at": FETCHED_AT,
            "request": {
                "scope": GCP_SERVICE,
                "parent": GCP_SERVICE,
                "pageSize": GCP_PAGE_SIZE,
                "currencyCode": "USD",
                "pageToken": token,
                "page": n,
            },
            "source_url": f"https://cloudbilling.googleapis.com/v1/{GCP_SERVICE}/skus",
            "body": gcp_skus_page(chunk, next_token),
        }
        (folder / f"compute-engine-{n:04d}.json").write_text(json.dumps(page, indent=1) + "\n")
        token = next_token


def main() -> None:
    for provider_dir in ("azure",):
        shutil.rmtree(DEMO / provider_dir, ignore_errors=True)
    build_azure(DEMO)
    build_gcp(DEMO)
    print(f"demo snapshot written to {DEMO}")


if __name__ == "__main__":
    main()
