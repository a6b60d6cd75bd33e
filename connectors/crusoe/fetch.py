"""Crusoe fetch: VM types and capacities, network only, bodies as received.

- Auth: env `CRUSOE_ACCESS_KEY`, `CRUSOE_SECRET_KEY`, `CRUSOE_PROJECT_ID`; every request
  is signed (settings: HMAC-SHA256, `X-Crusoe-Timestamp`, `Authorization: Bearer
  1.0:<access key>:<signature>`). Any of the three missing: MissingCredentials (skipped).
  Neither key nor signature is stored or logged (each signature is registered with
  common.redact, so an error that echoes it is masked).
- Paging: none; each endpoint returns `{"items": [...]}`.
- 429/5xx retried with backoff (connectors.kit.http); each attempt is re-signed with a
  fresh timestamp by signing per request (httpx calls the auth for every request).

Declared as connectors.kit.rest.JsonEndpoint's; the signing is the provider's own
`RequestAuth` (`CrusoeAuth`), plugged in as the kit's request-signing hook
(connectors.kit.auth.Signed).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from common.redact import register
from connectors.crusoe import settings as s
from connectors.kit.auth import Credential, Signed
from connectors.kit.rest import JsonEndpoint, live_fetch

if TYPE_CHECKING:
    import httpx


def signature(secret_key: str, path: str, query: str, method: str, timestamp: str) -> str:
    """The request signature: URL-safe base64 (unpadded) HMAC-SHA256 of the canonical
    request, keyed with the URL-safe base64 decoded secret key."""
    key = base64.urlsafe_b64decode(secret_key + "=" * (-len(secret_key) % 4))
    message = f"{s.API_VERSION}{path}\n{query}\n{method}\n{timestamp}\n".encode("ascii")
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


class CrusoeAuth:
    """Signs each request (and each retry) with a fresh timestamp (a
    connectors.kit.auth.RequestAuth, which httpx calls for every request it sends)."""

    def __init__(self, access_key: str, secret_key: str, clock=lambda: datetime.now(UTC)):
        self._access, self._secret, self._clock = access_key, secret_key, clock

    def __call__(self, request: httpx.Request) -> httpx.Request:
        timestamp = self._clock().replace(microsecond=0).isoformat()
        path = request.url.path.removeprefix(s.API_VERSION)
        query = "&".join(sorted(request.url.query.decode().split("&"))) if request.url.query else ""
        sig = signature(self._secret, path, query, request.method, timestamp)
        register(sig)  # an error that echoes the signature (with the request) masks it
        request.headers["X-Crusoe-Timestamp"] = timestamp
        request.headers["Authorization"] = f"Bearer {s.SIGNATURE_VERSION}:{self._access}:{sig}"
        return request


SIGNED = Signed(
    credentials=(Credential(env=(s.ACCESS_KEY_ENV,)), Credential(env=(s.SECRET_KEY_ENV,))),
    sign=CrusoeAuth,
)
VM_TYPES = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.VM_TYPES,
    base=lambda: s.API_URL,
    url=s.API_VERSION + s.VM_TYPES_PATH,
    credential=Credential(env=(s.PROJECT_ENV,), path="project", secret=False),
    auth=SIGNED,
    items="items",
    required=("product_name", "gpu_type", "num_gpu"),
)
CAPACITIES = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.CAPACITIES,
    base=lambda: s.API_URL,
    url=s.API_VERSION + s.CAPACITIES_PATH,
    auth=SIGNED,
    items="items",
    required=("type", "location", "quantity"),
)
ENDPOINTS = (VM_TYPES, CAPACITIES)
fetch_live = live_fetch(*ENDPOINTS)
