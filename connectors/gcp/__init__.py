"""GCP: Cloud Billing Catalog (Compute Engine SKUs) -> per-GPU offers and composed
accelerator machine types. See README.md in this folder."""

from connectors._connector import SNAPSHOT, Connector, offers_only
from connectors.gcp import fetch, parse

CONNECTOR = Connector(
    name="gcp",
    endpoints={"skus": SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
)
