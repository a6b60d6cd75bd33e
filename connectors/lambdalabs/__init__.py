"""Lambda Cloud: `GET /api/v1/instance-types` (API key) -> on-demand offers per region
with listed capacity (region 'any' when none is listed)."""

from connectors.kit.rest import rest_connector
from connectors.lambdalabs import fetch, parse

CONNECTOR = rest_connector(fetch.INSTANCE_TYPES, parse=parse.parse)
