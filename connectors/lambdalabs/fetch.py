"""Lambda Cloud fetch: `GET /api/v1/instance-types`, network only, body as received.

- Auth: the API key from env `LAMBDA_API_KEY`, sent as `Authorization: Bearer <key>`.
  No key: MissingCredentials (the provider is skipped, not failed).
- Paging: none; one JSON object `{"data": {<type name>: {...}}}`.
- 429 and 5xx are retried with backoff honouring Retry-After (connectors.kit.http); Lambda
  documents about one request per second for the API.
- Quirk: `data` is keyed by instance type name, not a list.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx

from connectors.errors import PricingError, UnexpectedResponse
from connectors.kit.checks import env_credential
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, get_page, make_client
from connectors.kit.page import FetchContext, FetchFailure, Page
from connectors.lambdalabs import settings as s


def api_key_from_env() -> str:
    return env_credential(s.PROVIDER, s.ENDPOINT, s.API_KEY_ENV, "Lambda prices need an API key")


def _check(body: Any) -> None:
    """Schema drift guard: `data` is an object of instance types, each with a price."""
    if not isinstance(body, dict) or not isinstance(body.get("data"), dict):
        raise UnexpectedResponse(
            s.PROVIDER, s.ENDPOINT, "response has no 'data' object", excerpt=repr(body)
        )
    for name, entry in body["data"].items():
        instance = entry.get("instance_type") if isinstance(entry, dict) else None
        if not isinstance(instance, dict) or "price_cents_per_hour" not in instance:
            raise UnexpectedResponse(
                s.PROVIDER,
                s.ENDPOINT,
                f"instance type {name!r} has no instance_type.price_cents_per_hour",
                excerpt=repr(entry),
            )


def fetch_instance_types(
    client: httpx.Client,
    api_key: str,
    *,
    url: str = s.INSTANCE_TYPES_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    yield get_page(
        client,
        url,
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        headers={"Authorization": f"Bearer {api_key}"},
        check=_check,
        policy=policy,
    )


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    try:
        key = api_key_from_env()
        with make_client() as client:
            yield from fetch_instance_types(
                client, key, url=ctx.settings.get("lambdalabs_url", s.INSTANCE_TYPES_URL)
            )
    except PricingError as exc:
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, "", exc)
