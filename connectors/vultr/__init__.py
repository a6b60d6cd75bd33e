"""Vultr: public `GET /v2/plans?type=vcg` and `/v2/plans-metal` (no auth, cursor paging)
-> on-demand Cloud GPU and bare-metal GPU offers per location, preemptible where listed."""

from connectors.kit.connector import ProviderDoc, later
from connectors.kit.rest import rest_connector
from connectors.vultr import fetch

CONNECTOR = rest_connector(
    *fetch.ENDPOINTS,
    parse=later("connectors.vultr.parse", "parse"),
    doc=ProviderDoc(
        source="`/v2/plans?type=vcg`, `/v2/plans-metal` (cursor paging)",
        gives=(
            "on-demand Cloud GPU and bare-metal GPU plans per location, preemptible bare metal as"
            " spot"
        ),
    ),
)
