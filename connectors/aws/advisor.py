"""AWS Spot Instance Advisor: the public JSON of interruption frequency buckets."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

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


# --- public routes ------------------------------------------------------------------------


def fetch_spot_advisor(
    client: httpx.Client, *, url: str = s.SPOT_ADVISOR_URL, policy: RetryPolicy = DEFAULT_POLICY
) -> Iterator[Page]:
    body = request_json(
        client, "GET", url, provider=s.PROVIDER, endpoint=s.SPOT_ADVISOR, policy=policy
    )
    if not isinstance(body, dict) or not all(
        isinstance(body.get(k), t) for k, t in (("ranges", list), ("spot_advisor", dict))
    ):
        raise UnexpectedResponse(
            s.PROVIDER, s.SPOT_ADVISOR, "no 'ranges' list or 'spot_advisor' object", repr(body)
        )
    yield Page(
        provider=s.PROVIDER,
        endpoint=s.SPOT_ADVISOR,
        fetched_at=utc_now(),
        request={"url": url},
        body=body,
        source_url=url,
    )
