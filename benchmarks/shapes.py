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


# --- Specialty clouds -------------------------------------------------------------------
# Shapes of API_SHAPES.md §8 ([code] confidence: the fields mature consumers read) and the
# recorded entries quoted there: Lambda instance-types (`data` keyed by type name), RunPod
# gpuTypes (the runpod docs `get_gpu` example), Vast.ai bundles `offers[]` (gpuhunt's
# fields), OCI cetools products (`items[]` with currencyCodeLocalizations).


def lambda_instance_type(
    *,
    name: str,
    description: str,
    cents: int,
    vcpus: int,
    memory_gib: int,
    storage_gib: int,
    gpus: int,
    regions: list[tuple[str, str]],
) -> dict[str, Any]:
    return {
        "instance_type": {
            "name": name,
            "description": description,
            "gpu_description": description.split("x ", 1)[1],
            "price_cents_per_hour": cents,
            "specs": {
                "vcpus": vcpus,
                "memory_gib": memory_gib,
                "storage_gib": storage_gib,
                "gpus": gpus,
            },
        },
        "regions_with_capacity_available": [
            {"name": region, "description": where} for region, where in regions
        ],
    }


def lambda_instance_types_body(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"data": {e["instance_type"]["name"]: e for e in entries}}


def runpod_gpu_type(
    *,
    gpu_id: str,
    display: str,
    memory_gb: int,
    secure: float | None,
    community: float | None,
    secure_spot: float | None = None,
    community_spot: float | None = None,
    manufacturer: str = "Nvidia",
    max_gpus: int = 8,
) -> dict[str, Any]:
    return {
        "maxGpuCount": max_gpus,
        "id": gpu_id,
        "displayName": display,
        "manufacturer": manufacturer,
        "memoryInGb": memory_gb,
        "secureCloud": secure is not None,
        "communityCloud": community is not None,
        "securePrice": secure,
        "communityPrice": community,
        "secureSpotPrice": secure_spot,
        "communitySpotPrice": community_spot,
    }


def runpod_gpu_types_body(gpu_types: list[dict[str, Any]]) -> dict[str, Any]:
    return {"data": {"gpuTypes": gpu_types}}


def vast_offer(
    *,
    offer_id: int,
    gpu_name: str,
    num_gpus: int,
    gpu_ram_mb: int,
    dph_base: float,
    disk_gb: int,
    min_bid: float | None,
    geolocation: str | None,
    cpu_cores: int,
    cpu_cores_effective: int,
    cpu_ram_mb: int,
    verified: bool = True,
    storage_cost: float = 0.1,
) -> dict[str, Any]:
    storage_per_hour = disk_gb * storage_cost / 30 / 24  # storage_cost is USD/GB/month
    return {
        "id": offer_id,
        "ask_contract_id": offer_id,
        "machine_id": offer_id // 1000,
        "host_id": 90000 + offer_id % 997,
        "gpu_name": gpu_name,
        "num_gpus": num_gpus,
        "gpu_ram": gpu_ram_mb,
        "gpu_total_ram": gpu_ram_mb * num_gpus,
        "cpu_cores": cpu_cores,
        "cpu_cores_effective": cpu_cores_effective,
        "cpu_ram": cpu_ram_mb,
        "disk_space": disk_gb,
        "dph_base": dph_base,
        "dph_total": round(dph_base + storage_per_hour, 6),
        "storage_cost": storage_cost,
        "min_bid": min_bid,
        "inet_up": 1000,
        "inet_down": 1000,
        "reliability2": 0.99,
        "geolocation": geolocation,
        "datacenter": verified,
        "verified": verified,
        "rentable": True,
        "rented": False,
    }


def vast_bundles_body(offers: list[dict[str, Any]]) -> dict[str, Any]:
    return {"offers": offers}


def oci_product(
    *,
    part: str,
    display: str,
    price: float,
    metric: str = "GPU Per Hour",
    category: str = "Compute - GPU",
    currency: str = "USD",
) -> dict[str, Any]:
    return {
        "partNumber": part,
        "displayName": display,
        "metricName": metric,
        "serviceCategory": category,
        "currencyCodeLocalizations": [
            {"currencyCode": currency, "prices": [{"model": "PAY_AS_YOU_GO", "value": price}]}
        ],
    }


def oci_products_body(items: list[dict[str, Any]], last_updated: str) -> dict[str, Any]:
    return {"lastUpdated": last_updated, "items": items}
