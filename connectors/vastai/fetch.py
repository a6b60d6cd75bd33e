"""Vast.ai fetch: the public bundles search, network only, bodies as received.

- Endpoint: `POST https://console.vast.ai/api/v0/bundles/` with a JSON query of per-field
  operators (settings.QUERY). No auth: searching is public (gpuhunt sends no key).
- Paging: there is no offset. Offers come ordered by `dph_total`; the next page asks for
  `dph_total >= <highest price seen>`, so offers at the boundary price come back twice
  (parse keeps one per offer id). The walk ends when a page brings no offer id not seen
  before, or after MAX_PAGES. The server may cap `limit`, so "a full page" is the longest
  page seen, not our limit. A full page at one single price cannot move the floor: the
  next page steps strictly above it (`gt`) and the log says offers may be missed.
- 429/5xx retried with backoff (connectors.kit.http).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from common.errors import PricingError
from connectors.kit.checks import require_items
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, make_client, request_json
from connectors.kit.page import FetchContext, FetchFailure, Page, utc_now
from connectors.vastai import settings as s

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)


def _check(body: Any) -> list[dict]:
    return require_items(s.PROVIDER, s.ENDPOINT, body, "offers", ("id", "dph_total", "gpu_name"))


def fetch_bundles(
    client: httpx.Client,
    *,
    url: str = s.BUNDLES_URL,
    limit: int = s.PAGE_LIMIT,
    max_pages: int = s.MAX_PAGES,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    seen: set[Any] = set()
    floor: float | None = None
    op = "gte"
    page_size = 0  # the longest page seen: the server may cap `limit` below ours
    for number in range(1, max_pages + 1):
        query = {**s.QUERY, "limit": limit}
        if floor is not None:
            query["dph_total"] = {op: floor}
        body = request_json(
            client,
            "POST",
            url,
            json=query,
            provider=s.PROVIDER,
            endpoint=s.ENDPOINT,
            policy=policy,
        )
        offers = _check(body)
        ids = {o.get("id") for o in offers}
        page_size = max(page_size, len(offers))
        prices = [o["dph_total"] for o in offers if isinstance(o.get("dph_total"), int | float)]
        if number > 1 and not ids - seen:
            stuck = op == "gte" and len(offers) == page_size and set(prices) == {floor}
            if not stuck:
                return  # nothing new: the previous page was the last one
            log.warning(
                "%s/%s: a full page priced %s USD/h; stepping above it, offers beyond this "
                "page at exactly that price are not listed",
                s.PROVIDER,
                s.ENDPOINT,
                floor,
            )
            op = "gt"
            continue
        seen |= ids
        yield Page(
            provider=s.PROVIDER,
            endpoint=s.ENDPOINT,
            fetched_at=utc_now(),
            request={"url": url, "query": query, "page": number},
            body=body,
            source_url=url,
        )
        if not prices:
            return
        floor, op = max(prices), "gte"
    log.warning("%s/%s: stopped after %d pages", s.PROVIDER, s.ENDPOINT, max_pages)


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    try:
        with make_client() as client:
            yield from fetch_bundles(client, url=ctx.settings.get("vastai_url", s.BUNDLES_URL))
    except PricingError as exc:
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, "", exc)
