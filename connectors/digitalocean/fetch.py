"""DigitalOcean fetch: `GET /v2/sizes`, network only, pages as received.

- Auth: a personal access token from env `DIGITALOCEAN_TOKEN` (or
  `DIGITALOCEAN_ACCESS_TOKEN`, `DIGITAL_OCEAN_API_KEY`), sent as `Authorization: Bearer`.
  No token: MissingCredentials (skipped, not failed).
- Paging: `per_page=200&page=1`; the next page is `links.pages.next` (absent on the last
  page); a page without sizes ends the walk, one that repeats a request or passes
  MAX_PAGES fails.
- 429 and 5xx retried with backoff honouring Retry-After (connectors.kit.http).

Declared as a connectors.kit.rest.JsonEndpoint.
"""

from __future__ import annotations

from connectors.digitalocean import settings as s
from connectors.kit.auth import Credential
from connectors.kit.rest import JsonEndpoint, NextLink

SIZES = JsonEndpoint(
    provider=s.PROVIDER,
    endpoint=s.ENDPOINT,
    url=lambda: s.SIZES_URL,
    credential=Credential(env=s.TOKEN_ENV, header="Authorization", scheme="Bearer "),
    params={"per_page": str(s.PER_PAGE), "page": "1"},
    paging=NextLink(("links", "pages", "next")),
    max_pages=s.MAX_PAGES,
    items="sizes",
    required=("slug", "price_hourly", "regions"),
)
token_from_env = SIZES.credential_from_env
fetch_sizes = SIZES.pages
fetch_live = SIZES.fetch_live
