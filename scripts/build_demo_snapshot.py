"""Build the bundled demo snapshot (connectors/demo_snapshot/) in the snapshot format.

Run: `uv run python -m scripts.build_demo_snapshot`. Deterministic: the same files every
time. Which values are real and which illustrative: connectors/demo_snapshot/README.md.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from benchmarks.shapes import azure_retail_item, azure_retail_page

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


def main() -> None:
    for provider_dir in ("azure",):
        shutil.rmtree(DEMO / provider_dir, ignore_errors=True)
    build_azure(DEMO)
    print(f"demo snapshot written to {DEMO}")


if __name__ == "__main__":
    main()
