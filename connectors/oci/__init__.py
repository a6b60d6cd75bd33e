"""Oracle Cloud (OCI): the public cetools price list (no auth) -> one offer per GPU shape
(global price), plus preemptible at 50% where the shape allows it."""

from connectors.kit.connector import SNAPSHOT, Connector, ProviderDoc, offers_only
from connectors.oci import fetch, parse
from connectors.oci.settings import ENDPOINT, PROVIDER

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
    doc=ProviderDoc(
        source="public price list",
        gives="per-GPU-hour shapes, preemptible at the documented 50%",
        auth="none",
    ),
)
