"""Hyperstack fetch: `GET /v1/pricebook`, network only, body as received.

- Auth: the API key from env `HYPERSTACK_API_KEY`, sent in the `api_key` header (the
  documented scheme). No key: MissingCredentials (the provider is skipped, not failed).
- Paging: none; the body is a bare JSON array (no status/message envelope, unlike the
  rest of the Infrahub API).
- 429 and 5xx are retried with backoff honouring Retry-After (connectors._http); 401 and
  other 4xx are failures, so a broken key is noticed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx

from connectors._http import DEFAULT_RETRY, RetryPolicy, get_page, make_client
from connectors._page import FetchContext, FetchFailure, Page
from connectors.errors import MissingCredentials, PricingError, UnexpectedResponse
from connectors.hyperstack import settings as s

_ITEM_KEYS = ("name", "value")


def api_key_from_env() -> str:
    key = os.environ.get(s.API_KEY_ENV, "").strip()
    if not key:
        raise MissingCredentials(
            s.PROVIDER, s.ENDPOINT, f"no credentials ({s.API_KEY_ENV} is not set; the pricebook needs an API key)"
        )
    return key


def _check(body: Any) -> None:
    """Schema drift guard: a list whose first entry has a name and a value."""
    if not isinstance(body, list):
        raise UnexpectedResponse(
            s.PROVIDER, s.ENDPOINT, "response is not a JSON array", excerpt=repr(body)
        )
    if body:
        first = body[0]
        missing = [k for k in _ITEM_KEYS if not isinstance(first, dict) or k not in first]
        if missing:
            raise UnexpectedResponse(
                s.PROVIDER,
                s.ENDPOINT,
                f"pricebook entry lacks required field(s) {missing}",
                excerpt=repr(first),
            )


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
