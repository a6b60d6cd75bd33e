"""JarvisLabs: `GET /misc/server_meta` (API key) -> per-GPU-hour offers per GPU type,
region and workload (VM or container), spot for containers."""

from connectors.jarvislabs import fetch
from connectors.kit.connector import ProviderDoc, later
from connectors.kit.rest import rest_connector

CONNECTOR = rest_connector(
    fetch.SERVER_META,
    parse=later("connectors.jarvislabs.parse", "parse"),
    doc=ProviderDoc(
        source="`/misc/server_meta`",
        gives=(
            "per-GPU-hour on-demand per GPU type, region and workload (VM/container), container "
            "spot"
        ),
    ),
)
