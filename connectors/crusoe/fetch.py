"""Crusoe fetch: VM types and capacities, network only, bodies as received.

- Auth: env `CRUSOE_ACCESS_KEY`, `CRUSOE_SECRET_KEY`, `CRUSOE_PROJECT_ID`; every request
  is signed (settings: HMAC-SHA256, `X-Crusoe-Timestamp`, `Authorization: Bearer
  1.0:<access key>:<signature>`). Any of the three missing: MissingCredentials (skipped).
  Neither key nor signature is stored or logged (each signature is registered with
  common.redact, so an error that echoes it is masked).
- Paging: none; each endpoint returns `{"items": [...]}`.
- 429/5xx retried with backoff (connectors.kit.http); each attempt is re-signed with a
  fresh timestamp by signing per request (an httpx auth flow).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from collections.abc import Generator, Iterator
from datetime import UTC, datetime

import httpx

from common.errors import PricingError
from common.redact import register
from connectors.crusoe import settings as s
from connectors.errors import MissingCredentials
from connectors.kit.checks import require_items
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, make_client, request_json
from connectors.kit.page import FetchContext, FetchFailure, Page, utc_now


def signature(secret_key: str, path: str, query: str, method: str, timestamp: str) -> str:
    """The request signature: URL-safe base64 (unpadded) HMAC-SHA256 of the canonical
    request, keyed with the URL-safe base64 decoded secret key."""
    key = base64.urlsafe_b64decode(secret_key + "=" * (-len(secret_key) % 4))
    message = f"{s.API_VERSION}{path}\n{query}\n{method}\n{timestamp}\n".encode("ascii")
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


class CrusoeAuth(httpx.Auth):
    """Signs each request (and each retry) with a fresh timestamp."""

    def __init__(self, access_key: str, secret_key: str, clock=lambda: datetime.now(UTC)):
        self._access, self._secret, self._clock = access_key, secret_key, clock

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        timestamp = self._clock().replace(microsecond=0).isoformat()
        path = request.url.path.removeprefix(s.API_VERSION)
        query = "&".join(sorted(request.url.query.decode().split("&"))) if request.url.query else ""
        sig = signature(self._secret, path, query, request.method, timestamp)
        register(sig)  # an error that echoes the signature (with the request) masks it
        request.headers["X-Crusoe-Timestamp"] = timestamp
        request.headers["Authorization"] = f"Bearer {s.SIGNATURE_VERSION}:{self._access}:{sig}"
        yield request


def credentials_from_env() -> tuple[str, str, str]:
    values = [
        os.environ.get(n, "").strip() for n in (s.ACCESS_KEY_ENV, s.SECRET_KEY_ENV, s.PROJECT_ENV)
    ]
    if not all(values):
        raise MissingCredentials(
            s.PROVIDER,
            s.VM_TYPES,
            f"no credentials ({s.ACCESS_KEY_ENV}, {s.SECRET_KEY_ENV} and {s.PROJECT_ENV} are not all set)",
        )
    return values[0], values[1], values[2]


def fetch_catalog(
    client: httpx.Client,
    auth: httpx.Auth,
    project: str,
    *,
    api_url: str = s.API_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    for endpoint, path, keys in (
        (
            s.VM_TYPES,
            s.VM_TYPES_PATH.format(project=project),
            ("product_name", "gpu_type", "num_gpu"),
        ),
        (s.CAPACITIES, s.CAPACITIES_PATH, ("type", "location", "quantity")),
    ):
        url = f"{api_url}{s.API_VERSION}{path}"
        body = request_json(
            client, "GET", url, auth=auth, provider=s.PROVIDER, endpoint=endpoint, policy=policy
        )
        require_items(s.PROVIDER, endpoint, body, "items", keys)
        yield Page(
            provider=s.PROVIDER,
            endpoint=endpoint,
            fetched_at=utc_now(),
            request={"url": url},
            body=body,
            source_url=url,
        )


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    try:
        access, secret, project = credentials_from_env()
        with make_client() as client:
            yield from fetch_catalog(
                client,
                CrusoeAuth(access, secret),
                project,
                api_url=ctx.settings.get("crusoe_url", s.API_URL),
            )
    except PricingError as exc:
        endpoint = getattr(exc, "endpoint", s.VM_TYPES)
        yield FetchFailure(
            s.PROVIDER, endpoint if endpoint == s.CAPACITIES else s.VM_TYPES, "", exc
        )
