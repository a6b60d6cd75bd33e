"""The specialty clouds' responses: Lambda instance types, RunPod GPU types, Vast.ai bundles, OCI products."""

from __future__ import annotations

from typing import Any

# Shapes the fields mature consumers read (gpuhunt's and SkyPilot's provider code) and the
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
