"""RunPod fetch: the GraphQL `gpuTypes` query, network only, body as received.

- Endpoint: `POST https://api.runpod.io/graphql` with `{"query": ...}`.
- Auth: optional. Env `RUNPOD_API_KEY` is sent as a Bearer header when set; without it
  the query runs keyless (as gpuhunt does), so a missing key is not a skip.
- Paging: none; one response `{"data": {"gpuTypes": [...]}}`.
- Quirk: GraphQL errors come back with HTTP 200 and `{"errors": [{"message": ...}]}`,
  which is raised as UnexpectedResponse (not retried). 429/5xx are retried
  (connectors.kit.http).

Declared as a connectors.kit.rest.JsonEndpoint (its `graphql` escape hatch).
"""

from __future__ import annotations

from connectors.kit.auth import Credential
from connectors.kit.rest import JsonEndpoint
from connectors.runpod import settings as s

GPU_TYPES = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.ENDPOINT,
    url=lambda: s.GRAPHQL_URL,
    graphql=s.GPU_TYPES_QUERY,
    credential=Credential(
        env=(s.API_KEY_ENV,), header="Authorization", scheme="Bearer ", optional=True
    ),
    items=("data", "gpuTypes"),
    required=("id",),
)
fetch_gpu_types = GPU_TYPES.pages
fetch_live = GPU_TYPES.fetch_live
