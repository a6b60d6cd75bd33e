"""RunPod: GraphQL `gpuTypes` (key optional) -> per-GPU-hour secure/community offers,
on demand and spot where given."""

from connectors.kit.connector import SNAPSHOT, Connector, offers_only
from connectors.runpod import fetch, parse, settings
from connectors.runpod.settings import ENDPOINT, PROVIDER

CONNECTOR = Connector(
    name=PROVIDER,
    endpoints={ENDPOINT: SNAPSHOT},
    fetch_live=fetch.fetch_live,
    parse_pages=offers_only(parse.parse),
    credentials=(settings.API_KEY_ENV,),
)
