"""Cloud Billing Catalog services.skus.list items and pages."""

from __future__ import annotations

import hashlib
from typing import Any

# Cloud Billing Catalog services.skus.list REST JSON: the keys, order and types of the
# opencost recording (opencost/opencost pkg/cloud/gcp/test/skus.json). Money.units is an
# int64, so a string in REST JSON.
_GCP_UNITS = {
    "h": ("hour", "s", "second", 3600),
    "GiBy.h": ("gibibyte hour", "By.s", "byte second", 3865470566400),
    # storage SKUs (Local SSD) are priced per GiB-month; the factor is 2^30 x 31 days
    "GiBy.mo": ("gibibyte month", "By.s", "byte second", 2875910101401600),
}


def gcp_sku(
    *,
    sku_id: str,
    description: str,
    resource_group: str,
    usage_type: str,
    regions: list[str],
    units: int,
    nanos: int,
    usage_unit: str = "h",
    effective: str = "2026-11-19T14:52:50.681Z",
    currency: str = "USD",
) -> dict[str, Any]:
    unit_description, base_unit, base_description, factor = _GCP_UNITS[usage_unit]
    return {
        "name": f"services/6F81-5844-456A/skus/{sku_id}",
        "skuId": sku_id,
        "description": description,
        "category": {
            "serviceDisplayName": "Compute Engine",
            "resourceFamily": "Compute",
            "resourceGroup": resource_group,
            "usageType": usage_type,
        },
        "serviceRegions": list(regions),
        "pricingInfo": [
            {
                "summary": "",
                "pricingExpression": {
                    "usageUnit": usage_unit,
                    "displayQuantity": 1,
                    "tieredRates": [
                        {
                            "startUsageAmount": 0,
                            "unitPrice": {
                                "currencyCode": currency,
                                "units": str(units),
                                "nanos": nanos,
                            },
                        }
                    ],
                    "usageUnitDescription": unit_description,
                    "baseUnit": base_unit,
                    "baseUnitDescription": base_description,
                    "baseUnitConversionFactor": factor,
                },
                "currencyConversionRate": 1,
                "effectiveTime": effective,
            }
        ],
        "serviceProviderName": "Google",
        "geoTaxonomy": {
            "type": "REGIONAL" if len(regions) == 1 else "MULTI_REGIONAL",
            "regions": list(regions),
        },
    }


def gcp_sku_id(text: str) -> str:
    """A stable SKU id in the catalog's XXXX-XXXX-XXXX form."""
    digest = hashlib.sha1(text.encode()).hexdigest().upper()
    return f"{digest[:4]}-{digest[4:8]}-{digest[8:12]}"


def gcp_skus_page(skus: list[dict[str, Any]], next_page_token: str) -> dict[str, Any]:
    return {"skus": skus, "nextPageToken": next_page_token}
