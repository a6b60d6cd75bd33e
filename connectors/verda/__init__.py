"""Verda (formerly DataCrunch): `GET /v1/instance-types` and `/v1/locations` (OAuth2
client credentials) -> on-demand and spot offers per instance type and location."""

from connectors.kit.connector import ProviderDoc, later
from connectors.kit.rest import rest_connector
from connectors.verda import fetch

CONNECTOR = rest_connector(
    *fetch.ENDPOINTS,
    parse=later("connectors.verda.parse", "parse"),
    doc=ProviderDoc(
        source="`/v1/instance-types`, `/v1/locations` (ex DataCrunch)",
        gives="on-demand and spot per instance type and location",
    ),
)
