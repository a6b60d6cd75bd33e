"""AWS responses: DescribeInstanceTypes, DescribeSpotPriceHistory, GetProducts items, the offer CSV and the Spot Advisor feed."""

from __future__ import annotations

import hashlib
import json
from typing import Any

# Shapes of the AWS recordings: DescribeInstanceTypes (moto's recording of the live API),
# DescribeSpotPriceHistory (instance-selector recording), GetProducts items (the m5.large
# recording: product/attributes, terms.OnDemand / terms.Reserved keyed "<sku>.<term>",
# priceDimensions keyed "<sku>.<term>.<rate>"), the offer CSV (the 2025-09-12 file: 5
# metadata lines, this header, every non-empty field quoted) and the Spot Advisor feed.

AWS_OFFER_CSV_HEADER = [
    "SKU", "OfferTermCode", "RateCode", "TermType", "PriceDescription", "EffectiveDate",
    "StartingRange", "EndingRange", "Unit", "PricePerUnit", "Currency", "RelatedTo",
    "LeaseContractLength", "PurchaseOption", "OfferingClass", "Product Family", "serviceCode",
    "Location", "Location Type", "Instance Type", "Current Generation", "Instance Family",
    "vCPU", "Physical Processor", "Clock Speed", "Memory", "Storage", "Network Performance",
    "Processor Architecture", "Storage Media", "Volume Type", "Max Volume Size",
    "Max IOPS/volume", "Max IOPS Burst Performance", "Max throughput/volume", "Provisioned",
    "Tenancy", "EBS Optimized", "Operating System", "License Model", "Group",
    "Group Description", "Transfer Type", "From Location", "From Location Type", "To Location",
    "To Location Type", "usageType", "operation", "AvailabilityZone", "CapacityStatus",
    "ClassicNetworkingSupport", "Dedicated EBS Throughput", "ECU", "Elastic Graphics Type",
    "Enhanced Networking Supported", "From Region Code", "GPU", "GPU Memory", "Instance",
    "Instance Capacity - 10xlarge", "Instance Capacity - 12xlarge",
    "Instance Capacity - 16xlarge", "Instance Capacity - 18xlarge",
    "Instance Capacity - 24xlarge", "Instance Capacity - 2xlarge",
    "Instance Capacity - 32xlarge", "Instance Capacity - 4xlarge",
    "Instance Capacity - 8xlarge", "Instance Capacity - 9xlarge", "Instance Capacity - large",
    "Instance Capacity - medium", "Instance Capacity - metal", "Instance Capacity - xlarge",
    "instanceSKU", "Intel AVX2 Available", "Intel AVX Available", "Intel Turbo Available",
    "MarketOption", "Normalization Size Factor", "Physical Cores", "Pre Installed S/W",
    "Processor Features", "Product Type", "Region Code", "Resource Type", "serviceName",
    "SnapshotArchiveFeeType", "To Region Code", "Volume API Name", "VPCNetworkingSupport",
]  # fmt: skip

AWS_DISCLAIMER = (
    "This pricing list is for informational purposes only. All prices are subject to the "
    "additional terms included in the pricing pages on http://aws.amazon.com. All Free Tier "
    "prices are also subject to the terms included at https://aws.amazon.com/free/"
)
# Region code -> the price list's `location` (AWS's display names).
AWS_LOCATIONS = {
    "us-east-1": "US East (N. Virginia)",
    "us-east-2": "US East (Ohio)",
    "us-west-2": "US West (Oregon)",
    "eu-west-1": "EU (Ireland)",
    "ap-southeast-2": "Asia Pacific (Sydney)",
    "us-east-1-nyc-1": "US East (New York City)",
}
# usagetype prefixes (BoxUsage is us-east-1's unprefixed form).
AWS_USAGE_PREFIX = {
    "us-east-1": "",
    "us-east-2": "USE2-",
    "us-west-2": "USW2-",
    "eu-west-1": "EU-",
    "ap-southeast-2": "APS2-",
    "us-east-1-nyc-1": "USE1-NYC1-",
}
# Reserved offer term codes as they appear in the price list (the sample's 4NA7Y494T4,
# CUZHX8X6JH, 6QCMYABX3D and their siblings); only used to build realistic keys.
AWS_RESERVED_TERM_CODES = {
    ("1yr", "standard", "No Upfront"): "4NA7Y494T4",
    ("1yr", "standard", "Partial Upfront"): "HU7G6KETJZ",
    ("1yr", "standard", "All Upfront"): "6QCMYABX3D",
    ("1yr", "convertible", "No Upfront"): "7NE97W5U4E",
    ("1yr", "convertible", "Partial Upfront"): "CUZHX8X6JH",
    ("1yr", "convertible", "All Upfront"): "VJWZNREJX2",
    ("3yr", "standard", "No Upfront"): "BPH4J8HBKS",
    ("3yr", "standard", "Partial Upfront"): "38NPMPTW36",
    ("3yr", "standard", "All Upfront"): "NQ3QZPMQV9",
    ("3yr", "convertible", "No Upfront"): "Z2E3P23VKM",
    ("3yr", "convertible", "Partial Upfront"): "R5XV2EPZQZ",
    ("3yr", "convertible", "All Upfront"): "MZU6U2429S",
}
AWS_ON_DEMAND_TERM = "JRTCKXETXF"
AWS_HOURLY_RATE = "6YS6EN2CT7"
AWS_UPFRONT_RATE = "2TG2D8R56U"


