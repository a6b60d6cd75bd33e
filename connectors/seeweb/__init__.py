"""Seeweb: `GET /ecs/v2/plans` (API token) -> on-demand GPU plans per region (EUR prices,
converted only with a recorded rate)."""

from connectors.kit.rest import rest_connector
from connectors.seeweb import fetch, parse

CONNECTOR = rest_connector(fetch.PLANS, parse=parse.parse)
