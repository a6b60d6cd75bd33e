"""FluidStack: `GET /list_available_configurations` (API key) -> per-GPU-hour on-demand
offers per GPU type and region."""

from connectors.fluidstack import fetch, parse
from connectors.kit.rest import rest_connector

CONNECTOR = rest_connector(fetch.CONFIGURATIONS, parse=parse.parse)
