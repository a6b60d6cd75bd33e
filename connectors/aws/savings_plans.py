"""AWS Savings Plans rate files per region (AWSComputeSavingsPlan: Compute and EC2
Instance Savings Plans), their accelerated Linux shared-tenancy rates kept."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

import polars as pl

from connectors.aws import settings as s
from connectors.aws.sdk import DEFAULT_POLICY
from connectors.errors import (
    UnexpectedResponse,
)
from connectors.kit.http import RetryPolicy, request_json
from connectors.kit.page import Page, utc_now

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)


def savings_plan_versions(
    client: httpx.Client,
    *,
    base_url: str = s.OFFERS_BASE_URL,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> dict[str, str]:
    """Region -> URL of its current Savings Plans rate file. This index lists `regions`
    as a list of {regionCode, versionUrl} (the EC2 offer index uses an object)."""
    index = request_json(
        client,
        "GET",
        base_url + s.SAVINGS_PLAN_INDEX_PATH,
        provider=s.PROVIDER,
        endpoint=s.SAVINGS_PLANS,
        policy=policy,
    )
    regions = index.get("regions") if isinstance(index, dict) else None
    if not isinstance(regions, list):
        raise UnexpectedResponse(
            s.PROVIDER,
            s.SAVINGS_PLANS,
            "savings plan region_index.json has no 'regions' list",
            excerpt=repr(index),
        )
    frame = pl.DataFrame(regions, schema={"regionCode": pl.String, "versionUrl": pl.String})
    if frame.select(pl.any_horizontal(pl.all().is_null()).any()).item():
        raise UnexpectedResponse(
            s.PROVIDER,
            s.SAVINGS_PLANS,
            "a region entry without regionCode or versionUrl",
            excerpt=repr(regions[:3]),
        )
    return dict(zip(frame["regionCode"], (base_url + u for u in frame["versionUrl"]), strict=True))


def accelerated_savings_plans(doc: dict) -> tuple[dict, int, int]:
    """The rates of a Savings Plans region file that we price (settings: EC2, Linux, shared
    tenancy, accelerated types), in the file's own shape; (body, rates in file, kept)."""
    terms = (doc.get("terms") or {}).get("savingsPlan")
    if not isinstance(terms, list) or not isinstance(doc.get("products"), list):
        raise UnexpectedResponse(
            s.PROVIDER,
            s.SAVINGS_PLANS,
            "no 'products' list or 'terms.savingsPlan' list",
            excerpt=repr({k: doc.get(k) for k in ("version", "regionCode")}),
        )
    body = {k: v for k, v in doc.items() if k not in ("products", "terms")}
    if not terms:
        return {**body, "products": [], "terms": {"savingsPlan": []}}, 0, 0
    rates = (
        pl.DataFrame(terms, infer_schema_length=None)
        .with_row_index("_term")
        .explode("rates")
        .drop_nulls("rates")
    )
    rate = pl.col("rates").struct
    usage = rate.field("discountedUsageType").fill_null("")
    kept = rates.filter(
        (rate.field("discountedServiceCode") == "AmazonEC2")
        & (rate.field("discountedOperation") == s.SAVINGS_PLAN_OPERATION)
        & usage.str.contains(s.SAVINGS_PLAN_USAGE)
        & usage.str.replace(s.SAVINGS_PLAN_USAGE, "").str.contains(s.ACCELERATED_TYPE_REGEX)
    )
    grouped = (
        kept.group_by("_term", maintain_order=True)
        .agg(pl.all().exclude("rates").first(), pl.col("rates"))
        .drop("_term")
    )
    skus = set(grouped["sku"].to_list()) if grouped.height else set()
    products = [p for p in doc["products"] if isinstance(p, dict) and p.get("sku") in skus]
    return (
        {**body, "products": products, "terms": {"savingsPlan": grouped.to_dicts()}},
        rates.height,
        kept.height,
    )


def fetch_savings_plans(
    client: httpx.Client, region: str, url: str, *, policy: RetryPolicy = DEFAULT_POLICY
) -> Iterator[Page]:
    """One region's Savings Plans rates for accelerated instances (one page). The file's
    URL names its version (immutable), so the full file can be fetched again."""
    doc = request_json(
        client, "GET", url, provider=s.PROVIDER, endpoint=s.SAVINGS_PLANS, policy=policy
    )
    if not isinstance(doc, dict):
        raise UnexpectedResponse(s.PROVIDER, s.SAVINGS_PLANS, f"{url}: not a JSON object")
    body, total, kept = accelerated_savings_plans(doc)
    yield Page(
        provider=s.PROVIDER,
        endpoint=s.SAVINGS_PLANS,
        fetched_at=utc_now(),
        request={
            "region": region,
            "url": url,
            "source_version": doc.get("version"),
            "publication_date": doc.get("publicationDate"),
            "rates_total": total,
            "rates_kept": kept,
            "prefilter": "EC2 Linux shared-tenancy rates of accelerated types "
            "(connectors/aws/README.md)",
        },
        body=body,
        source_url=url,
    )
