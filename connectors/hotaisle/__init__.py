"""Hot Aisle: `GET /api/teams/{team}/virtual_machines/available/` (API key and team) ->
on-demand AMD Instinct VM offers."""

from connectors.hotaisle import fetch, parse, settings
from connectors.hotaisle.settings import ENDPOINT, PROVIDER
from connectors.kit.connector import SNAPSHOT, Connector, offers_only

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
    credentials=(settings.API_KEY_ENV,),
)
