"""Builders of API items in the real response shapes (../shared/reference/api-samples),
shared by the demo-snapshot builder and the benchmarks. Only the values vary; every key
and type is the recorded one."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

# Retail Prices API item: the keys, order and types of the Microsoft Learn example
# (api-samples/azure_retail_prices.json), plus reservationTerm on Reservation items.


def _digits(text: str) -> str:
    """Four stable characters from a name (Python's hash() is salted per process)."""
    return hashlib.sha1(text.encode()).hexdigest()[:4].upper()


def azure_retail_item(
    *,
    arm_sku: str,
    display: str,
    series: str,
    region: str,
    location: str,
    price: float,
    kind: str = "Consumption",
    suffix: str = "",
    windows: bool = False,
    term: str | None = None,
    effective: str = "2024-06-01T00:00:00Z",
    currency: str = "USD",
) -> dict[str, Any]:
    product_id = "DZH318Z0" + _digits(series)
    meter = f"{display}{suffix}"
    item: dict[str, Any] = {
        "currencyCode": currency,
        "tierMinimumUnits": 0.0,
        "retailPrice": price,
        "unitPrice": price,
        "armRegionName": region,
        "location": location,
        "effectiveStartDate": effective,
        "meterId": str(
            uuid.uuid5(uuid.NAMESPACE_URL, f"{region}/{arm_sku}/{suffix}/{windows}/{kind}/{term}")
        ),
        "meterName": meter,
        "productId": product_id,
        "skuId": f"{product_id}/{_digits(meter)}",
        "productName": f"Virtual Machines {series} Series{' Windows' if windows else ''}",
        "skuName": meter,
        "serviceName": "Virtual Machines",
        "serviceId": "DZH313Z7MMC8",
        "serviceFamily": "Compute",
        "unitOfMeasure": "1 Hour",
        "type": kind,
        "isPrimaryMeterRegion": True,
        "armSkuName": arm_sku,
    }
    if term:
        item["reservationTerm"] = term
    return item


def azure_retail_page(items: list[dict[str, Any]], next_link: str | None) -> dict[str, Any]:
    return {
        "BillingCurrency": "USD",
        "CustomerEntityId": "Default",
        "CustomerEntityType": "Retail",
        "Items": items,
        "NextPageLink": next_link,
        "Count": len(items),
    }


# Cloud Billing Catalog services.skus.list REST JSON: the keys, order and types of the
# opencost recording (api-samples/gcp_cloudbilling_list_skus.json). Money.units is an
# int64, so a string in REST JSON.
_GCP_UNITS = {
    "h": ("hour", "s", "second", 3600),
    "GiBy.h": ("gibibyte hour", "By.s", "byte second", 3865470566400),
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
