"""Verda (formerly DataCrunch): `GET /v1/instance-types` and `/v1/locations` (OAuth2
client credentials) -> on-demand and spot offers per instance type and location."""

from connectors.kit.connector import SNAPSHOT, Connector, offers_only
from connectors.verda import fetch, parse, settings
from connectors.verda.settings import INSTANCE_TYPES, LOCATIONS, PROVIDER

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={INSTANCE_TYPES: SNAPSHOT, LOCATIONS: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
    credentials=settings.CLIENT_SECRET_ENV,
)
