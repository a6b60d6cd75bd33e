"""Lambda Cloud: `GET /api/v1/instance-types` (API key) -> on-demand offers per region
with listed capacity (region 'any' when none is listed)."""

from connectors.kit.connector import SNAPSHOT, Connector, offers_only
from connectors.lambdalabs import fetch, parse
from connectors.lambdalabs.settings import ENDPOINT, PROVIDER

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
)
