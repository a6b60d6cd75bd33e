"""Curated price sheets: CSV files in the repository (providers with no price API, and
published historical price tables), loaded through the same raw/parse path as APIs."""

from connectors.kit.connector import SNAPSHOT, Connector, ProviderDoc, later, offers_only
from connectors.sheets.settings import EMITS_PROVIDERS, ENDPOINT, PROVIDER

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=later("connectors.sheets.fetch", "fetch_live"),
    parse_pages=offers_only(later("connectors.sheets.parse", "parse")),
    emits_providers=EMITS_PROVIDERS,
    doc=ProviderDoc(
        source="curated CSVs in `connectors/sheets/sheets/`",
        gives=(
            "CoreWeave, FluidStack and other providers with no API; the dated 2023-04-07 A100/A10"
            " survey, so history starts there"
        ),
        auth="none",
    ),
)
