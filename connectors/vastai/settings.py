"""Vast.ai settings: the public bundles search, its query, paging limits, the GPU map."""

from __future__ import annotations

PROVIDER = "vastai"
ENDPOINT = "bundles"

BUNDLES_URL = "https://console.vast.ai/api/v0/bundles/"

# The search body (per-field operators, as gpuhunt's and SkyPilot's provider code read it). Request-side filter only: GPU
# machines that can be rented now, on-demand prices (each offer also carries `min_bid`,
# its interruptible price). Ordered by price so paging by a rising price floor works.
PAGE_LIMIT = 1000  # the server caps `limit` (gpuhunt asks for 3000 at most)
MAX_PAGES = 20  # 20 000 offers: far above the ~10 000 GPU offers listed at any time
QUERY: dict = {
    "num_gpus": {"gte": 1},
    "rentable": {"eq": True},
    "rented": {"eq": False},
    "type": "on-demand",
    "order": [["dph_total", "asc"]],
}

# Vast.ai `gpu_name` -> (gpu_name of the vocabulary, the marketed memory sizes per GPU).
# Vast reports `gpu_ram` in MB as the driver sees it (an H100 80GB shows ~81 559), so the
# memory is snapped to the nearest marketed size of that GPU; more than 12% away from
# every size leaves it null rather than guessed. Names follow gpuhunt's
# providers/vastai.py GPU_MAPPING ("A100 PCIE", "A100 SXM4", "H100 SXM", "Tesla V100" ...).
# Names missing here are read by the shared GPU rule (connectors/kit/gpu.py: RTX 5090, RTX
# 6000Ada); those the reference lacks (A800 PCIE, Q RTX 8000 ...) keep gpu_name null and
# are counted as unknown.
GPUS: dict[str, tuple[str, tuple[float, ...]]] = {
    "H100 SXM": ("H100", (80,)),
    "H100 PCIE": ("H100", (80,)),
    "H100 NVL": ("H100NVL", (94,)),
    "H200": ("H200", (141,)),
    "B200": ("B200", (180,)),
    "A100 SXM4": ("A100", (40, 80)),
    "A100 PCIE": ("A100", (40, 80)),
    "L40S": ("L40S", (48,)),
    "L40": ("L40", (48,)),
    "A40": ("A40", (48,)),
    "A10": ("A10", (24,)),
    "L4": ("L4", (24,)),
    "RTX A6000": ("RTX A6000", (48,)),
    "RTX A5000": ("RTX A5000", (24,)),
    "RTX A4000": ("RTX A4000", (16,)),
    "RTX 4090": ("RTX 4090", (24,)),
    "RTX 3090": ("RTX 3090", (24,)),
    "Tesla V100": ("V100", (16, 32)),
    "Tesla T4": ("T4", (16,)),
    "Tesla P100": ("P100", (16,)),
}
MEMORY_SNAP_TOLERANCE = 0.12
MB_PER_GIB = 1024

# Region: the country of `geolocation` ("California, US" -> "us"); 'any' when missing.
UNKNOWN_REGION = "any"
SPOT_DETAIL = "interruptible (min_bid + storage)"
