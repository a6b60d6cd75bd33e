"""Vultr: public `GET /v2/plans?type=vcg` and `/v2/plans-metal` (no auth, cursor paging)
-> on-demand Cloud GPU and bare-metal GPU offers per location, preemptible where listed."""

from connectors.kit.rest import rest_connector
from connectors.vultr import fetch, parse

CONNECTOR = rest_connector(*fetch.ENDPOINTS, parse=parse.parse)
