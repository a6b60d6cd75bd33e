"""Seeweb: `GET /ecs/v2/plans` (API token) -> on-demand GPU plans per region (EUR prices,
converted only with a recorded rate)."""

from connectors.kit.connector import SNAPSHOT, Connector, offers_only
from connectors.seeweb import fetch, parse
from connectors.seeweb.settings import ENDPOINT, PROVIDER

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
)
