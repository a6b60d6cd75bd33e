"""Verda fetch: instance types and locations, network only, bodies as received.

- Auth: OAuth2 client credentials from env `VERDA_CLIENT_ID` / `VERDA_CLIENT_SECRET`
  (or the older `DATACRUNCH_*` names): `POST /v1/oauth2/token` with
  `{"grant_type": "client_credentials", "client_id", "client_secret"}` returns
  `{access_token, refresh_token, scope, token_type, expires_in}`; the access token is
  sent as `Authorization: Bearer`. Neither the secret nor the token is stored or logged;
  the tokens are registered with common.redact, so an error that echoes one is masked.
  No credentials: MissingCredentials (skipped, not failed).
- Paging: none; both endpoints return a bare JSON array.
- 429 and 5xx retried with backoff (connectors.kit.http); 4xx (a bad secret) fails.

Declared as connectors.kit.rest.JsonEndpoint's sharing one OAuth2 token step
(connectors.kit.auth.OAuth2ClientCredentials), run once per fetch.
"""

from __future__ import annotations

from connectors.kit.auth import Credential, OAuth2ClientCredentials
from connectors.kit.rest import JsonEndpoint, live_fetch
from connectors.verda import settings as s

TOKEN = OAuth2ClientCredentials(
    token_path=s.TOKEN_PATH,
    client_id=Credential(env=s.CLIENT_ID_ENV, secret=False),
    client_secret=Credential(env=s.CLIENT_SECRET_ENV),
)
INSTANCE_TYPES = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.INSTANCE_TYPES,
    base=lambda: s.BASE_URL,
    url=s.INSTANCE_TYPES_PATH,
    params=s.PARAMS,
    auth=TOKEN,
    items=None,  # a bare array
    required=("instance_type", "price_per_hour", "gpu"),
)
LOCATIONS = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.LOCATIONS,
    base=lambda: s.BASE_URL,
    url=s.LOCATIONS_PATH,
    auth=TOKEN,
    items=None,
    required=("code",),
)
ENDPOINTS = (INSTANCE_TYPES, LOCATIONS)
fetch_live = live_fetch(*ENDPOINTS)
