"""Azure: Retail Prices API (public) for prices, Resource SKUs (ARM) for VM specs."""

from connectors.kit.connector import SNAPSHOT, Connector, ProviderDoc, later

CONNECTOR = Connector(
    name="azure",
    endpoints={"retail_prices": SNAPSHOT, "resource_skus": SNAPSHOT},
    fetch_live=later("connectors.azure.fetch", "fetch_live"),
    parse_pages=later("connectors.azure.parse", "parse_located"),
    credentials=("AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PASSWORD", "AZURE_PASSWORD"),
    # retail pages are independent; resource_skus (specs) rides along with every batch
    batched_endpoint="retail_prices",
    doc=ProviderDoc(
        source=(
            "Retail Prices API (one walk per region, `NextPageLink`), Resource SKUs "
            "(azure-mgmt-compute)"
        ),
        gives=(
            "on-demand, spot, reserved 1y/3y (term totals -> effective hourly), savings plans "
            "1y/3y per region"
        ),
        auth=(
            "none for prices; `DefaultAzureCredential` + `AZURE_SUBSCRIPTION_ID` for VM specs "
            "(else the bundled size table)"
        ),
    ),
)
