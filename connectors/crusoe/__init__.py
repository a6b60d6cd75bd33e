"""Crusoe: VM types and capacities (signed API requests) priced from the published
per-GPU-hour table -> on-demand and spot offers per location with capacity."""

from connectors.crusoe import fetch, parse, settings
from connectors.crusoe.settings import CAPACITIES, PROVIDER, VM_TYPES
from connectors.kit.connector import SNAPSHOT, Connector, offers_only

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={VM_TYPES: SNAPSHOT, CAPACITIES: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
    credentials=(settings.ACCESS_KEY_ENV, settings.SECRET_KEY_ENV),
)
