"""Vultr fetch: the public plan lists, network only, pages as received.

- Endpoints: `GET https://api.vultr.com/v2/plans?type=vcg&per_page=500` (Cloud GPU) and
  `GET https://api.vultr.com/v2/plans-metal?per_page=500` (bare metal). No auth.
- Paging: cursor-based; while `meta.links.next` is a non-empty cursor, the same request
  is sent again with `cursor=<next>`; a page without plans ends the walk, one that
  repeats a request or passes MAX_PAGES fails.
- 429/5xx retried with backoff (connectors.kit.http). One endpoint failing does not stop
  the other (each is its own FetchFailure).

Declared as connectors.kit.rest.JsonEndpoint's sharing the API's base URL.
"""

from __future__ import annotations

from connectors.kit.rest import Cursor, JsonEndpoint, live_fetch
from connectors.vultr import settings as s


def _plans(endpoint: str) -> JsonEndpoint:
    path, params = s.ENDPOINTS[endpoint]
    return JsonEndpoint(
        provider=s.PROVIDER,
        endpoint=endpoint,
        base=lambda: s.API_URL,
        url=path,
        params={k: str(v) for k, v in params.items()},
        paging=Cursor(("meta", "links", "next"), "cursor"),
        max_pages=s.MAX_PAGES,
        items=s.LIST_KEYS[endpoint],
        required=("id", "hourly_cost", "locations"),
    )


PLANS = _plans(s.PLANS)
PLANS_METAL = _plans(s.PLANS_METAL)
ENDPOINTS = (PLANS, PLANS_METAL)
fetch_live = live_fetch(*ENDPOINTS)
