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

# GPU type id -> gpu_name (docs/contract.md §4). Anchored and mutually exclusive; memory comes
# from `memoryInGb`. Ids as RunPod lists them (runpod docs `runpod.get_gpu` example
# "NVIDIA A100 80GB PCIe"; "NVIDIA H100 80GB HBM3", "NVIDIA H100 NVL", "NVIDIA A100-SXM4-80GB"
# in public client code). A type missing here is named by the shared GPU rule
# (connectors/kit/gpu.py) from its id where the reference has it (RTX 6000 Ada, RTX 5090);
# else (H200 NVL, older cards) it stays gpu_name null and is counted.
# RunPod's own form-factor wording beside "PCIe"/"SXM" (connectors/kit/gpu.py): the H100
# "80GB HBM3" id is the SXM5 part (the PCIe card carries HBM2e).
GPU_VARIANT_PATTERNS: tuple[tuple[str, str], ...] = ((r"^NVIDIA H100 80GB HBM3$", "SXM"),)
GPU_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"^NVIDIA H100 NVL$", "H100NVL"),
    (r"^NVIDIA H100 (80GB HBM3|PCIe)$", "H100"),
    (r"^NVIDIA H200$", "H200"),
    (r"^NVIDIA B200$", "B200"),
    (r"^NVIDIA A100[ -](80GB PCIe|SXM4-80GB)$", "A100"),
    (r"^NVIDIA A40$", "A40"),
    (r"^NVIDIA L40S$", "L40S"),
    (r"^NVIDIA L40$", "L40"),
    (r"^NVIDIA L4$", "L4"),
    (r"^NVIDIA RTX A6000$", "RTX A6000"),
    (r"^NVIDIA RTX A5000$", "RTX A5000"),
    (r"^NVIDIA RTX A4000$", "RTX A4000"),
    (r"^NVIDIA GeForce RTX 4090$", "RTX 4090"),
    (r"^NVIDIA GeForce RTX 3090$", "RTX 3090"),
    (r"^NVIDIA RTX PRO 6000 Blackwell (Server|Workstation) Edition$", "RTX PRO 6000"),
    (r"^AMD Instinct MI300X OAM$", "MI300X"),
)
