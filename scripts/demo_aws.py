"""The AWS part of the bundled demo snapshot (called from scripts/build_demo_snapshot.py).

Deterministic: prices come from fixed tables and a seeded random walk. Which values are
real and which illustrative: connectors/demo_snapshot/README.md ("aws").
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from samples.aws import (
    aws_instance_type_item,
    aws_offer_csv_rows,
    aws_offer_csv_text,
    aws_price_list_item,
    aws_spot_advisor,
    aws_spot_price_item,
)

FETCHED_AT = "2026-11-20T02:00:00Z"
NOW = datetime(2026, 11, 20, 2, 0, tzinfo=UTC)
HISTORY_DAYS = 14
HOURS_PER_YEAR = 8760
PUBLICATION = ("20261118170000", "2026-11-18T17:00:00Z")
OFFERS_BASE = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2"

# type -> (gpu name as DescribeInstanceTypes reports it, manufacturer, count, MiB per GPU,
# vCPUs, memory MiB, us-east-1 Linux on-demand USD/h). Specs: moto's recording of the live
# API (moto's recording of DescribeInstanceTypes, getmoto/moto moto/ec2/resources/instance_types.json) and aws.amazon.com/ec2/
# instance-types/p3 for p3. Prices: AWS's public us-east-1 list prices (2024; p5.48xlarge
# before the June 2025 cut), see the README.
TYPES: dict[str, tuple[str, str, int, int, int, int, float | None]] = {
    "p4d.24xlarge": ("A100", "NVIDIA", 8, 40960, 96, 1179648, 32.7726),
    "p4de.24xlarge": ("A100", "NVIDIA", 8, 81920, 96, 1179648, 40.9657),
    "p5.48xlarge": ("H100", "NVIDIA", 8, 81920, 192, 2097152, 98.32),
    "p5e.48xlarge": ("H200", "NVIDIA", 8, 144384, 192, 2097152, None),  # capacity blocks only
    "g5.xlarge": ("A10G", "NVIDIA", 1, 22888, 4, 16384, 1.006),
    "g5.12xlarge": ("A10G", "NVIDIA", 4, 22888, 48, 196608, 5.672),
    "g5.48xlarge": ("A10G", "NVIDIA", 8, 22888, 192, 786432, 16.288),
    "g6.xlarge": ("L4", "NVIDIA", 1, 22888, 4, 16384, 0.8048),
    "g6.12xlarge": ("L4", "NVIDIA", 4, 22888, 48, 196608, 4.6016),
    "g4dn.xlarge": ("T4", "NVIDIA", 1, 16384, 4, 16384, 0.526),
    "g4dn.12xlarge": ("T4", "NVIDIA", 4, 16384, 48, 196608, 3.912),
    "p3.2xlarge": ("V100", "NVIDIA", 1, 16384, 8, 62464, 3.06),
    "p3.16xlarge": ("V100", "NVIDIA", 8, 16384, 64, 499712, 24.48),
}
# region -> (zones, list-price factor vs us-east-1, types offered). eu-west-1's factor is
# illustrative (AWS's Ireland prices run ~8-10% above us-east-1 for these families).
REGIONS: dict[str, tuple[tuple[str, ...], float, tuple[str, ...]]] = {
    "us-east-1": (
        ("us-east-1a", "us-east-1b", "us-east-1c"),
        1.0,
        tuple(t for t in TYPES if t != "p5e.48xlarge"),
    ),
    "us-west-2": (("us-west-2a", "us-west-2b", "us-west-2c"), 1.0, tuple(TYPES)),
    "eu-west-1": (
        ("eu-west-1a", "eu-west-1b", "eu-west-1c"),
        1.08,
        tuple(t for t in TYPES if not t.startswith(("p4de", "p5"))),
    ),
}
# Which route prices each region's list prices: the Price List API (credentials) or the
# public offer CSV. us-east-1 has both, so the demo shows one offer kept once.
PRICE_LIST_REGIONS = ("us-east-1", "us-west-2")
OFFER_CSV_REGIONS = ("us-east-1", "eu-west-1")
# Effective hourly price of a reservation as a fraction of on-demand (illustrative, of the
# order AWS's RI pages show for GPU families).
RESERVED_RATIO = {
    ("1yr", "standard", "No Upfront"): 0.63,
    ("1yr", "standard", "Partial Upfront"): 0.60,
    ("1yr", "standard", "All Upfront"): 0.59,
    ("1yr", "convertible", "No Upfront"): 0.72,
    ("1yr", "convertible", "Partial Upfront"): 0.69,
    ("1yr", "convertible", "All Upfront"): 0.68,
    ("3yr", "standard", "No Upfront"): 0.45,
    ("3yr", "standard", "Partial Upfront"): 0.41,
    ("3yr", "standard", "All Upfront"): 0.39,
    ("3yr", "convertible", "No Upfront"): 0.52,
    ("3yr", "convertible", "Partial Upfront"): 0.49,
    ("3yr", "convertible", "All Upfront"): 0.47,
}
# Spot Advisor buckets: (savings %, range index). us-east-1 and eu-west-1 values for the
# types in the recorded feed copy (alexei-led/spotinfo internal/spot/data/spot-advisor-data.json, a copy of the public feed) are real; the
# rest illustrative.
ADVISOR = {
    "us-east-1": {
        "p4d.24xlarge": (67, 2),
        "p5.48xlarge": (52, 4),
        "g5.xlarge": (59, 4),
        "g4dn.xlarge": (64, 3),
        "g6.xlarge": (49, 4),
        "g5.12xlarge": (62, 1),
        "g6.12xlarge": (55, 0),
        "p3.2xlarge": (70, 0),
    },
    "us-west-2": {"p4d.24xlarge": (60, 3), "p5.48xlarge": (45, 4), "g5.xlarge": (63, 1)},
    "eu-west-1": {"g5.xlarge": (56, 2), "g4dn.xlarge": (54, 1), "p4d.24xlarge": (34, 4)},
}
SPOT_PAGE_SIZE = 1000


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _write(path: Path, doc: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")


def on_demand(instance_type: str, region: str) -> float | None:
    base = TYPES[instance_type][6]
    return None if base is None else round(base * REGIONS[region][1], 4)


def reserved_terms(price: float) -> dict[tuple[str, str, str], tuple[float, float]]:
    """(hourly, upfront) per option, so that hourly + upfront / term hours = ratio x price."""
    terms = {}
    for (lease, cls, option), ratio in RESERVED_RATIO.items():
        hours = HOURS_PER_YEAR * (1 if lease == "1yr" else 3)
        effective = price * ratio
        upfront = {"No Upfront": 0.0, "Partial Upfront": 0.5, "All Upfront": 1.0}[option]
        fee = float(round(effective * hours * upfront))
        terms[(lease, cls, option)] = (round(effective - fee / hours, 4), fee)
    return terms


def _instance_item(instance_type: str) -> dict:
    name, maker, count, mib, vcpus, memory, _ = TYPES[instance_type]
    return aws_instance_type_item(
        instance_type=instance_type,
        vcpus=vcpus,
        memory_mib=memory,
        gpu_name=name,
        manufacturer=maker,
        gpu_count=count,
        gpu_memory_mib=mib,
        usage_classes=(
            ("capacity-block", "on-demand", "spot")
            if instance_type.startswith("p")
            else ("on-demand", "spot")
        ),
    )


def build_instance_types(root: Path) -> None:
    for region, (_, _, types) in REGIONS.items():
        request = {
            "region": region,
            "Filters": [{"Name": "instance-type", "Values": ["p*", "g*", "trn*", "inf*", "dl*"]}],
            "MaxResults": 100,
            "page": 1,
        }
        body = {"InstanceTypes": [_instance_item(t) for t in types], "NextToken": None}
        _write(
            root / "instance_types" / f"{region}-0001.json",
            {"fetched_at": FETCHED_AT, "request": request, "body": body},
        )


def spot_series(region: str, zone: str, instance_type: str) -> list[tuple[datetime, float]]:
    """A deterministic spot price series for one zone: ~3 changes a day for 14 days, a
    bounded random walk around an illustrative discount; plus the last change before the
    window, which AWS returns as the price in effect at StartTime."""
    rng = random.Random(f"{region}/{zone}/{instance_type}")
    od = on_demand(instance_type, region) or round(TYPES["p5.48xlarge"][6] * 1.25, 4)
    level = od * rng.uniform(0.30, 0.45)
    start = NOW - timedelta(days=HISTORY_DAYS)
    at = start - timedelta(hours=rng.uniform(2, 20))
    points = []
    while at < NOW:
        level = min(max(level * rng.uniform(0.95, 1.05), od * 0.25), od * 0.6)
        points.append((at, round(level, 6)))
        at += timedelta(hours=rng.uniform(4, 12), seconds=rng.randint(0, 3599))
    if (region, zone, instance_type) == ("us-west-2", "us-west-2c", "p3.16xlarge"):
        # the data trap: spot at the on-demand price (it happens); kept and flagged
        trap = NOW - timedelta(hours=1, minutes=13)
        points = [p for p in points if p[0] < trap] + [(trap, od)]
    return points


def build_spot_history(root: Path) -> None:
    start = NOW - timedelta(days=HISTORY_DAYS)
    for region, (zones, _, types) in REGIONS.items():
        items = []
        for instance_type in types:
            for zone in zones:
                items += [
                    (at, aws_spot_price_item(zone, instance_type, f"{price:.6f}", _iso(at)))
                    for at, price in spot_series(region, zone, instance_type)
                ]
        items.sort(key=lambda pair: (pair[0], pair[1]["AvailabilityZone"]), reverse=True)
        records = [item for _, item in items]  # newest first, zones mixed, as AWS returns
        pages = [records[i : i + SPOT_PAGE_SIZE] for i in range(0, len(records), SPOT_PAGE_SIZE)]
        token = None
        for n, chunk in enumerate(pages, start=1):
            next_token = f"{region}-spot-{n + 1:04d}" if n < len(pages) else ""
            request = {
                "region": region,
                "StartTime": _iso(start),
                "ProductDescriptions": ["Linux/UNIX"],
                "Filters": [
                    {"Name": "instance-type", "Values": ["p*", "g*", "trn*", "inf*", "dl*"]}
                ],
                "MaxResults": SPOT_PAGE_SIZE,
                **({"NextToken": token} if token else {}),
                "page": n,
            }
            body = {"SpotPriceHistory": chunk, "NextToken": next_token}
            _write(
                root / "spot_price_history" / f"{region}-{n:04d}.json",
                {"fetched_at": FETCHED_AT, "request": request, "body": body},
            )
            token = next_token


def _gpus(instance_type: str) -> int:
    return TYPES[instance_type][2]


def build_price_list(root: Path) -> None:
    for region in PRICE_LIST_REGIONS:
        items = []
        for instance_type in REGIONS[region][2]:
            price = on_demand(instance_type, region)
            if price is None:
                continue  # p5e: the price list has no on-demand Linux item to return
            _, _, count, _, vcpus, memory, _ = TYPES[instance_type]
            items.append(
                aws_price_list_item(
                    instance_type=instance_type,
                    region=region,
                    vcpus=vcpus,
                    memory_gib=memory / 1024,
                    gpus=count,
                    on_demand=price,
                    reserved=reserved_terms(price),
                    version=PUBLICATION[0],
                    publication_date=PUBLICATION[1],
                )
            )
        for n, (family, page_items) in enumerate(
            (("GPU instance", items), ("Machine Learning ASIC Instances", [])), start=1
        ):
            filters = [
                {"Type": "TERM_MATCH", "Field": f, "Value": v}
                for f, v in (
                    ("regionCode", region),
                    ("operatingSystem", "Linux"),
                    ("tenancy", "Shared"),
                    ("preInstalledSw", "NA"),
                    ("capacitystatus", "Used"),
                    ("licenseModel", "No License required"),
                    ("instanceFamily", family),
                )
            ]
            request = {
                "region": region,
                "ServiceCode": "AmazonEC2",
                "Filters": filters,
                "FormatVersion": "aws_v1",
                "MaxResults": 100,
                "page": 1,
            }
            body = {"FormatVersion": "aws_v1", "PriceList": page_items}
            _write(
                root / "price_list" / f"{region}-{n:04d}.json",
                {"fetched_at": FETCHED_AT, "request": request, "body": body},
            )


def build_offer_csv(root: Path) -> None:
    for region in OFFER_CSV_REGIONS:
        rows = []
        for instance_type in REGIONS[region][2]:
            price = on_demand(instance_type, region)
            if price is None:
                continue
            _, _, count, _, vcpus, memory, _ = TYPES[instance_type]
            common = {
                "instance_type": instance_type,
                "region": region,
                "vcpus": vcpus,
                "memory_gib": memory / 1024,
                "gpus": count,
            }
            rows += aws_offer_csv_rows(**common, on_demand=price, reserved=reserved_terms(price))
            if instance_type == "g5.xlarge":
                # out-of-scope rows of the same type, as the real file has them: excluded
                rows += aws_offer_csv_rows(
                    **common, on_demand=round(price * 1.18, 4), operating_system="Windows"
                )
                rows += aws_offer_csv_rows(
                    **common, on_demand=round(price * 1.1, 4), tenancy="Dedicated"
                )
                rows += aws_offer_csv_rows(
                    **common, on_demand=price, capacity_status="UnusedCapacityReservation"
                )
        if region == "us-east-1":
            # a Local Zone row (Region Code us-east-1-nyc-1) in the parent region's file
            rows += aws_offer_csv_rows(
                instance_type="g4dn.xlarge",
                region="us-east-1-nyc-1",
                vcpus=4,
                memory_gib=16,
                gpus=1,
                on_demand=0.631,
            )
        url = f"{OFFERS_BASE}/{PUBLICATION[0]}/{region}/index.csv"
        folder = root / "offer_csv"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{region}-0001.csv").write_text(
            aws_offer_csv_text(rows, publication_date=PUBLICATION[1], version=PUBLICATION[0])
        )
        sidecar = {
            "fetched_at": FETCHED_AT,
            "request": {
                "region": region,
                "url": url,
                "source_version": PUBLICATION[0],
                "publication_date": PUBLICATION[1],
                "excerpt": "GPU families of the demo only (the real file has every family)",
            },
            "source_url": url,
        }
        _write(folder / f"{region}-0001.csv.json", sidecar)


def build_spot_advisor(root: Path) -> None:
    cores = {t: (spec[4], spec[5] / 1024) for t, spec in TYPES.items()}
    url = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"
    _write(
        root / "spot_advisor" / "spot-advisor-0001.json",
        {
            "fetched_at": FETCHED_AT,
            "request": {"url": url},
            "source_url": url,
            "body": aws_spot_advisor(ADVISOR, cores),
        },
    )


# Capacity Blocks for ML: (region, type) -> effective instance hourly rate in USD. Real:
# the rates AWS published on aws.amazon.com/ec2/capacityblocks/pricing (before 2025-01-01):
# p5.48xlarge 39.33, p5e.48xlarge 43.26, p4d.24xlarge 14.75. Illustrative: which regions
# list them here (us-east-1 and us-west-2, the demo's regions), and the start dates.
CAPACITY_BLOCKS = {
    ("us-east-1", "p5.48xlarge"): 39.33,
    ("us-west-2", "p5.48xlarge"): 39.33,
    ("us-west-2", "p5e.48xlarge"): 43.26,
    ("us-west-2", "p4d.24xlarge"): 14.75,
}
CAPACITY_BLOCK_HOURS = (24, 168)
CAPACITY_BLOCK_STARTS = (1, 8, 22)  # days after the fetch; blocks start at 11:30 UTC


def build_capacity_blocks(root: Path) -> None:
    """DescribeCapacityBlockOfferings pages: one search per (region, type, duration), one
    instance, start dates in the next 8 weeks (the connector's default request)."""
    window = (NOW, NOW + timedelta(days=56))
    for (region, instance_type), rate in CAPACITY_BLOCKS.items():
        zones = REGIONS[region][0]
        for hours in CAPACITY_BLOCK_HOURS:
            offerings = []
            for n, days in enumerate(CAPACITY_BLOCK_STARTS):
                start = (NOW + timedelta(days=days)).replace(hour=11, minute=30)
                key = f"{region}/{instance_type}/{hours}/{days}"
                offerings.append(
                    {
                        "CapacityBlockOfferingId": "cb-"
                        + hashlib.sha256(key.encode()).hexdigest()[:17],
                        "InstanceType": instance_type,
                        "AvailabilityZone": zones[n % len(zones)],
                        "InstanceCount": 1,
                        "StartDate": _iso(start),
                        "EndDate": _iso(start + timedelta(hours=hours)),
                        "CapacityBlockDurationHours": hours,
                        "UpfrontFee": f"{rate * hours:.2f}",
                        "CurrencyCode": "USD",
                        "Tenancy": "default",
                        "CapacityBlockDurationMinutes": 0,
                    }
                )
            request = {
                "region": region,
                "InstanceType": instance_type,
                "InstanceCount": 1,
                "CapacityDurationHours": hours,
                "StartDateRange": _iso(window[0]),
                "EndDateRange": _iso(window[1]),
                "MaxResults": 1000,
                "page": 1,
            }
            _write(
                root / "capacity_blocks" / f"{region}-{instance_type}-{hours}h-0001.json",
                {
                    "fetched_at": FETCHED_AT,
                    "request": request,
                    "body": {"CapacityBlockOfferings": offerings},
                },
            )


# Savings Plans: effective hourly rate as a fraction of on-demand, per (plan family,
# term, payment option). Illustrative, of the order AWS's Savings Plans pricing pages
# show for GPU instances (Compute ~ 28-45% off at 1 year, ~ 50-60% at 3 years; EC2
# Instance Savings Plans a few points deeper).
SAVINGS_PLAN_RATIO = {
    ("ComputeSavingsPlans", 1, "No Upfront"): 0.72,
    ("ComputeSavingsPlans", 1, "All Upfront"): 0.69,
    ("ComputeSavingsPlans", 3, "No Upfront"): 0.50,
    ("ComputeSavingsPlans", 3, "All Upfront"): 0.46,
    ("EC2InstanceSavingsPlans", 1, "No Upfront"): 0.66,
    ("EC2InstanceSavingsPlans", 3, "All Upfront"): 0.41,
}


def build_savings_plans(root: Path) -> None:
    """One AWSComputeSavingsPlan region page per price-list region, as the fetch keeps it:
    the Linux shared-tenancy rates of the accelerated types (README: the page request)."""
    for region in PRICE_LIST_REGIONS:
        prefix = "" if region == "us-east-1" else "USW2-"
        types = [t for t in REGIONS[region][2] if on_demand(t, region) is not None]
        products, terms = [], []
        for (family, years, option), ratio in SAVINGS_PLAN_RATIO.items():
            sku = hashlib.sha256(f"{region}/{family}/{years}/{option}".encode()).hexdigest()
            sku = sku[:16].upper()
            compact = option.replace(" ", "")
            products.append(
                {
                    "sku": sku,
                    "productFamily": family,
                    "serviceCode": "ComputeSavingsPlans",
                    "usageType": f"{'ComputeSP' if family == 'ComputeSavingsPlans' else 'EC2SP'}"
                    f":{years}yr{compact}",
                    "operation": "",
                    "attributes": {
                        "purchaseOption": option,
                        "purchaseTerm": f"{years}yr",
                        "granularity": "hourly",
                        "locationType": "AWS Region",
                        "location": "Any",
                    },
                }
            )
            label = "Compute" if family == "ComputeSavingsPlans" else "EC2 Instance"
            rates = [
                {
                    "discountedSku": hashlib.sha256(f"{region}/{t}".encode()).hexdigest()[:16].upper(),
                    "discountedUsageType": f"{prefix}BoxUsage:{t}",
                    "discountedOperation": "RunInstances",
                    "discountedServiceCode": "AmazonEC2",
                    "rateCode": f"{sku}.{t}",
                    "unit": "Hrs",
                    "discountedRate": {
                        "price": f"{on_demand(t, region) * ratio:.4f}",
                        "currency": "USD",
                    },
                    "discountedRegionCode": region,
                    "discountedInstanceType": t,
                }
                for t in types
            ]
            terms.append(
                {
                    "sku": sku,
                    "description": f"{years} year {option} {label} Savings Plan",
                    "effectiveDate": "2026-11-01T00:00:00Z",
                    "leaseContractLength": {"duration": years, "unit": "year"},
                    "rates": rates,
                }
            )
        version = PUBLICATION[0]
        url = (
            "https://pricing.us-east-1.amazonaws.com/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/"
            f"{version}/{region}/index.json"
        )
        body = {
            "formatVersion": "v1.0",
            "disclaimer": "This pricing list is for informational purposes only.",
            "offerCode": "AWSComputeSavingsPlan",
            "version": version,
            "publicationDate": PUBLICATION[1],
            "regionCode": region,
            "products": products,
            "terms": {"savingsPlan": terms},
        }
        kept = sum(len(term["rates"]) for term in terms)
        _write(
            root / "savings_plans" / f"{region}-0001.json",
            {
                "fetched_at": FETCHED_AT,
                "request": {
                    "region": region,
                    "url": url,
                    "source_version": version,
                    "publication_date": PUBLICATION[1],
                    "rates_total": kept,
                    "rates_kept": kept,
                    "prefilter": "EC2 Linux shared-tenancy rates of accelerated types "
                    "(connectors/aws/README.md)",
                },
                "source_url": url,
                "body": body,
            },
        )


def build_aws(demo: Path) -> None:
    root = demo / "aws"
    shutil.rmtree(root, ignore_errors=True)
    build_instance_types(root)
    build_spot_history(root)
    build_price_list(root)
    build_offer_csv(root)
    build_spot_advisor(root)
    build_capacity_blocks(root)
    build_savings_plans(root)
