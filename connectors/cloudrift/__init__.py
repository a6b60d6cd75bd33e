"""CloudRift: public `POST /api/v1/instance-types/list` -> on-demand VM offers per
variant and datacenter."""

from connectors.cloudrift import fetch, parse
from connectors.kit.rest import rest_connector

CONNECTOR = rest_connector(fetch.INSTANCE_TYPES, parse=parse.parse)
