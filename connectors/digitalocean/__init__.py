"""DigitalOcean: `GET /v2/sizes` (bearer token, paged) -> on-demand GPU Droplet offers
per region."""

from connectors.digitalocean import fetch
from connectors.kit.connector import ProviderDoc, later
from connectors.kit.rest import rest_connector

CONNECTOR = rest_connector(
    fetch.SIZES,
    parse=later("connectors.digitalocean.parse", "parse"),
    doc=ProviderDoc(
        source="`/v2/sizes` (paged by `links.pages.next`)",
        gives="on-demand GPU Droplets per region",
    ),
)
