"""DigitalOcean: `GET /v2/sizes` (bearer token, paged) -> on-demand GPU Droplet offers
per region."""

from connectors.digitalocean import fetch, parse
from connectors.kit.rest import rest_connector

CONNECTOR = rest_connector(fetch.SIZES, parse=parse.parse)
