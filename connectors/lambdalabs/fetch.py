"""Lambda Cloud fetch: `GET /api/v1/instance-types`, network only, body as received.

- Auth: the API key from env `LAMBDA_API_KEY`, sent as `Authorization: Bearer <key>`.
  No key: MissingCredentials (the provider is skipped, not failed).
- Paging: none; one JSON object `{"data": {<type name>: {...}}}`.
- 429 and 5xx are retried with backoff honouring Retry-After (connectors.kit.http); Lambda
  documents about one request per second for the API.
- Quirk: `data` is keyed by instance type name, not a list.
"""

from __future__ import annotations

from typing import Any

from connectors.errors import UnexpectedResponse
from connectors.kit.rest import Credential, JsonEndpoint
from connectors.lambdalabs import settings as s


def _check(body: Any) -> None:
    """Schema drift guard: `data` is an object of instance types, each with a price."""
    if not isinstance(body, dict) or not isinstance(body.get("data"), dict):
        raise UnexpectedResponse(
            s.PROVIDER, s.ENDPOINT, "response has no 'data' object", excerpt=repr(body)
        )
    for name, entry in body["data"].items():
        instance = entry.get("instance_type") if isinstance(entry, dict) else None
        if not isinstance(instance, dict) or "price_cents_per_hour" not in instance:
            raise UnexpectedResponse(
                s.PROVIDER,
                s.ENDPOINT,
                f"instance type {name!r} has no instance_type.price_cents_per_hour",
                excerpt=repr(entry),
            )


INSTANCE_TYPES = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.ENDPOINT,
    url=lambda: s.INSTANCE_TYPES_URL,
    credential=Credential(
        env=(s.API_KEY_ENV,),
        header="Authorization",
        scheme="Bearer ",
        need="Lambda prices need an API key",
    ),
    check=_check,  # `data` is an object of instance types, not a list
)
api_key_from_env = INSTANCE_TYPES.credential_from_env
fetch_instance_types = INSTANCE_TYPES.pages
fetch_live = INSTANCE_TYPES.fetch_live
