"""Nebius: gRPC billing calculator (`CalculatorService/Estimate`) per compute platform
preset, through the `nebius` SDK with an IAM token -> on-demand and spot offers per region."""

from connectors.kit.connector import SNAPSHOT, Connector, ProviderDoc, later, offers_only
from connectors.nebius import settings
from connectors.nebius.settings import ENDPOINT, PROVIDER

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=later("connectors.nebius.fetch", "fetch_live"),
    parse_pages=offers_only(later("connectors.nebius.parse", "parse")),
    credentials=(settings.TOKEN_ENV,),
    doc=ProviderDoc(
        source=(
            "gRPC through the `nebius` SDK: billing `CalculatorService/Estimate` per compute "
            "platform preset (platforms from `PlatformService/List`, one project per region)"
        ),
        gives="on-demand and spot (preemptible) per GPU preset and region",
        auth="`NEBIUS_IAM_TOKEN`",
    ),
)
