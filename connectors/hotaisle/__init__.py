"""Hot Aisle: `GET /api/teams/{team}/virtual_machines/available/` (API key and team) ->
on-demand AMD Instinct VM offers."""

from connectors.hotaisle import fetch
from connectors.kit.connector import ProviderDoc, later
from connectors.kit.rest import rest_connector

CONNECTOR = rest_connector(
    fetch.AVAILABLE,
    parse=later("connectors.hotaisle.parse", "parse"),
    doc=ProviderDoc(
        source="`/api/teams/{team}/virtual_machines/available/`",
        gives="on-demand AMD Instinct VM configurations",
    ),
)
