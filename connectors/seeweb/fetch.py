"""Seeweb fetch: `GET /ecs/v2/plans`, network only, body as received.

- Auth: env `SEEWEB_API_TOKEN` (or `SEEWEB_API_KEY`), sent in the `X-APITOKEN` header. No
  token: MissingCredentials (skipped, not failed).
- Paging: none; one `{"status", "plans": [...]}` document.
- 429/5xx retried with backoff (connectors.kit.http); 401 fails.

Declared as a connectors.kit.rest.JsonEndpoint, which owns the client, the credential,
the shape check and the failure handling.
"""

from __future__ import annotations

from connectors.kit.rest import Credential, JsonEndpoint
from connectors.seeweb import settings as s

PLANS = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.ENDPOINT,
    url=lambda: s.PLANS_URL,
    credential=Credential(env=s.TOKEN_ENV, header="X-APITOKEN"),
    items="plans",
    required=("name", "hourly_price"),
)
token_from_env = PLANS.credential_from_env
fetch_plans = PLANS.pages
fetch_live = PLANS.fetch_live
