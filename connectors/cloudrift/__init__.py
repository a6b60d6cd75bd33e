"""CloudRift: public `POST /api/v1/instance-types/list` -> on-demand VM offers per
variant and datacenter."""

from connectors.cloudrift import fetch, parse
from connectors.cloudrift.settings import ENDPOINT, PROVIDER
from connectors.kit.connector import SNAPSHOT, Connector, offers_only

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
)
