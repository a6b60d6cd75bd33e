"""Verda fetch: instance types and locations, network only, bodies as received.

- Auth: OAuth2 client credentials from env `VERDA_CLIENT_ID` / `VERDA_CLIENT_SECRET`
  (or the older `DATACRUNCH_*` names): `POST /v1/oauth2/token` with
  `{"grant_type": "client_credentials", "client_id", "client_secret"}` returns
  `{access_token, refresh_token, scope, token_type, expires_in}`; the access token is
  sent as `Authorization: Bearer`. Neither the secret nor the token is stored or logged;
  the tokens are registered with common.redact, so an error that echoes one is masked.
  No credentials: MissingCredentials (skipped, not failed).
- Paging: none; both endpoints return a bare JSON array.
- 429 and 5xx retried with backoff (connectors.kit.http); 4xx (a bad secret) fails.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx

from common.errors import PricingError
from common.redact import register
from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, make_client, request_json
from connectors.kit.page import FetchContext, FetchFailure, Page, utc_now
from connectors.verda import settings as s

_REQUIRED = {
    s.INSTANCE_TYPES: ("instance_type", "price_per_hour", "gpu"),
    s.LOCATIONS: ("code",),
}


def _env(names: tuple[str, ...]) -> str:
    return next((v for n in names if (v := os.environ.get(n, "").strip())), "")


def credentials_from_env() -> tuple[str, str]:
    client_id, secret = _env(s.CLIENT_ID_ENV), _env(s.CLIENT_SECRET_ENV)
    if not (client_id and secret):
        raise MissingCredentials(
            s.PROVIDER,
            s.INSTANCE_TYPES,
            f"no credentials ({s.CLIENT_ID_ENV[0]} and {s.CLIENT_SECRET_ENV[0]} are not set)",
        )
    return client_id, secret


def access_token(
    client: httpx.Client,
    client_id: str,
    secret: str,
    *,
    base_url: str = s.BASE_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> str:
    body = request_json(
        client,
        "POST",
        base_url + s.TOKEN_PATH,
        json={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
        provider=s.PROVIDER,
        endpoint="oauth2_token",
        policy=policy,
    )
    token = body.get("access_token") if isinstance(body, dict) else None
    # the tokens handed out are credentials the environment does not hold: masked from
    # now on in every output, so an API that echoes the bearer back leaks nothing
    for name in ("access_token", "refresh_token"):
        value = body.get(name) if isinstance(body, dict) else None
        if isinstance(value, str):
            register(value)
    if not isinstance(token, str) or not token:
        # the excerpt would echo the token response: name the keys only
        keys = sorted(body) if isinstance(body, dict) else type(body).__name__
        raise UnexpectedResponse(s.PROVIDER, "oauth2_token", f"no access_token in response {keys}")
    return token


def _check(endpoint: str, body: Any) -> None:
    if not isinstance(body, list):
        raise UnexpectedResponse(
            s.PROVIDER, endpoint, "response is not a JSON array", excerpt=repr(body)
        )
    if body:
        missing = [k for k in _REQUIRED[endpoint] if not isinstance(body[0], dict) or k not in body[0]]
        if missing:
            raise UnexpectedResponse(
                s.PROVIDER, endpoint, f"item lacks required field(s) {missing}", excerpt=repr(body[0])
            )


def fetch_catalog(
    client: httpx.Client,
    token: str,
    *,
    base_url: str = s.BASE_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    for endpoint, path, params in (
        (s.INSTANCE_TYPES, s.INSTANCE_TYPES_PATH, s.PARAMS),
        (s.LOCATIONS, s.LOCATIONS_PATH, {}),
    ):
        url = base_url + path
        body = request_json(
            client,
            "GET",
            url,
            params=params,
            headers={"Authorization": f"Bearer {token}"},
            provider=s.PROVIDER,
            endpoint=endpoint,
            policy=policy,
        )
        _check(endpoint, body)
        yield Page(
            provider=s.PROVIDER,
            endpoint=endpoint,
            fetched_at=utc_now(),
            request={"url": url, "params": params},
            body=body,
            source_url=url,
        )


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    base_url = ctx.settings.get("verda_url", s.BASE_URL)
    try:
        client_id, secret = credentials_from_env()
        with make_client() as client:
            token = access_token(client, client_id, secret, base_url=base_url)
            yield from fetch_catalog(client, token, base_url=base_url)
    except PricingError as exc:
        endpoint = getattr(exc, "endpoint", None)
        yield FetchFailure(
            s.PROVIDER, endpoint if endpoint == s.LOCATIONS else s.INSTANCE_TYPES, "", exc
        )
