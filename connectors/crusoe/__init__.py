"""Crusoe: VM types and capacities (signed API requests) priced from the published
per-GPU-hour table -> on-demand and spot offers per location with capacity."""

from connectors.crusoe import fetch, parse
from connectors.kit.rest import rest_connector

CONNECTOR = rest_connector(*fetch.ENDPOINTS, parse=parse.parse)
