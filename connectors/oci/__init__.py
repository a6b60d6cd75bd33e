"""Oracle Cloud (OCI): the public cetools price list (no auth) -> one offer per GPU shape
(global price), plus preemptible at 50% where the shape allows it."""

from connectors.kit.connector import SNAPSHOT, Connector, ProviderDoc, later, offers_only
from connectors.oci.settings import ENDPOINT, PROVIDER

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=later("connectors.oci.fetch", "fetch_live"),
    parse_pages=offers_only(later("connectors.oci.parse", "parse")),
    doc=ProviderDoc(
        source="public price list",
        gives="per-GPU-hour shapes, preemptible at the documented 50%",
        auth="none",
    ),
)