def aws_sku(*parts: str) -> str:
    """A stable 16-character SKU from its parts (real SKUs are opaque, upper-case)."""
    return hashlib.sha1("/".join(parts).encode()).hexdigest()[:16].upper()


def aws_instance_type_item(
    *,
    instance_type: str,
    vcpus: int,
    memory_mib: int,
    gpu_name: str | None = None,
    manufacturer: str = "NVIDIA",
    gpu_count: int = 1,
    gpu_memory_mib: int = 0,
    partition: float = 1.0,
    logical: int | None = None,
    neuron_name: str | None = None,
    neuron_count: int = 0,
    neuron_memory_mib: int = 0,
    usage_classes: tuple[str, ...] = ("on-demand", "spot"),
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "InstanceType": instance_type,
        "CurrentGeneration": True,
        "SupportedUsageClasses": list(usage_classes),
        "BareMetal": False,
        "Hypervisor": "nitro",
        "ProcessorInfo": {"SupportedArchitectures": ["x86_64"], "SustainedClockSpeedInGhz": 3.6},
        "VCpuInfo": {
            "DefaultVCpus": vcpus,
            "DefaultCores": max(vcpus // 2, 1),
            "DefaultThreadsPerCore": 2,
        },
        "MemoryInfo": {"SizeInMiB": memory_mib},
    }
    if gpu_name:
        logical = gpu_count if logical is None else logical
        item["GpuInfo"] = {
            "Gpus": [
                {
                    "Count": gpu_count,
                    "GpuPartitionSize": partition,
                    "LogicalGpuCount": logical,
                    "Manufacturer": manufacturer,
                    "MemoryInfo": {"SizeInMiB": gpu_memory_mib},
                    "Name": gpu_name,
                    "Workloads": ["ml-ai"],
                }
            ],
            "TotalGpuMemoryInMiB": max(gpu_count, 1) * gpu_memory_mib,
        }
    if neuron_name:
        item["NeuronInfo"] = {
            "NeuronDevices": [
                {
                    "Count": neuron_count,
                    "Name": neuron_name,
                    "CoreInfo": {"Count": 2, "Version": 2},
                    "MemoryInfo": {"SizeInMiB": neuron_memory_mib},
                }
            ],
            "TotalNeuronDeviceMemoryInMiB": neuron_count * neuron_memory_mib,
        }
    return item


def aws_spot_price_item(
    zone: str, instance_type: str, price: str, timestamp: str
) -> dict[str, Any]:
    return {
        "AvailabilityZone": zone,
        "InstanceType": instance_type,
        "ProductDescription": "Linux/UNIX",
        "SpotPrice": price,
        "Timestamp": timestamp,
    }


def _aws_dimension(sku: str, term: str, rate: str, unit: str, price: str, text: str) -> dict:
    dim: dict[str, Any] = {
        "unit": unit,
        "description": text,
        "appliesTo": [],
        "rateCode": f"{sku}.{term}.{rate}",
        "pricePerUnit": {"USD": price},
    }
    if unit == "Hrs":
        dim = {"unit": unit, "endRange": "Inf", **{k: v for k, v in dim.items() if k != "unit"}}
        dim["beginRange"] = "0"
    return dim


def aws_price_list_item(
    *,
    instance_type: str,
    region: str,
    vcpus: int,
    memory_gib: float,
    gpus: float | None,
    gpu_memory: str = "NA",
    instance_family: str = "GPU instance",
    on_demand: float | None,
    reserved: dict[tuple[str, str, str], tuple[float, float]] | None = None,
    on_demand_effective: str = "2024-06-01T00:00:00Z",
    version: str = "20261118170000",
    publication_date: str = "2026-11-18T17:00:00Z",
    market_option: str = "OnDemand",
) -> str:
    """One GetProducts PriceList element: a JSON *string* (jsonvalue=true in the model)."""
    sku = aws_sku(region, instance_type, market_option)
    usage = f"{AWS_USAGE_PREFIX.get(region, '')}BoxUsage:{instance_type}"
    attributes = {
        "enhancedNetworkingSupported": "Yes",
        "memory": f"{memory_gib:g} GiB",
        "vcpu": str(vcpus),
        "capacitystatus": "Used",
        "locationType": "AWS Region",
        "storage": "EBS only",
        "instanceFamily": instance_family,
        "operatingSystem": "Linux",
        "gpu": "NA" if gpus is None else f"{gpus:g}",
        "gpuMemory": gpu_memory,
        "servicename": "Amazon Elastic Compute Cloud",
        "instanceType": instance_type,
        "tenancy": "Shared",
        "usagetype": usage,
        "servicecode": "AmazonEC2",
        "licenseModel": "No License required",
        "currentGeneration": "Yes",
        "preInstalledSw": "NA",
        "marketoption": market_option,
        "location": AWS_LOCATIONS.get(region, region),
        "regionCode": region,
        "processorArchitecture": "64-bit",
        "operation": "RunInstances",
    }
    terms: dict[str, Any] = {}
    if on_demand is not None:
        key = f"{sku}.{AWS_ON_DEMAND_TERM}"
        terms["OnDemand"] = {
            key: {
                "priceDimensions": {
                    f"{key}.{AWS_HOURLY_RATE}": _aws_dimension(
                        sku,
                        AWS_ON_DEMAND_TERM,
                        AWS_HOURLY_RATE,
                        "Hrs",
                        f"{on_demand:.10f}",
                        f"${on_demand:g} per On Demand Linux {instance_type} Instance Hour",
                    )
                },
                "sku": sku,
                "effectiveDate": on_demand_effective,
                "offerTermCode": AWS_ON_DEMAND_TERM,
                "termAttributes": {},
            }
        }
    if reserved:
        terms["Reserved"] = {}
        for (lease, cls, option), (hourly, upfront) in reserved.items():
            code = AWS_RESERVED_TERM_CODES[(lease, cls, option)]
            key = f"{sku}.{code}"
            dims = {
                f"{key}.{AWS_HOURLY_RATE}": _aws_dimension(
                    sku,
                    code,
                    AWS_HOURLY_RATE,
                    "Hrs",
                    f"{hourly:.10f}",
                    f"Linux/UNIX (Amazon VPC), {instance_type} reserved instance applied",
                )
            }
            if option != "No Upfront":
                dims[f"{key}.{AWS_UPFRONT_RATE}"] = _aws_dimension(
                    sku, code, AWS_UPFRONT_RATE, "Quantity", f"{upfront:g}", "Upfront Fee"
                )
            terms["Reserved"][key] = {
                "priceDimensions": dims,
                "sku": sku,
                "effectiveDate": on_demand_effective,
                "offerTermCode": code,
                "termAttributes": {
                    "LeaseContractLength": lease,
                    "OfferingClass": cls,
                    "PurchaseOption": option,
                },
            }
    item = {
        "product": {"productFamily": "Compute Instance", "attributes": attributes, "sku": sku},
        "serviceCode": "AmazonEC2",
        "terms": terms,
        "version": version,
        "publicationDate": publication_date,
    }
    return json.dumps(item, separators=(",", ":"))


def aws_offer_csv_rows(
    *,
    instance_type: str,
    region: str,
    vcpus: int,
    memory_gib: float,
    gpus: float | None,
    on_demand: float | None,
    reserved: dict[tuple[str, str, str], tuple[float, float]] | None = None,
    effective: str = "2026-11-01",
    instance_family: str = "GPU instance",
    operating_system: str = "Linux",
    tenancy: str = "Shared",
    capacity_status: str = "Used",
    market_option: str = "OnDemand",
) -> list[dict[str, str]]:
    """Offer CSV rows (as header -> value dicts) for one product: an OnDemand Hrs row and,
    per reservation option, an Hrs row and (unless No Upfront) an Upfront Fee row."""
    sku = aws_sku("csv", region, instance_type, operating_system, tenancy, capacity_status)
    prefix = AWS_USAGE_PREFIX.get(region, "")
    product = {
        "Product Family": "Compute Instance",
        "serviceCode": "AmazonEC2",
        "Location": AWS_LOCATIONS.get(region, region),
        "Location Type": "AWS Local Zone" if region.count("-") > 2 else "AWS Region",
        "Instance Type": instance_type,
        "Current Generation": "Yes",
        "Instance Family": instance_family,
        "vCPU": str(vcpus),
        "Physical Processor": "AMD EPYC 7R32",
        "Memory": f"{memory_gib:g} GiB",
        "Storage": "EBS only",
        "Network Performance": "100 Gigabit",
        "Processor Architecture": "64-bit",
        "Tenancy": tenancy,
        "Operating System": operating_system,
        "License Model": "No License required",
        "usageType": f"{prefix}BoxUsage:{instance_type}",
        "operation": "RunInstances",
        "AvailabilityZone": "NA",
        "CapacityStatus": capacity_status,
        "ClassicNetworkingSupport": "false",
        "GPU": "" if gpus is None else f"{gpus:g}",
        "GPU Memory": "NA",
        "instanceSKU": aws_sku("instance", region, instance_type),
        "MarketOption": market_option,
        "Pre Installed S/W": "NA",
        "Region Code": region,
        "serviceName": "Amazon Elastic Compute Cloud",
        "VPCNetworkingSupport": "true",
    }
    rows = []
    if on_demand is not None:
        rows.append(
            {
                **product,
                "SKU": sku,
                "OfferTermCode": AWS_ON_DEMAND_TERM,
                "RateCode": f"{sku}.{AWS_ON_DEMAND_TERM}.{AWS_HOURLY_RATE}",
                "TermType": "OnDemand",
                "PriceDescription": f"${on_demand:g} per On Demand Linux {instance_type} Instance Hour",
                "EffectiveDate": effective,
                "StartingRange": "0",
                "EndingRange": "Inf",
                "Unit": "Hrs",
                "PricePerUnit": f"{on_demand:.10f}",
                "Currency": "USD",
            }
        )
    for (lease, cls, option), (hourly, upfront) in (reserved or {}).items():
        code = AWS_RESERVED_TERM_CODES[(lease, cls, option)]
        term = {
            **product,
            "SKU": sku,
            "OfferTermCode": code,
            "TermType": "Reserved",
            "EffectiveDate": effective,
            "Currency": "USD",
            "LeaseContractLength": lease,
            "PurchaseOption": option,
            "OfferingClass": cls,
        }
        rows.append(
            {
                **term,
                "RateCode": f"{sku}.{code}.{AWS_HOURLY_RATE}",
                "PriceDescription": f"Linux/UNIX (Amazon VPC), {instance_type} reserved instance applied",
                "StartingRange": "0",
                "EndingRange": "Inf",
                "Unit": "Hrs",
                "PricePerUnit": f"{hourly:.10f}",
            }
        )
        if option != "No Upfront":
            rows.append(
                {
                    **term,
                    "RateCode": f"{sku}.{code}.{AWS_UPFRONT_RATE}",
                    "PriceDescription": "Upfront Fee",
                    "Unit": "Quantity",
                    "PricePerUnit": f"{upfront:g}",
                }
            )
    return rows


def _csv_field(value: str) -> str:
    """The offer file's quoting: every non-empty field quoted, empty fields bare."""
    return '"' + value.replace('"', '""') + '"' if value else ""


def aws_offer_csv_text(
    rows: list[dict[str, str]],
    *,
    publication_date: str = "2026-11-18T17:00:00Z",
    version: str = "20261118170000",
    header: list[str] | None = None,
) -> str:
    header = header or AWS_OFFER_CSV_HEADER
    lines = [
        '"FormatVersion","v1.0"',
        f'"Disclaimer","{AWS_DISCLAIMER}"',
        f'"Publication Date","{publication_date}"',
        f'"Version","{version}"',
        '"OfferCode","AmazonEC2"',
        ",".join(_csv_field(h) for h in header),
    ]
    lines += [",".join(_csv_field(row.get(h, "")) for h in header) for row in rows]
    return "\n".join(lines) + "\n"


AWS_ADVISOR_RANGES = [
    {"index": 0, "label": "<5%", "dots": 0, "max": 5},
    {"index": 1, "label": "5-10%", "dots": 1, "max": 11},
    {"index": 2, "label": "10-15%", "dots": 2, "max": 16},
    {"index": 3, "label": "15-20%", "dots": 3, "max": 22},
    {"index": 4, "label": ">20%", "dots": 4, "max": 100},
]


def aws_spot_advisor(
    linux: dict[str, dict[str, tuple[int, int]]],
    instance_types: dict[str, tuple[int, float]],
) -> dict[str, Any]:
    """The Spot Advisor document: `linux` = region -> type -> (savings %, range index);
    `instance_types` = type -> (cores, ram_gb)."""
    return {
        "global_rate": "<10%",
        "ranges": AWS_ADVISOR_RANGES,
        "instance_types": {
            t: {"emr": True, "cores": cores, "ram_gb": ram}
            for t, (cores, ram) in instance_types.items()
        },
        "spot_advisor": {
            region: {"Linux": {t: {"s": sv, "r": r} for t, (sv, r) in types.items()}}
            for region, types in linux.items()
        },
    }
