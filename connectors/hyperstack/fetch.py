"""Hyperstack fetch: `GET /v1/pricebook`, network only, body as received.

- Auth: the API key from env `HYPERSTACK_API_KEY`, sent in the `api_key` header (the
  documented scheme). No key: MissingCredentials (the provider is skipped, not failed).
- Paging: none; the body is a bare JSON array (no status/message envelope, unlike the
  rest of the Infrahub API).
- 429 and 5xx are retried with backoff honouring Retry-After (connectors.kit.http); 401 and
  other 4xx are failures, so a broken key is noticed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx

from connectors.errors import PricingError
from connectors.hyperstack import settings as s
from connectors.kit.checks import env_credential, require_list
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, get_page, make_client
from connectors.kit.page import FetchContext, FetchFailure, Page

_ITEM_KEYS = ("name", "value")


def api_key_from_env() -> str:
    return env_credential(s.PROVIDER, s.ENDPOINT, s.API_KEY_ENV, "the pricebook needs an API key")


def _check(body: Any) -> None:
    require_list(s.PROVIDER, s.ENDPOINT, body, _ITEM_KEYS, what="pricebook entry")


def fetch_pricebook(
    client: httpx.Client,
    api_key: str,
    *,
    url: str = s.PRICEBOOK_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    yield get_page(
        client,
        url,
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        headers={s.API_KEY_HEADER: api_key, "Accept": "application/json"},
        check=_check,
        policy=policy,
    )


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    try:
        key = api_key_from_env()
        with make_client() as client:
            yield from fetch_pricebook(
                client, key, url=ctx.settings.get("hyperstack_url", s.PRICEBOOK_URL)
            )
    except PricingError as exc:
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, "", exc)
