"""Seeweb: `GET /ecs/v2/plans` (API token) -> on-demand GPU plans per region (EUR prices,
converted only with a recorded rate)."""

from connectors.kit.connector import ProviderDoc, later
from connectors.kit.rest import rest_connector
from connectors.seeweb import fetch

CONNECTOR = rest_connector(
    fetch.PLANS,
    parse=later("connectors.seeweb.parse", "parse"),
    doc=ProviderDoc(
        source="ECS `/ecs/v2/plans`",
        gives=(
            "on-demand GPU plans per region, priced in euro and converted with the recorded EUR "
            "rate"
        ),
    ),
)
