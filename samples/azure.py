"""Azure Retail Prices API items and pages."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

# Retail Prices API item: the keys, order and types of the Microsoft Learn example
# (the example item of Microsoft Learn's "Azure Retail Prices overview"), plus reservationTerm on Reservation items.


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
