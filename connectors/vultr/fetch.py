"""Vultr fetch: the public plan lists, network only, pages as received.

- Endpoints: `GET https://api.vultr.com/v2/plans?type=vcg&per_page=500` (Cloud GPU) and
  `GET https://api.vultr.com/v2/plans-metal?per_page=500` (bare metal). No auth.
- Paging: cursor-based; while `meta.links.next` is a non-empty cursor, the same request
  is sent again with `cursor=<next>`. Stops after MAX_PAGES, with a warning.
- 429/5xx retried with backoff (connectors.kit.http). One endpoint failing does not stop
  the other (each is its own FetchFailure).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import httpx

from common.errors import PricingError
from connectors.kit.checks import require_items
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, make_client, request_json
from connectors.kit.page import FetchContext, FetchFailure, Page, utc_now
from connectors.vultr import settings as s

log = logging.getLogger(__name__)


def fetch_plans(
    client: httpx.Client,
    endpoint: str,
    *,
    api_url: str = s.API_URL,
    max_pages: int = s.MAX_PAGES,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    path, base_params = s.ENDPOINTS[endpoint]
    url = api_url + path
    cursor = ""
    for number in range(1, max_pages + 1):
        params = {**base_params, **({"cursor": cursor} if cursor else {})}
        body = request_json(
            client, "GET", url, params=params, provider=s.PROVIDER, endpoint=endpoint, policy=policy
        )
        require_items(s.PROVIDER, endpoint, body, s.LIST_KEYS[endpoint], ("id", "hourly_cost", "locations"))
        yield Page(
            provider=s.PROVIDER,
            endpoint=endpoint,
            fetched_at=utc_now(),
            request={"url": url, "params": params, "page": number},
            body=body,
            source_url=url,
        )
        cursor = ((body.get("meta") or {}).get("links") or {}).get("next") or ""
        if not cursor or not body[s.LIST_KEYS[endpoint]]:
            return
    log.warning("%s/%s: stopped after %d pages", s.PROVIDER, endpoint, max_pages)


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    api_url = ctx.settings.get("vultr_url", s.API_URL)
    with make_client() as client:
        for endpoint in (s.PLANS, s.PLANS_METAL):
            try:
                yield from fetch_plans(client, endpoint, api_url=api_url)
            except PricingError as exc:
                yield FetchFailure(s.PROVIDER, endpoint, "", exc)
