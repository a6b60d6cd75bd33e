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

# Vast.ai's `gpu_name` ("A100 PCIE", "A100 SXM4", "H100 SXM", "Tesla V100", as gpuhunt's
# providers/vastai.py GPU_MAPPING lists them) is handed over as the source's GPU words with
# `gpu_ram` (MB as the driver sees it): the shared GPU rule (common/gpu.py) names
# the GPU and snaps the memory to the marketed size within 10% (else null, not guessed). GPUs the reference lacks
# (A800 PCIE, Q RTX 8000 ...) keep gpu_name null and are counted as unknown.
MB_PER_GIB = 1024

# Region: the country of `geolocation` ("California, US" -> "us"); 'any' when missing.
UNKNOWN_REGION = "any"
SPOT_DETAIL = "interruptible (min_bid + storage)"
