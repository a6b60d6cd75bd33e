"""Seeweb fetch: `GET /ecs/v2/plans`, network only, body as received.

- Auth: env `SEEWEB_API_TOKEN` (or `SEEWEB_API_KEY`), sent in the `X-APITOKEN` header. No
  token: MissingCredentials (skipped, not failed).
- Paging: none; one `{"status", "plans": [...]}` document.
- 429/5xx retried with backoff (connectors.kit.http); 401 fails.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx

from connectors.errors import PricingError
from connectors.kit.checks import env_credential, require_items
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, get_page, make_client
from connectors.kit.page import FetchContext, FetchFailure, Page
from connectors.seeweb import settings as s


def token_from_env() -> str:
    return env_credential(s.PROVIDER, s.ENDPOINT, s.TOKEN_ENV)


def fetch_plans(
    client: httpx.Client,
    token: str,
    *,
    url: str = s.PLANS_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    yield get_page(
        client,
        url,
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        headers={"X-APITOKEN": token},
        check=lambda b: require_items(s.PROVIDER, s.ENDPOINT, b, "plans", ("name", "hourly_price")),
        policy=policy,
    )


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    try:
        token = token_from_env()
        with make_client() as client:
            yield from fetch_plans(client, token, url=ctx.settings.get("seeweb_url", s.PLANS_URL))
    except PricingError as exc:
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, "", exc)
