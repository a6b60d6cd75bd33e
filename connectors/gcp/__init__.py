"""GCP: Cloud Billing Catalog (Compute Engine SKUs) -> per-GPU offers and composed
accelerator machine types. See README.md in this folder."""

from connectors.gcp import fetch, parse, settings
from connectors.kit.connector import SNAPSHOT, Connector, offers_only

CONNECTOR = Connector(
    name="gcp",
    endpoints={"skus": SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
    credentials=(settings.API_KEY_ENV,),
)
