"""CloudRift fetch: the instance-types RPC, network only, body as received.

- Endpoint: `POST https://api.cloudrift.ai/api/v1/instance-types/list` with a versioned
  JSON body (settings.REQUEST). No credentials: gpuhunt lists instance types without any.
- Paging: none; one `{"data": {"instance_types": [...]}}` document.
- 429/5xx retried with backoff (connectors.kit.http); the RPC may answer a bare JSON string
  on error (gpuhunt handles that case), which is UnexpectedResponse.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx

from common.errors import PricingError
from connectors.cloudrift import settings as s
from connectors.errors import UnexpectedResponse
from connectors.kit.checks import require_items
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, make_client, request_json
from connectors.kit.page import FetchContext, FetchFailure, Page, utc_now


def _check(body: Any) -> None:
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict):
        raise UnexpectedResponse(
            s.PROVIDER, s.ENDPOINT, "response has no 'data' object", excerpt=repr(body)
        )
    require_items(s.PROVIDER, s.ENDPOINT, data, "instance_types", ("brand_short", "variants"))


def fetch_instance_types(
    client: httpx.Client,
    *,
    url: str = s.INSTANCE_TYPES_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    body = request_json(
        client, "POST", url, json=s.REQUEST, provider=s.PROVIDER, endpoint=s.ENDPOINT, policy=policy
    )
    _check(body)
    yield Page(
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        fetched_at=utc_now(),
        request={"url": url, "body": s.REQUEST},
        body=body,
        source_url=url,
    )


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    try:
        with make_client() as client:
            yield from fetch_instance_types(
                client, url=ctx.settings.get("cloudrift_url", s.INSTANCE_TYPES_URL)
            )
    except PricingError as exc:
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, "", exc)
