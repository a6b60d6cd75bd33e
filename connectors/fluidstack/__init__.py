"""FluidStack: `GET /list_available_configurations` (API key) -> per-GPU-hour on-demand
offers per GPU type and region."""

from connectors.fluidstack import fetch, parse
from connectors.fluidstack.settings import ENDPOINT, PROVIDER
from connectors.kit.connector import SNAPSHOT, Connector, offers_only

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
)
