"""Vast.ai: public bundles search -> one on-demand (and, with a min_bid, one spot) offer
per marketplace offer; per-GPU min and median in mart_vastai_gpu_prices."""

from connectors.kit.connector import SNAPSHOT, Connector, ProviderDoc, later, offers_only
from connectors.vastai.settings import ENDPOINT, PROVIDER

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=later("connectors.vastai.fetch", "fetch_live"),
    parse_pages=offers_only(later("connectors.vastai.parse", "parse")),
    doc=ProviderDoc(
        source="bundles search",
        gives="every marketplace offer, plus min and median per GPU",
        auth="none",
    ),
)
