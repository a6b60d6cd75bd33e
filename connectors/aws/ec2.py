"""AWS EC2 endpoints: DescribeInstanceTypes, DescribeSpotPriceHistory (incremental from
the region's watermark) and DescribeCapacityBlockOfferings (Capacity Blocks for ML)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from connectors.aws import settings as s
from connectors.aws.sdk import DEFAULT_POLICY, call, jsonable
from connectors.errors import (
    UnexpectedResponse,
)
from connectors.kit.http import RetryPolicy
from connectors.kit.page import FetchContext, Page, utc_now

log = logging.getLogger(__name__)


# --- EC2 ---------------------------------------------------------------------------------


def _type_filter() -> list[dict[str, Any]]:
    return [{"Name": "instance-type", "Values": list(s.ACCELERATED_TYPE_PATTERNS)}]


def walk(
    operation: Any,
    endpoint: str,
    list_key: str,
    region: str,
    params: dict[str, Any],
    *,
    policy: RetryPolicy,
) -> Iterator[Page]:
    """Page through one boto3 operation on NextToken: the walk ends on a missing, null or
    empty ("") token, the signals the EC2 and Price List APIs use. Each response is one
    Page, serialised to JSON (datetimes as ISO 8601), its request recorded with it."""
    token: str | None = None
    seq = 0
    tokens: set[str] = set()  # a NextToken seen before would walk the same pages forever
    while True:
        request = {**params, **({"NextToken": token} if token else {})}
        body = jsonable(call(operation, endpoint=endpoint, region=region, policy=policy, **request))
        if not isinstance(body.get(list_key), list):
            raise UnexpectedResponse(
                s.PROVIDER, endpoint, f"region {region}: no {list_key!r} list", excerpt=repr(body)
            )
        seq += 1
        yield Page(
            provider=s.PROVIDER,
            endpoint=endpoint,
            fetched_at=utc_now(),
            request={"region": region, **jsonable(request), "page": seq},
            body=body,
        )
        token = body.get("NextToken")
        if not token:
            return
        if token in tokens:
            raise UnexpectedResponse(
                s.PROVIDER,
                endpoint,
                f"region {region}: page {seq} repeats an earlier NextToken {token[:80]!r} "
                "(a paging cycle)",
            )
        tokens.add(token)


def fetch_instance_types(
    ec2: Any, region: str, *, policy: RetryPolicy = DEFAULT_POLICY
) -> Iterator[Page]:
    """DescribeInstanceTypes of the accelerated families offered in one region."""
    params: dict[str, Any] = {"Filters": _type_filter(), "MaxResults": s.INSTANCE_TYPES_PAGE_SIZE}
    yield from walk(
        ec2.describe_instance_types,
        s.INSTANCE_TYPES,
        "InstanceTypes",
        region,
        params,
        policy=policy,
    )


def fetch_spot_history(
    ec2: Any,
    region: str,
    *,
    since: datetime,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> Iterator[Page]:
    """DescribeSpotPriceHistory from `since` (naive UTC) to now. AWS also returns the
    last change before `since` (the price in effect then): a point we may already hold,
    deduplicated in staging."""
    params: dict[str, Any] = {
        "StartTime": since.replace(tzinfo=UTC),
        "ProductDescriptions": list(s.SPOT_PRODUCT_DESCRIPTIONS),
        "Filters": _type_filter(),
        "MaxResults": s.SPOT_PAGE_SIZE,
    }
    yield from walk(
        ec2.describe_spot_price_history,
        s.SPOT_HISTORY,
        "SpotPriceHistory",
        region,
        params,
        policy=policy,
    )


def spot_start(ctx: FetchContext, region: str, now: datetime) -> datetime:
    """Where a region's spot walk starts: its watermark, else N days back."""
    mark = ctx.watermarks.get((s.SPOT_HISTORY, region))
    if mark is not None:
        return mark
    days = int(ctx.settings.get("aws_spot_lookback_days", s.SPOT_LOOKBACK_DAYS))
    return now - timedelta(days=days)


