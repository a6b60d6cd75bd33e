"""RunPod: GraphQL `gpuTypes` (key optional) -> per-GPU-hour secure/community offers,
on demand and spot where given."""

from connectors.kit.connector import ProviderDoc, later
from connectors.kit.rest import rest_connector
from connectors.runpod import fetch

CONNECTOR = rest_connector(
    fetch.GPU_TYPES,
    parse=later("connectors.runpod.parse", "parse"),
    doc=ProviderDoc(
        source="GraphQL `gpuTypes`",
        gives="secure/community on-demand and spot, per GPU",
    ),
)
