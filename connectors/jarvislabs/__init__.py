"""JarvisLabs: `GET /misc/server_meta` (API key) -> per-GPU-hour offers per GPU type,
region and workload (VM or container), spot for containers."""

from connectors.jarvislabs import fetch, parse
from connectors.jarvislabs.settings import ENDPOINT, PROVIDER
from connectors.kit.connector import SNAPSHOT, Connector, offers_only

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
)
