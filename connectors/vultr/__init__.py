"""Vultr: public `GET /v2/plans?type=vcg` and `/v2/plans-metal` (no auth, cursor paging)
-> on-demand Cloud GPU and bare-metal GPU offers per location, preemptible where listed."""

from connectors.kit.connector import SNAPSHOT, Connector, offers_only
from connectors.vultr import fetch, parse
from connectors.vultr.settings import PLANS, PLANS_METAL, PROVIDER

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={PLANS: SNAPSHOT, PLANS_METAL: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
)
