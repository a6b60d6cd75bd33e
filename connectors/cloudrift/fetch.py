"""CloudRift fetch: the instance-types RPC, network only, body as received.

- Endpoint: `POST https://api.cloudrift.ai/api/v1/instance-types/list` with a versioned
  JSON body (settings.REQUEST). No credentials: gpuhunt lists instance types without any.
- Paging: none; one `{"data": {"instance_types": [...]}}` document.
- 429/5xx retried with backoff (connectors.kit.http); the RPC may answer a bare JSON string
  on error (gpuhunt handles that case), which is UnexpectedResponse.

Declared as a connectors.kit.rest.JsonEndpoint (a POST with a JSON body).
"""

from __future__ import annotations

from connectors.cloudrift import settings as s
from connectors.kit.rest import JsonEndpoint

INSTANCE_TYPES = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.ENDPOINT,
    url=lambda: s.INSTANCE_TYPES_URL,
    method="POST",
    body=s.REQUEST,
    items=("data", "instance_types"),
    required=("brand_short", "variants"),
)
fetch_instance_types = INSTANCE_TYPES.pages
fetch_live = INSTANCE_TYPES.fetch_live
