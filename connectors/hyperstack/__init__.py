"""Hyperstack: `GET /v1/pricebook` (API key) -> one per-GPU-hour offer per GPU entry,
on demand and spot ("-spot" entries), region 'global'."""

from connectors.hyperstack import fetch, parse
from connectors.hyperstack.settings import ENDPOINT, PROVIDER
from connectors.kit.connector import SNAPSHOT, Connector, offers_only

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
)
