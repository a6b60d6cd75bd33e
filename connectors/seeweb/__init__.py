"""Seeweb: `GET /ecs/v2/plans` (API token) -> on-demand GPU plans per region (EUR prices,
converted only with a recorded rate)."""

from connectors.kit.connector import ProviderDoc
from connectors.kit.rest import rest_connector
from connectors.seeweb import fetch, parse

CONNECTOR = rest_connector(
    fetch.PLANS,
    parse=parse.parse,
    doc=ProviderDoc(
        source="ECS `/ecs/v2/plans`",
        gives=(
            "on-demand GPU plans per region, priced in euro and converted with the recorded EUR "
            "rate"
        ),
    ),
)
