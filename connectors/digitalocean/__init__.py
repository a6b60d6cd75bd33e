"""DigitalOcean: `GET /v2/sizes` (bearer token, paged) -> on-demand GPU Droplet offers
per region."""

from connectors.digitalocean import fetch, parse, settings
from connectors.digitalocean.settings import ENDPOINT, PROVIDER
from connectors.kit.connector import SNAPSHOT, Connector, offers_only

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
    credentials=settings.TOKEN_ENV,
)
