"""Hyperstack fetch: `GET /v1/pricebook`, network only, body as received.

- Auth: the API key from env `HYPERSTACK_API_KEY`, sent in the `api_key` header (the
  documented scheme). No key: MissingCredentials (the provider is skipped, not failed).
- Paging: none; the body is a bare JSON array (no status/message envelope, unlike the
  rest of the Infrahub API).
- 429 and 5xx are retried with backoff honouring Retry-After (connectors.kit.http); 401 and
  other 4xx are failures, so a broken key is noticed.

Declared as a connectors.kit.rest.JsonEndpoint.
"""

from __future__ import annotations

from connectors.hyperstack import settings as s
from connectors.kit.rest import Credential, JsonEndpoint

PRICEBOOK = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.ENDPOINT,
    url=lambda: s.PRICEBOOK_URL,
    credential=Credential(
        env=(s.API_KEY_ENV,), header=s.API_KEY_HEADER, need="the pricebook needs an API key"
    ),
    headers={"Accept": "application/json"},
    items=None,  # a bare array
    required=("name", "value"),
    what="pricebook entry",
)
api_key_from_env = PRICEBOOK.credential_from_env
fetch_pricebook = PRICEBOOK.pages
fetch_live = PRICEBOOK.fetch_live
