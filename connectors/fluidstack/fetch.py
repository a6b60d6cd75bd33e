"""FluidStack fetch: `GET /list_available_configurations`, network only, body as received.

- Auth: env `FLUIDSTACK_API_KEY`, sent in the `api-key` header. No key:
  MissingCredentials (skipped, not failed).
- Paging: none; a bare JSON array.
- 429/5xx retried with backoff (connectors.kit.http); 401 fails.

Declared as a connectors.kit.rest.JsonEndpoint.
"""

from __future__ import annotations

from connectors.fluidstack import settings as s
from connectors.kit.rest import Credential, JsonEndpoint

CONFIGURATIONS = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.ENDPOINT,
    url=lambda: s.CONFIGURATIONS_URL,
    credential=Credential(env=(s.API_KEY_ENV,), header=s.API_KEY_HEADER),
    items=None,  # a bare array
    required=("gpu_type", "price_per_gpu_hr", "regions"),
)
api_key_from_env = CONFIGURATIONS.credential_from_env
fetch_configurations = CONFIGURATIONS.pages
fetch_live = CONFIGURATIONS.fetch_live
