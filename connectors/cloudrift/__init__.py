"""CloudRift: public `POST /api/v1/instance-types/list` -> on-demand VM offers per
variant and datacenter."""

from connectors.cloudrift import fetch
from connectors.kit.connector import ProviderDoc, later
from connectors.kit.rest import rest_connector

CONNECTOR = rest_connector(
    fetch.INSTANCE_TYPES,
    parse=later("connectors.cloudrift.parse", "parse"),
    doc=ProviderDoc(
        source="`POST /api/v1/instance-types/list`",
        gives="on-demand VM variants per datacenter (RTX 4090, RTX PRO 6000 ...)",
    ),
)
