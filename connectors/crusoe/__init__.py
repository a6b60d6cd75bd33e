"""Crusoe: VM types and capacities (signed API requests) priced from the published
per-GPU-hour table -> on-demand and spot offers per location with capacity."""

from connectors.crusoe import fetch
from connectors.kit.connector import ProviderDoc, later
from connectors.kit.rest import rest_connector

CONNECTOR = rest_connector(
    *fetch.ENDPOINTS,
    parse=later("connectors.crusoe.parse", "parse"),
    doc=ProviderDoc(
        source=(
            "`/v1alpha5` VM types and capacities (signed requests); prices from the published "
            "table in `connectors/crusoe/settings.py`"
        ),
        gives="on-demand and spot per VM type and location with capacity",
    ),
)
