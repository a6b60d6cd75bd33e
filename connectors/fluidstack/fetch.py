"""FluidStack fetch: `GET /list_available_configurations`, network only, body as received.

- Auth: env `FLUIDSTACK_API_KEY`, sent in the `api-key` header. No key:
  MissingCredentials (skipped, not failed).
- Paging: none; a bare JSON array.
- 429/5xx retried with backoff (connectors.kit.http); 401 fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx

from connectors.errors import PricingError
from connectors.fluidstack import settings as s
from connectors.kit.checks import env_credential, require_list
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, get_page, make_client
from connectors.kit.page import FetchContext, FetchFailure, Page

_KEYS = ("gpu_type", "price_per_gpu_hr", "regions")


def api_key_from_env() -> str:
    return env_credential(s.PROVIDER, s.ENDPOINT, s.API_KEY_ENV)


def _check(body: Any) -> None:
    require_list(s.PROVIDER, s.ENDPOINT, body, _KEYS, what="item")


def fetch_configurations(
    client: httpx.Client,
    api_key: str,
    *,
    url: str = s.CONFIGURATIONS_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    yield get_page(
        client,
        url,
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        headers={s.API_KEY_HEADER: api_key},
        check=_check,
        policy=policy,
    )


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    try:
        key = api_key_from_env()
        with make_client() as client:
            yield from fetch_configurations(
                client, key, url=ctx.settings.get("fluidstack_url", s.CONFIGURATIONS_URL)
            )
    except PricingError as exc:
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, "", exc)
