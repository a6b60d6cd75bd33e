"""JarvisLabs: `GET /misc/server_meta` (API key) -> per-GPU-hour offers per GPU type,
region and workload (VM or container), spot for containers."""

from connectors.jarvislabs import fetch, parse
from connectors.kit.rest import rest_connector

CONNECTOR = rest_connector(fetch.SERVER_META, parse=parse.parse)
