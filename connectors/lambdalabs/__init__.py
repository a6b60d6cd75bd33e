"""Lambda Cloud: `GET /api/v1/instance-types` (API key) -> on-demand offers per region
with listed capacity (region 'any' when none is listed)."""

from connectors.kit.connector import ProviderDoc, later
from connectors.kit.rest import rest_connector
from connectors.lambdalabs import fetch

CONNECTOR = rest_connector(
    fetch.INSTANCE_TYPES,
    parse=later("connectors.lambdalabs.parse", "parse"),
    doc=ProviderDoc(
        source="`/api/v1/instance-types`",
        gives="on-demand per region with capacity (else `region = 'any'`)",
    ),
)
