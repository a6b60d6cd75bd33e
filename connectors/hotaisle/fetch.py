"""Hot Aisle fetch: the team's available VM configurations, network only, body as received.

- Auth: env `HOTAISLE_API_KEY` sent as `Authorization: Token <key>`, and the team handle
  from env `HOTAISLE_TEAM_HANDLE` (part of the path). Either missing: MissingCredentials
  (skipped, not failed).
- Paging: none; a bare JSON array.
- 429/5xx retried with backoff (connectors.kit.http); 401/403 fail.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx

from common.errors import PricingError
from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.hotaisle import settings as s
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, get_page, make_client
from connectors.kit.page import FetchContext, FetchFailure, Page


def credentials_from_env() -> tuple[str, str]:
    key = os.environ.get(s.API_KEY_ENV, "").strip()
    team = os.environ.get(s.TEAM_ENV, "").strip()
    if not (key and team):
        raise MissingCredentials(
            s.PROVIDER, s.ENDPOINT, f"no credentials ({s.API_KEY_ENV} and {s.TEAM_ENV} are not set)"
        )
    return key, team


def _check(body: Any) -> None:
    if not isinstance(body, list):
        raise UnexpectedResponse(
            s.PROVIDER, s.ENDPOINT, "response is not a JSON array", excerpt=repr(body)
        )
    if body and not (isinstance(body[0], dict) and {"OnDemandPrice", "Specs"} <= body[0].keys()):
        raise UnexpectedResponse(
            s.PROVIDER, s.ENDPOINT, "item lacks OnDemandPrice or Specs", excerpt=repr(body[0])
        )


def fetch_available(
    client: httpx.Client,
    api_key: str,
    team: str,
    *,
    api_url: str = s.API_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    url = api_url + s.AVAILABLE_PATH.format(team=quote(team, safe=""))
    yield get_page(
        client,
        url,
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        headers={"Authorization": f"Token {api_key}", "Accept": "application/json"},
        check=_check,
        policy=policy,
    )


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    try:
        key, team = credentials_from_env()
        with make_client() as client:
            yield from fetch_available(
                client, key, team, api_url=ctx.settings.get("hotaisle_url", s.API_URL)
            )
    except PricingError as exc:
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, "", exc)
