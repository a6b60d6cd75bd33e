"""GCP: Cloud Billing Catalog (Compute Engine SKUs) -> per-GPU offers and composed
accelerator machine types. See README.md in this folder."""

from connectors.gcp import settings
from connectors.kit.connector import SNAPSHOT, Connector, ProviderDoc, later, offers_only

CONNECTOR = Connector(
    name="gcp",
    endpoints={"skus": SNAPSHOT},
    fetch_live=later("connectors.gcp.fetch", "fetch_live"),
    parse_pages=offers_only(later("connectors.gcp.parse", "parse")),
    credentials=(settings.API_KEY_ENV,),
    doc=ProviderDoc(
        source="Cloud Billing Catalog `services.skus.list` (google-cloud-billing)",
        gives=(
            "per-GPU SKUs and composed machine types (host + GPUs), on-demand, spot, DWS "
            "flex-start, 1y/3y commitments"
        ),
        auth="ADC or `GOOGLE_API_KEY`",
    ),
)
