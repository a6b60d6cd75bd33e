"""AWS fetch: network only, bodies exactly as received (boto3 responses serialised to JSON
with datetimes as ISO 8601 strings, `ResponseMetadata` left out: it is transport detail
whose request id would make every page look new).

Credentialed (default boto3 chain; none -> MissingCredentials, the public routes still run):
- EC2 DescribeInstanceTypes per region, paged on NextToken (MaxResults 100), filtered on
  the accelerated families;
- EC2 DescribeSpotPriceHistory per region, Linux/UNIX, accelerated families, paged on
  NextToken until it is "" or null; incremental from the region's watermark (the newest
  point already stored), else the last N days;
- Price List GetProducts (client in us-east-1) per region and accelerated instance family,
  paged until NextToken is absent;
- EC2 DescribeCapacityBlockOfferings (Capacity Blocks for ML) per region where a type is
  sold as blocks, per type and duration, for N instances starting within the next weeks,
  paged with boto3's paginator.
Public (no credentials):
- the Savings Plans rate file per region (AWSComputeSavingsPlan: Compute and EC2 Instance
  Savings Plans), its accelerated Linux shared-tenancy rates kept (README: why);
- the bulk offer CSV per region: the current version is read from region_index.json and
  a region whose stored version is not older is skipped without a download; otherwise the
  file is streamed to disk, and its accelerated-instance rows are kept (README: why);
- the Spot Instance Advisor JSON.

Throttling (RequestLimitExceeded, Throttling ...) and 5xx are retried here with
exponential backoff and full jitter (botocore's own retries are off, so there is one
retry layer); a region that still fails becomes a FetchFailure and the others go on.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from connectors.aws import settings as s
from connectors.aws.advisor import fetch_spot_advisor
from connectors.aws.ec2 import (
    CapacityBlockTerms,
    fetch_capacity_blocks,
    fetch_instance_types,
    fetch_spot_history,
    spot_start,
)
from connectors.aws.price_list import (
    OfferVersion,
    cache_dir,
    fetch_offer_csv,
    fetch_price_list,
    filter_offer_csv,
    offer_versions,
    pricing_filters,
    read_offer_metadata,
)
from connectors.aws.savings_plans import fetch_savings_plans, savings_plan_versions
from connectors.aws.sdk import DEFAULT_POLICY, BotoClients, call, jsonable, select_regions
from connectors.errors import (
    ConnectorError,
    MissingCredentials,
    UnexpectedResponse,
)
from connectors.kit.http import RetryPolicy, make_client
from connectors.kit.page import FetchContext, FetchFailure, Page, per_scope, utc_now

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

# the endpoints' fetches live in their own modules (sdk, ec2, price_list, savings_plans,
# advisor); this module walks them, and names them for the callers that reach them here
__all__ = [
    "DEFAULT_POLICY", "BotoClients", "CapacityBlockTerms", "OfferVersion", "cache_dir", "call",
    "fetch_all", "fetch_capacity_blocks", "fetch_credentialed", "fetch_instance_types",
    "fetch_live", "fetch_offer_csv", "fetch_price_list", "fetch_public", "fetch_savings_plans",
    "fetch_spot_advisor", "fetch_spot_history", "filter_offer_csv", "jsonable", "offer_versions",
    "pricing_filters", "read_offer_metadata", "savings_plan_versions", "select_regions",
    "spot_start",
]  # fmt: skip


def fetch_public(
    ctx: FetchContext,
    regions: tuple[str, ...],
    client: httpx.Client,
    *,
    advisor_url: str = s.SPOT_ADVISOR_URL,
    offers_base_url: str = s.OFFERS_BASE_URL,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> Iterator[Page | FetchFailure]:
    """The routes that need no credentials: Spot Advisor and the offer CSVs."""
    yield from per_scope(
        s.PROVIDER,
        s.SPOT_ADVISOR,
        [""],
        lambda _: fetch_spot_advisor(client, url=advisor_url, policy=policy),
    )
    try:
        versions = offer_versions(client, base_url=offers_base_url, policy=policy)
    except ConnectorError as exc:
        yield FetchFailure(s.PROVIDER, s.OFFER_CSV, "", exc)
        return
    directory = cache_dir(ctx)
    keep = bool(ctx.settings.get("aws_keep_offer_csv", False))

    def one(region: str) -> Iterator[Page]:
        if region not in versions:
            raise UnexpectedResponse(
                s.PROVIDER, s.OFFER_CSV, f"region {region} is not in region_index.json"
            )
        return fetch_offer_csv(
            client,
            versions[region],
            directory=directory,
            stored_version_at=ctx.watermarks.get((s.OFFER_CSV, region)),
            keep_full=keep,
            policy=policy,
        )

    yield from per_scope(s.PROVIDER, s.OFFER_CSV, regions, one)
    try:
        plans = savings_plan_versions(client, base_url=offers_base_url, policy=policy)
    except ConnectorError as exc:
        yield FetchFailure(s.PROVIDER, s.SAVINGS_PLANS, "", exc)
        return

    def plan(region: str) -> Iterator[Page]:
        if region not in plans:
            raise UnexpectedResponse(
                s.PROVIDER, s.SAVINGS_PLANS, f"region {region} is not in the savings plan index"
            )
        return fetch_savings_plans(client, region, plans[region], policy=policy)

    yield from per_scope(s.PROVIDER, s.SAVINGS_PLANS, regions, plan)


def fetch_credentialed(
    ctx: FetchContext,
    regions: tuple[str, ...],
    clients: Any,
    *,
    now: datetime | None = None,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> Iterator[Page | FetchFailure]:
    """EC2 and Price List walks, per region; a region that fails does not stop the rest."""
    now = now or utc_now()
    for region in regions:
        ec2 = clients.ec2(region)
        yield from per_scope(
            s.PROVIDER,
            s.INSTANCE_TYPES,
            [region],
            lambda r, ec2=ec2: fetch_instance_types(ec2, r, policy=policy),
        )
        yield from per_scope(
            s.PROVIDER,
            s.SPOT_HISTORY,
            [region],
            lambda r, ec2=ec2: fetch_spot_history(
                ec2, r, since=spot_start(ctx, r, now), policy=policy
            ),
        )
    pricing = clients.pricing()
    yield from per_scope(
        s.PROVIDER,
        s.PRICE_LIST,
        regions,
        lambda r: fetch_price_list(pricing, r, policy=policy),
    )
    terms = CapacityBlockTerms.from_context(ctx, now)
    yield from per_scope(
        s.PROVIDER,
        s.CAPACITY_BLOCKS,
        [r for r in regions if terms.types_in(r)],
        lambda r: fetch_capacity_blocks(clients.ec2(r), r, terms, policy=policy),
    )


def fetch_all(
    ctx: FetchContext,
    clients: Any,
    http: httpx.Client,
    *,
    advisor_url: str = s.SPOT_ADVISOR_URL,
    offers_base_url: str = s.OFFERS_BASE_URL,
    now: datetime | None = None,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> Iterator[Page | FetchFailure]:
    regions = select_regions(clients.available_regions(), ctx)
    yield from fetch_public(
        ctx, regions, http, advisor_url=advisor_url, offers_base_url=offers_base_url, policy=policy
    )
    if not clients.has_credentials():
        skipped = MissingCredentials(
            s.PROVIDER,
            ",".join(s.CREDENTIALED_ENDPOINTS),
            "no credentials in the default boto3 chain: skipped EC2 instance types, spot "
            "price history, Capacity Block offerings and the Price List API; the public "
            "offer CSV and Spot Advisor ran",
        )
        log.warning("%s", skipped)
        for endpoint in s.CREDENTIALED_ENDPOINTS:
            yield FetchFailure(s.PROVIDER, endpoint, "", skipped)
        return
    yield from fetch_credentialed(ctx, regions, clients, now=now, policy=policy)


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    with make_client(timeout_s=120.0) as http:
        yield from fetch_all(ctx, BotoClients(), http)