# --- EC2 Capacity Blocks for ML ----------------------------------------------------------


def _paginated(
    client: Any,
    operation: str,
    endpoint: str,
    list_key: str,
    region: str,
    params: dict[str, Any],
    *,
    policy: RetryPolicy,
) -> Iterator[Page]:
    """Page through one operation with boto3's own paginator. Each page is fetched through
    `call` (throttling and 5xx retried); a failed page generator is finished, so a retry
    resumes the paginator from the last NextToken seen. The request recorded with a page is
    the operation's parameters plus the NextToken that led to it."""
    paginator = client.get_paginator(operation)
    token: str | None = None
    pages: Iterator[dict] | None = None

    def next_page() -> dict | None:
        nonlocal pages
        if pages is None:
            config = {"StartingToken": token} if token else {}
            pages = iter(paginator.paginate(**params, PaginationConfig=config))
        try:
            return next(pages)
        except StopIteration:
            return None
        except Exception:
            pages = None
            raise

    next_page.__name__ = operation
    seq = 0
    while True:
        response = call(next_page, endpoint=endpoint, region=region, policy=policy)
        if response is None:
            return
        body = jsonable(response)
        if not isinstance(body.get(list_key), list):
            raise UnexpectedResponse(
                s.PROVIDER, endpoint, f"region {region}: no {list_key!r} list", excerpt=repr(body)
            )
        seq += 1
        request = {**params, **({"NextToken": token} if token else {})}
        yield Page(
            provider=s.PROVIDER,
            endpoint=endpoint,
            fetched_at=utc_now(),
            request={"region": region, **jsonable(request), "page": seq},
            body=body,
        )
        token = body.get("NextToken") or None


@dataclass(frozen=True)
class CapacityBlockTerms:
    """The request-side filters of a Capacity Block search (settings: defaults and why)."""

    types: dict[str, tuple[str, ...]]  # instance type -> regions it is sold in
    hours: tuple[int, ...]
    instances: int
    start: datetime  # naive UTC
    end: datetime

    @classmethod
    def from_context(cls, ctx: FetchContext, now: datetime) -> CapacityBlockTerms:
        days = int(ctx.settings.get("aws_capacity_block_days_ahead", s.CAPACITY_BLOCK_DAYS_AHEAD))
        # an empty mapping turns the search off (an account without the permission)
        types = ctx.settings.get("aws_capacity_block_types", s.CAPACITY_BLOCK_TYPES)
        return cls(
            types={t: tuple(r) for t, r in dict(types).items()},
            hours=tuple(
                int(h) for h in ctx.settings.get("aws_capacity_block_hours", s.CAPACITY_BLOCK_HOURS)
            ),
            instances=int(
                ctx.settings.get("aws_capacity_block_instances", s.CAPACITY_BLOCK_INSTANCE_COUNT)
            ),
            start=now,
            end=now + timedelta(days=days),
        )

    def types_in(self, region: str) -> list[str]:
        return [t for t, regions in self.types.items() if region in regions]


def fetch_capacity_blocks(
    ec2: Any,
    region: str,
    terms: CapacityBlockTerms,
    *,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> Iterator[Page]:
    """DescribeCapacityBlockOfferings of one region: one paginated search per instance type
    sold there x duration, for `terms.instances` instances starting in the date window."""
    for instance_type in terms.types_in(region):
        for hours in terms.hours:
            params: dict[str, Any] = {
                "InstanceType": instance_type,
                "InstanceCount": terms.instances,
                "CapacityDurationHours": hours,
                "StartDateRange": terms.start.replace(tzinfo=UTC),
                "EndDateRange": terms.end.replace(tzinfo=UTC),
                "MaxResults": s.CAPACITY_BLOCK_PAGE_SIZE,
            }
            yield from _paginated(
                ec2,
                s.CAPACITY_BLOCK_OPERATION,
                s.CAPACITY_BLOCKS,
                "CapacityBlockOfferings",
                region,
                params,
                policy=policy,
            )
