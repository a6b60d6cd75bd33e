"""OCI fetch: the public price list, network only, body as received.

- Endpoint: `GET https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/?currencyCode=USD`
  (the JSON behind oracle.com/cloud/compute/pricing). No auth.
- Paging: none; one document `{"lastUpdated": ..., "items": [...]}` (~600 products).
  Without `currencyCode` the server returns every currency (~15x larger).
- 429/5xx retried with backoff (connectors.kit.http).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from common.errors import PricingError
from connectors.kit.checks import require_items
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, make_client, request_json
from connectors.kit.page import FetchContext, FetchFailure, Page, utc_now
from connectors.oci import settings as s

if TYPE_CHECKING:
    import httpx

_ITEM_KEYS = ("partNumber", "displayName", "metricName", "currencyCodeLocalizations")


def fetch_products(
    client: httpx.Client,
    *,
    url: str = s.PRODUCTS_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    body = request_json(
        client,
        "GET",
        url,
        params=s.PARAMS,
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        policy=policy,
    )
    require_items(s.PROVIDER, s.ENDPOINT, body, "items", _ITEM_KEYS)
    yield Page(
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        fetched_at=utc_now(),
        request={"url": url, "params": s.PARAMS},
        body=body,
        source_url=url,
    )


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    try:
        with make_client() as client:
            yield from fetch_products(client, url=ctx.settings.get("oci_url", s.PRODUCTS_URL))
    except PricingError as exc:
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, "", exc)
