"""JarvisLabs fetch: `GET /misc/server_meta`, network only, body as received.

- Auth: API key from env `JL_API_KEY` (or `JARVISLABS_API_KEY`), sent as
  `Authorization: Bearer`. No key: MissingCredentials (skipped, not failed).
- Paging: none; one `{"server_meta": [...], "cpu_meta": {...}}` document.
- 429/5xx retried with backoff (connectors.kit.http); 401 fails.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx

from connectors.errors import PricingError
from connectors.jarvislabs import settings as s
from connectors.kit.checks import env_credential, require_items
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, get_page, make_client
from connectors.kit.page import FetchContext, FetchFailure, Page


def api_key_from_env() -> str:
    return env_credential(s.PROVIDER, s.ENDPOINT, s.API_KEY_ENV)


def fetch_server_meta(
    client: httpx.Client,
    api_key: str,
    *,
    url: str = s.SERVER_META_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    yield get_page(
        client,
        url,
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        headers={"Authorization": f"Bearer {api_key}"},
        check=lambda b: require_items(
            s.PROVIDER, s.ENDPOINT, b, "server_meta", ("gpu_type", "region", "price_per_hour")
        ),
        policy=policy,
    )


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    try:
        key = api_key_from_env()
        with make_client() as client:
            yield from fetch_server_meta(
                client, key, url=ctx.settings.get("jarvislabs_url", s.SERVER_META_URL)
            )
    except PricingError as exc:
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, "", exc)
