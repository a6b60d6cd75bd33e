"""JarvisLabs fetch: `GET /misc/server_meta`, network only, body as received.

- Auth: API key from env `JL_API_KEY` (or `JARVISLABS_API_KEY`), sent as
  `Authorization: Bearer`. No key: MissingCredentials (skipped, not failed).
- Paging: none; one `{"server_meta": [...], "cpu_meta": {...}}` document.
- 429/5xx retried with backoff (connectors.kit.http); 401 fails.

Declared as a connectors.kit.rest.JsonEndpoint.
"""

from __future__ import annotations

from connectors.jarvislabs import settings as s
from connectors.kit.rest import Credential, JsonEndpoint

SERVER_META = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.ENDPOINT,
    url=lambda: s.SERVER_META_URL,
    credential=Credential(env=s.API_KEY_ENV, header="Authorization", scheme="Bearer "),
    items="server_meta",
    required=("gpu_type", "region", "price_per_hour"),
)
api_key_from_env = SERVER_META.credential_from_env
fetch_server_meta = SERVER_META.pages
fetch_live = SERVER_META.fetch_live
