"""Hot Aisle fetch: the team's available VM configurations, network only, body as received.

- Auth: env `HOTAISLE_API_KEY` sent as `Authorization: Token <key>`, and the team handle
  from env `HOTAISLE_TEAM_HANDLE` (part of the path). Either missing: MissingCredentials
  (skipped, not failed).
- Paging: none; a bare JSON array.
- 429/5xx retried with backoff (connectors.kit.http); 401/403 fail.

Declared as a connectors.kit.rest.JsonEndpoint (the team handle a path credential).
"""

from __future__ import annotations

from connectors.hotaisle import settings as s
from connectors.kit.auth import Credential
from connectors.kit.rest import JsonEndpoint

AVAILABLE = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.ENDPOINT,
    base=lambda: s.API_URL,
    url=s.AVAILABLE_PATH,
    credential=(
        Credential(env=(s.API_KEY_ENV,), header="Authorization", scheme="Token "),
        Credential(env=(s.TEAM_ENV,), path="team", secret=False),
    ),
    headers={"Accept": "application/json"},
    items=None,  # a bare array
    required=("OnDemandPrice", "Specs"),
)
fetch_available = AVAILABLE.pages
fetch_live = AVAILABLE.fetch_live
