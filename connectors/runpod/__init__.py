"""RunPod: GraphQL `gpuTypes` (key optional) -> per-GPU-hour secure/community offers,
on demand and spot where given."""

from connectors.kit.rest import rest_connector
from connectors.runpod import fetch, parse

CONNECTOR = rest_connector(fetch.GPU_TYPES, parse=parse.parse)
