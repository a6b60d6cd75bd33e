"""RunPod settings: the GraphQL endpoint and query, and the GPU type id -> GPU map."""

from __future__ import annotations

PROVIDER = "runpod"
ENDPOINT = "gpu_types"

GRAPHQL_URL = "https://api.runpod.io/graphql"
# Optional: gpuhunt queries `gpuTypes` with no key at all (as gpuhunt's and SkyPilot's provider code read it). With a key we
# send it as a Bearer header, never as runpod-python's `?api_key=` query parameter, so it
# cannot end up in a logged URL.
API_KEY_ENV = "RUNPOD_API_KEY"

# The list prices per GPU-hour of every GPU type, for both clouds. `lowestPrice` (per
# data centre / country, stock status) is left out: it needs one query per location and
# GPU count, and the list price is the same everywhere (RunPod pricing page).
GPU_TYPES_QUERY = """query GpuTypes {
  gpuTypes {
    id
    displayName
    manufacturer
    memoryInGb
    maxGpuCount
    secureCloud
    communityCloud
    securePrice
    communityPrice
    secureSpotPrice
    communitySpotPrice
  }
}"""

# RunPod list prices apply in every data centre of a cloud: one offer per GPU type and
# cloud, region 'global' (the same convention as OCI).
REGION = "global"

# (pricing_model, pricing_detail, price field, cloud flag field) for each offer a GPU type
# can carry. A price is an offer only when its cloud flag is true and the price is given.
OFFERS: tuple[tuple[str, str, str, str], ...] = (
    ("on_demand", "secure", "securePrice", "secureCloud"),
    ("on_demand", "community", "communityPrice", "communityCloud"),
    ("spot", "secure", "secureSpotPrice", "secureCloud"),
    ("spot", "community", "communitySpotPrice", "communityCloud"),
)

# The GPU type id (runpod docs `runpod.get_gpu` example "NVIDIA A100 80GB PCIe"; "NVIDIA
# H100 80GB HBM3", "NVIDIA H100 NVL", "NVIDIA A100-SXM4-80GB" in public client code) is
# handed over as the source's GPU words with `memoryInGb`: the shared GPU rule
# (common/gpu.py) names it and reads its form factor. The "80GB HBM3" H100 is the
# SXM5 part: a row of sql/seeds/seed_instance_families.csv. A type the reference lacks
# (H200 NVL, older cards) stays gpu_name null and is counted.
