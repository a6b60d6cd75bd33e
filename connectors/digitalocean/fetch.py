"""DigitalOcean fetch: `GET /v2/sizes`, network only, pages as received.

- Auth: a personal access token from env `DIGITALOCEAN_TOKEN` (or
  `DIGITALOCEAN_ACCESS_TOKEN`, `DIGITAL_OCEAN_API_KEY`), sent as `Authorization: Bearer`.
  No token: MissingCredentials (skipped, not failed).
- Paging: `per_page=200&page=N`; the next page is `links.pages.next` (absent on the last
  page). Stops after MAX_PAGES, with a warning.
- 429 and 5xx retried with backoff honouring Retry-After (connectors.kit.http).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import httpx

from common.errors import PricingError
from connectors.digitalocean import settings as s
from connectors.kit.checks import env_credential, require_items
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, make_client, request_json
from connectors.kit.page import FetchContext, FetchFailure, Page, utc_now

log = logging.getLogger(__name__)


def token_from_env() -> str:
    return env_credential(s.PROVIDER, s.ENDPOINT, s.TOKEN_ENV)


def fetch_sizes(
    client: httpx.Client,
    token: str,
    *,
    url: str = s.SIZES_URL,
    per_page: int = s.PER_PAGE,
    max_pages: int = s.MAX_PAGES,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    next_url: str | None = url
    params: dict | None = {"per_page": per_page, "page": 1}
    for number in range(1, max_pages + 1):
        assert next_url is not None
        body = request_json(
            client,
            "GET",
            next_url,
            params=params,
            headers={"Authorization": f"Bearer {token}"},
            provider=s.PROVIDER,
            endpoint=s.ENDPOINT,
            policy=policy,
        )
        require_items(s.PROVIDER, s.ENDPOINT, body, "sizes", ("slug", "price_hourly", "regions"))
        yield Page(
            provider=s.PROVIDER,
            endpoint=s.ENDPOINT,
            fetched_at=utc_now(),
            request={"url": next_url, "params": params, "page": number},
            body=body,
            source_url=next_url,
        )
        pages = (body.get("links") or {}).get("pages") or {}
        next_url, params = pages.get("next"), None  # the next link carries its own query
        if not next_url or not body["sizes"]:
            return
    log.warning("%s/%s: stopped after %d pages", s.PROVIDER, s.ENDPOINT, max_pages)


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    try:
        token = token_from_env()
        with make_client() as client:
            yield from fetch_sizes(
                client, token, url=ctx.settings.get("digitalocean_url", s.SIZES_URL)
            )
    except PricingError as exc:
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, "", exc)
