"""FluidStack: `GET /list_available_configurations` (API key) -> per-GPU-hour on-demand
offers per GPU type and region."""

from connectors.fluidstack import fetch
from connectors.kit.connector import ProviderDoc, later
from connectors.kit.rest import rest_connector

CONNECTOR = rest_connector(
    fetch.CONFIGURATIONS,
    parse=later("connectors.fluidstack.parse", "parse"),
    doc=ProviderDoc(
        source="`/list_available_configurations` (the platform API of FluidStack's on-demand era)",
        gives=(
            "per-GPU-hour on-demand per GPU type and region (the `sheets` row stays for the "
            "withdrawn price list)"
        ),
    ),
)
