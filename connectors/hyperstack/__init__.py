"""Hyperstack: `GET /v1/pricebook` (API key) -> one per-GPU-hour offer per GPU entry,
on demand and spot ("-spot" entries), region 'global'."""

from connectors.hyperstack import fetch
from connectors.kit.connector import ProviderDoc, later
from connectors.kit.rest import rest_connector

CONNECTOR = rest_connector(
    fetch.PRICEBOOK,
    parse=later("connectors.hyperstack.parse", "parse"),
    doc=ProviderDoc(
        source="Infrahub `/v1/pricebook`",
        gives="per-GPU-hour on-demand and spot per GPU model, region `global`",
    ),
)
